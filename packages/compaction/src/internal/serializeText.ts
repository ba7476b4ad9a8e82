/** Text helpers of the summarizer transcript: items clipped with a marker, character limits from options. */
import { safeHead } from "@ctxkit/core/TextCut"

/** The marker an item of the summarizer transcript ends with when it was clipped. */
export const ITEM_TRUNCATION_MARKER = "… [truncated]"

/** `text` when it has at most `max` code units, else its head of `max` (surrogate-safe) and the marker. */
export const clipItem = (text: string, max: number): string =>
  text.length > max ? safeHead(text, max) + ITEM_TRUNCATION_MARKER : text

/** A character limit from an option: a number ≥ 0 (fractions floored, `Infinity` allowed), else `fallback`. */
export const charLimit = (value: number | undefined, fallback: number): number =>
  typeof value === "number" && value >= 0 ? Math.floor(value) : fallback
