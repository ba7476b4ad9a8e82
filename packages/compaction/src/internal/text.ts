/**
 * Cuts that never split a surrogate pair: the one place in this package that knows UTF-16 pairs. Every head or
 * tail cut of a text (tool-result caps, summarizer items, budget clips, plugin texts) goes through these.
 *
 * @internal
 */

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** Whether cutting `text` at `index` would split a surrogate pair (a lone surrogate is not a pair). */
export const splitsPair = (text: string, index: number): boolean =>
  index > 0 && index < text.length && isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index))

/** The end of a head cut at `index`: moved back by one when it would split a surrogate pair. */
export const pairSafeEnd = (text: string, index: number): number => splitsPair(text, index) ? index - 1 : index

/** The start of a tail cut at `index`: moved forward by one when it would split a surrogate pair. */
export const pairSafeStart = (text: string, index: number): number => splitsPair(text, index) ? index + 1 : index

/** The first `end` UTF-16 code units of `text` (`end` floored, at least 0), one fewer when that splits a pair. */
export const safeHead = (text: string, end: number): string =>
  end >= text.length ? text : text.slice(0, pairSafeEnd(text, Math.max(0, Math.floor(end))))
