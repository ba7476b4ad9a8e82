/**
 * The margins of the exact-counter rules. When the estimates come from an exact counter for the served model
 * (its own vocabulary, not characters divided by four), the server's reported prompt size should never fall
 * short of the count: the chat template only ADDS tokens (role markers, separators). A shortfall beyond a
 * margin is lost text, which judges requests the estimate-based signal cannot: a first request, or growth
 * under `OVERFLOW_MIN_GROWTH`.
 *
 * Why these margins. An exact counter and the server disagree by a few tokens a message (merges across the
 * template's boundaries, arguments re-serialized by the template); a template that drops content (the
 * reasoning of earlier turns, in several open models) makes the server report LESS than the count, and that
 * difference is learned from good requests. 10 % with a floor of 50 tokens stays well above that noise, and
 * well below what a truncation loses (the tutorial's plateau lost 40 % of the request; a collapse loses 99 %).
 *
 * @since 0.1.0
 */

/**
 * With an exact counter, a request looks truncated when the reported size falls short of the expected one by
 * more than this fraction: of the exact count for a first request, of the exact growth for a later one.
 *
 * @example
 * ```ts
 * import { OVERFLOW_EXACT_SHORTFALL } from "@ctxkit/overflow"
 *
 * OVERFLOW_EXACT_SHORTFALL // 0.1
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_EXACT_SHORTFALL = 0.1

/**
 * With an exact counter, the smallest shortfall (tokens) that counts as truncation, whatever the size of the
 * request: under it, counting noise could decide.
 *
 * @example
 * ```ts
 * import { OVERFLOW_EXACT_MIN_SHORTFALL } from "@ctxkit/overflow"
 *
 * OVERFLOW_EXACT_MIN_SHORTFALL // 50
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_EXACT_MIN_SHORTFALL = 50
