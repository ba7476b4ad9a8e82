/**
 * Total, defensive readers shared by the format lenses. A lens must never throw, whatever the caller
 * passes: these helpers turn anything unexpected into "absent".
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"

/** A plain (non-null, non-array) object: Effect's `Predicate.isObject`, narrowed to a read-only record. */
export const isRecord: (u: unknown) => u is Readonly<Record<string, unknown>> = Predicate.isObject

/** The string at `record[key]`, or `undefined`. */
export const str = (u: unknown, key: string): string | undefined => {
  if (!isRecord(u)) return undefined
  const v = u[key]
  return typeof v === "string" ? v : undefined
}

/** The array at `record[key]`, or an empty array. */
export const arr = (u: unknown, key: string): ReadonlyArray<unknown> => {
  if (!isRecord(u)) return empty
  const v = u[key]
  return Array.isArray(v) ? v : empty
}

/** `record[key] === true`. */
export const flag = (u: unknown, key: string): boolean => isRecord(u) && u[key] === true

/** The record at `record[key]`, or `undefined`. */
export const rec = (u: unknown, key: string): Readonly<Record<string, unknown>> | undefined => {
  if (!isRecord(u)) return undefined
  const v = u[key]
  return isRecord(v) ? v : undefined
}

/** A shared empty array, so that "no links" allocates nothing. */
export const empty: ReadonlyArray<never> = Object.freeze([])

/**
 * A shallow copy of `value` with `patch` applied, keeping its prototype (so class instances such as
 * LangChain messages stay instances). Keys whose patch value is `undefined` are removed. A value that is
 * not an object cannot be rewritten and is returned as it is.
 */
export const withFields = <M>(value: M, patch: Readonly<Record<string, unknown>>): M => {
  if (typeof value !== "object" || value === null) return value
  const source = value as object
  const copy = Object.assign(Object.create(Object.getPrototypeOf(source)), source) as Record<string, unknown>
  for (const key of Object.keys(patch)) {
    const v = patch[key]
    if (v === undefined) delete copy[key]
    else copy[key] = v
  }
  return copy as M
}

/** JSON text of an arbitrary value, never throwing (cycles and BigInts give a placeholder). */
export const jsonText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined) return ""
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return "[unserializable]"
  }
}

/**
 * The text of a content value: the string itself, or the `text` fields of the parts whose `type` is in
 * `textTypes`, joined by newlines.
 */
export const contentText = (content: unknown, textTypes: ReadonlySet<string>): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  let out = ""
  let first = true
  for (const part of content) {
    if (!isRecord(part)) continue
    const type = part["type"]
    if (typeof type !== "string" || !textTypes.has(type)) continue
    const text = part["text"]
    if (typeof text !== "string") continue
    out = first ? text : out + "\n" + text
    first = false
  }
  return out
}

/**
 * Content with its text replaced by `text`: a string becomes `text`; in a list of parts the first text
 * part takes `text`, the other text parts are removed and every other part is kept in place. A list
 * with no text part gets one appended, of type `textType`.
 */
export const replaceContentText = (
  content: unknown,
  text: string,
  textTypes: ReadonlySet<string>,
  textType: string
): unknown => {
  if (!Array.isArray(content)) return text
  const out: Array<unknown> = []
  let placed = false
  for (const part of content) {
    if (isRecord(part) && typeof part["type"] === "string" && textTypes.has(part["type"])) {
      if (!placed) {
        out.push(withFields(part, { text }))
        placed = true
      }
    } else {
      out.push(part)
    }
  }
  if (!placed) out.push({ type: textType, text })
  return out
}

/** Joins non-empty strings with newlines. */
export const joinText = (texts: ReadonlyArray<string>): string => {
  let out = ""
  for (const t of texts) {
    if (t.length === 0) continue
    out = out.length === 0 ? t : out + "\n" + t
  }
  return out
}
