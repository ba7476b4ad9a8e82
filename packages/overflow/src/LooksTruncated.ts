/**
 * The silent-truncation signal: how much the prompt size a server reports grew between two requests of the
 * same conversation, compared with how much the local estimate of those requests grew.
 *
 * A server may answer HTTP 200 with a normal stop reason after dropping the oldest messages of a
 * conversation that does not fit its window (Ollama does, as measured in the local-harness overflow guide this package
 * comes from). The reported prompt size is then the only trace left: while the estimate keeps growing turn after
 * turn, the reported size stops growing (a plateau) or falls to almost nothing (a collapse).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Below this fraction of the estimated growth, the reported growth counts as "did not grow": the server
 * dropped part of the prompt.
 *
 * Measured: without truncation the reported prompt grew about 1.1× the estimated growth, and the lowest
 * untruncated ratio seen was 0.22 (text carrying no information, such as runs of spaces); with truncation it
 * fell to 0.03–0.04×. 0.1 sits under what was seen when the window overflowed and leaves a margin of a little
 * more than twice below the lowest honest case. One model and one server were measured: tune it with data.
 *
 * @example
 * ```ts
 * import { OVERFLOW_GROWTH_RATIO } from "@ctxkit/overflow"
 *
 * OVERFLOW_GROWTH_RATIO // 0.1
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_GROWTH_RATIO = 0.1

/**
 * The smallest estimated growth (tokens) for which the growth signal is trusted; under it the noise of the
 * estimate dominates and nothing is decided.
 *
 * @example
 * ```ts
 * import { OVERFLOW_MIN_GROWTH } from "@ctxkit/overflow"
 *
 * OVERFLOW_MIN_GROWTH // 200
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_MIN_GROWTH = 200

/**
 * The smallest estimated growth (tokens) for a compaction request. That request is the history plus an
 * instruction to summarize it, a few hundred tokens at most, and it is where truncation hurts most: a
 * summary of half a conversation would replace all of it.
 *
 * @example
 * ```ts
 * import { looksTruncated, OVERFLOW_MIN_GROWTH_COMPACT } from "@ctxkit/overflow"
 *
 * const lastGood = { tokens: 3_900, estimate: 3_600 }
 * looksTruncated(lastGood, { tokens: 3_650, estimate: 3_680 }, OVERFLOW_MIN_GROWTH_COMPACT) // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_MIN_GROWTH_COMPACT = 50

/**
 * The smallest estimated size (tokens) at which the ratio test is applied to a first request, one with no
 * earlier request to compare with.
 *
 * @example
 * ```ts
 * import { OVERFLOW_MIN_FIRST } from "@ctxkit/overflow"
 *
 * OVERFLOW_MIN_FIRST // 500
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const OVERFLOW_MIN_FIRST = 500

/**
 * One request as the truncation signal sees it: `tokens`, the prompt size the server reported (input + cache
 * read + cache write: one prompt, however the provider splits it; 0 when it reported nothing), and
 * `estimate`, the local count of the same request.
 *
 * @example
 * ```ts
 * import { RequestSample } from "@ctxkit/overflow"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(RequestSample)({ tokens: 3_725, estimate: 6_204 }) // { tokens: 3725, estimate: 6204 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestSample = Schema.Struct({
  /** Prompt tokens reported by the server (input + cache read + cache write); 0 when not reported. */
  tokens: Schema.Number,
  /** The local estimate (or exact count) of the same request. */
  estimate: Schema.Number
})

/**
 * @category models
 * @since 0.1.0
 */
export type RequestSample = typeof RequestSample.Type

/**
 * Did the server drop part of the request `cur`? `prev` is the last request of the same conversation that
 * did NOT look truncated (none after a compaction, a clearing or a model change); `minGrowth` is
 * {@link OVERFLOW_MIN_GROWTH}, or {@link OVERFLOW_MIN_GROWTH_COMPACT} for a compaction request.
 *
 * - No usage reported (`cur.tokens <= 0`): `false`, nothing can be decided.
 * - No `prev`: `true` when the request is estimated at {@link OVERFLOW_MIN_FIRST} tokens or more and the server
 *   reports under {@link OVERFLOW_GROWTH_RATIO} of the estimate (a collapse).
 * - Otherwise: `true` when the estimate grew by `minGrowth` tokens or more since `prev` and the reported size
 *   grew by less than {@link OVERFLOW_GROWTH_RATIO} of that.
 *
 * Blind spots, by design:
 * - growth under `minGrowth` is not judged: a truncation between two close requests goes unseen;
 * - a first request is judged only by the ratio, so a plateau there (a long system prompt kept whole, recent
 *   messages kept, the ratio still in the untruncated range) goes unseen;
 * - a drop smaller than what the request added keeps the reported size growing, and goes unseen until more
 *   falls out;
 * - context shift DURING generation (the prompt fits but prompt plus reply do not) is reported with the whole
 *   prompt: only reserving room for the reply prevents it.
 *
 * @example
 * ```ts
 * import { looksTruncated } from "@ctxkit/overflow"
 *
 * const lastGood = { tokens: 3_700, estimate: 3_750 }
 * looksTruncated(lastGood, { tokens: 4_300, estimate: 4_300 }) // false: grew with the estimate
 * looksTruncated(lastGood, { tokens: 3_725, estimate: 6_204 }) // true: a plateau
 * looksTruncated(null, { tokens: 63, estimate: 3_975 }) // true: a collapse on a first request
 * looksTruncated(lastGood, { tokens: 3_650, estimate: 3_900 }) // false: grew by under 200, undecided
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const looksTruncated = (
  prev: RequestSample | null | undefined,
  cur: RequestSample,
  minGrowth: number = OVERFLOW_MIN_GROWTH
): boolean => {
  if (!(cur.tokens > 0)) return false
  if (prev === null || prev === undefined) {
    return cur.estimate >= OVERFLOW_MIN_FIRST && cur.tokens < OVERFLOW_GROWTH_RATIO * cur.estimate
  }
  const grown = cur.estimate - prev.estimate
  return grown >= minGrowth && cur.tokens - prev.tokens < OVERFLOW_GROWTH_RATIO * grown
}
