/**
 * Small text helpers: ASCII-only JSON quoting, integer reading, safe token counting.
 *
 * @internal
 */
import type { TokenCounter } from "@ctxkit/budget"

const NON_ASCII = /[\u007f-\uffff]/g

/**
 * `value` as a JSON string literal made only of printable ASCII: control characters are escaped by
 * `JSON.stringify`, and every code unit from U+007F up (surrogate halves included) becomes `\uXXXX`.
 */
export const asciiJson = (value: string): string =>
  JSON.stringify(value).replace(NON_ASCII, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))

/** A non-negative safe integer, or `undefined` for anything else (NaN, fractions, negatives, strings). */
export const lineNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined

/** The first 8 hex digits of a digest, lowercased, or `undefined` when it is not a hex digest. */
export const digestPrefix = (sha256: unknown): string | undefined =>
  typeof sha256 === "string" && /^[0-9a-fA-F]{8}/.test(sha256) ? sha256.slice(0, 8).toLowerCase() : undefined

/** Counts with `counter`, falling back to `ceil(length / 4)` when it throws or returns something not a count. */
export const safeCount = (counter: TokenCounter, text: string): number => {
  let n: unknown
  try {
    n = counter.count(text)
  } catch {
    return Math.ceil(text.length / 4)
  }
  return typeof n === "number" && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? Math.ceil(n) : Math.ceil(text.length / 4)
}

/** Whether every character of `text` is printable ASCII (no newline, no control character). */
export const isOneAsciiLine = (text: string): boolean => /^[\u0020-\u007e]*$/.test(text)
