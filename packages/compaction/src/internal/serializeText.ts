/** Text helpers of the summarizer transcript and the checkpoint message: cuts that never split a surrogate pair. */

/** The marker an item of the summarizer transcript ends with when it was clipped. */
export const ITEM_TRUNCATION_MARKER = "… [truncated]"

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** The first `end` UTF-16 code units of `text`, one fewer when the cut would fall inside a surrogate pair. */
export const safeHead = (text: string, end: number): string => {
  if (end >= text.length) return text
  let e = Math.max(0, Math.floor(end))
  if (e > 0 && isHigh(text.charCodeAt(e - 1)) && isLow(text.charCodeAt(e))) e--
  return text.slice(0, e)
}

/** `text` when it has at most `max` code units, else its head of `max` (surrogate-safe) and the marker. */
export const clipItem = (text: string, max: number): string =>
  text.length > max ? safeHead(text, max) + ITEM_TRUNCATION_MARKER : text

/** A character limit from an option: a number ≥ 0 (fractions floored, `Infinity` allowed), else `fallback`. */
export const charLimit = (value: number | undefined, fallback: number): number =>
  typeof value === "number" && value >= 0 ? Math.floor(value) : fallback
