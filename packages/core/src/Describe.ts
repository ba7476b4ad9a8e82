/**
 * How every ctxkit message names a value it was given and where it sits: one wording for diagnostics, issues
 * and errors, so that a bad option reads the same in every package.
 *
 * @since 0.1.0
 */
import { safeHead } from "./TextCut.ts"

/** Strings longer than this are shown by their head and an ellipsis. */
const MAX_SHOWN = 40

/**
 * A value as short text for a message: numbers, booleans, `null` and `undefined` as written (`NaN`, `-1`, `true`),
 * a bigint with its `n`, a string quoted and clipped to 40 characters (`"abc…"`), and the rest by kind (`an array`,
 * `an object`, `a function`, `a symbol`) — never an object's contents, which may be large or private.
 *
 * @example
 * ```ts
 * import { describeValue } from "@ctxkit/core/Describe"
 *
 * const option = "maxTokens"
 * const given: unknown = []
 * const message = `${option} must be a number of tokens, got ${describeValue(given)}` // "… got an array"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export const describeValue = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > MAX_SHOWN ? `${safeHead(value, MAX_SHOWN)}…` : value)
    case "bigint":
      return `${value}n`
    case "symbol":
      return "a symbol"
    case "function":
      return "a function"
    case "object":
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object"
    default:
      return String(value)
  }
}

/**
 * A path of keys as code, under `base`: `messages[3].toolCalls[0].id`; a key that is not an identifier is quoted
 * (`meta["x-id"]`). With an empty `base` the path starts with its first key (`data.plugins[0]`). Segments may be
 * keys or Schema issue segments (`{ key }`), so a Schema failure's path reads like the caller's code.
 *
 * @example
 * ```ts
 * import { describePath } from "@ctxkit/core/Describe"
 *
 * describePath("messages", [3, "toolCalls", 0, "id"]) // "messages[3].toolCalls[0].id"
 * describePath("", ["meta", "x-id"]) // "meta[\"x-id\"]"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export const describePath = (
  base: string,
  path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>
): string => {
  let out = base
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === "" ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}
