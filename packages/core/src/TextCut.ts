/**
 * Head and tail cuts of a text that never split a surrogate pair: the one place in ctxkit that knows UTF-16
 * pairs. Every cap, clip and preview of a message text cuts through these, so no cut leaves half of an emoji.
 *
 * @since 0.1.0
 */

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** Whether cutting `text` at `index` would split a surrogate pair (a lone surrogate is not a pair). */
const splitsPair = (text: string, index: number): boolean =>
  index > 0 && index < text.length && isHigh(text.charCodeAt(index - 1)) && isLow(text.charCodeAt(index))

/**
 * The end of a head cut at `index`: one earlier when cutting there would split a surrogate pair.
 *
 * @example
 * ```ts
 * import { pairSafeEnd } from "@ctxkit/core/TextCut"
 *
 * pairSafeEnd("ab😀", 3) // 2: index 3 is inside the emoji
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const pairSafeEnd = (text: string, index: number): number => splitsPair(text, index) ? index - 1 : index

/**
 * The start of a tail cut at `index`: one later when cutting there would split a surrogate pair.
 *
 * @example
 * ```ts
 * import { pairSafeStart } from "@ctxkit/core/TextCut"
 *
 * pairSafeStart("😀ab", 1) // 2: index 1 is inside the emoji
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const pairSafeStart = (text: string, index: number): number => splitsPair(text, index) ? index + 1 : index

/**
 * The first `end` UTF-16 code units of `text` (`end` floored, at least 0; `NaN` keeps nothing), one fewer when the
 * cut would split a surrogate pair.
 *
 * @example
 * ```ts
 * import { safeHead } from "@ctxkit/core/TextCut"
 *
 * safeHead("ok 😀 done", 4) // "ok " — the emoji is two code units and is not cut in half
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const safeHead = (text: string, end: number): string =>
  end >= text.length ? text : text.slice(0, pairSafeEnd(text, Math.max(0, Math.floor(end))))

/**
 * The last `count` UTF-16 code units of `text` (`count` floored, at least 0), one fewer when the cut would split a
 * surrogate pair.
 *
 * @example
 * ```ts
 * import { safeTail } from "@ctxkit/core/TextCut"
 *
 * safeTail("done 😀 ok", 4) // " ok" — the emoji is two code units and is not cut in half
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const safeTail = (text: string, count: number): string =>
  count >= text.length ? text : text.slice(pairSafeStart(text, text.length - Math.max(0, Math.floor(count))))
