/**
 * How every ctxkit message names a value it was given: one wording for diagnostics, issues and errors, so that a
 * bad option reads the same in every package.
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
