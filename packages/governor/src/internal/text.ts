/**
 * Small text helpers: ASCII-only JSON quoting, integer reading, safe token counting.
 *
 * @internal
 */
import { type Counter, estimateTokens } from "@ctxkit/budget"

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

/**
 * Counts with `counter`, guarded by `@ctxkit/budget` (`estimateTokens`): a counter that throws or returns
 * something not a count gives the approximate count.
 */
export const safeCount = (counter: Counter, text: string): number => estimateTokens(text, counter).tokens

/** Whether every character of `text` is printable ASCII (no newline, no control character). */
export const isOneAsciiLine = (text: string): boolean => /^[\u0020-\u007e]*$/.test(text)
