/**
 * What the overflow detector concluded about one response, as data: whether the request looks truncated,
 * whether its usage may calibrate the estimator, and which rule decided.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { RequestSample } from "./LooksTruncated.ts"

/**
 * The rule that decided a verdict.
 *
 * - `no-usage`: the server reported no prompt size (0, negative or not a number); nothing can be decided.
 * - `no-estimate`: the request has no usable estimate (0, negative or not a number); nothing can be decided.
 * - `first-request-small`: no earlier request to compare with and the request is estimated under
 *   `OVERFLOW_MIN_FIRST` tokens; undecided.
 * - `first-request`: no earlier request; judged by the ratio of reported to estimated size.
 * - `exact-first-request`: no earlier request, but the estimate comes from an exact counter for the served
 *   model; judged by how far the reported size falls short of the exact count.
 * - `growth`: judged by the growth since the last good request (the tutorial's signal).
 * - `below-min-growth`: the estimate grew by less than the minimum growth since the last good request; undecided.
 * - `shrunk`: the estimate went DOWN since the last good request: the conversation was edited without a reset
 *   of the detector; undecided (call `OverflowDetector.reset` after compaction and clearing).
 * - `collapse`: the estimate did not shrink, yet the reported size fell under `OVERFLOW_GROWTH_RATIO` of the
 *   last good one (a collapse that the minimum growth would otherwise hide).
 * - `exact-growth`: with an exact counter, judged by how far the reported growth falls short of the exact growth.
 *
 * @example
 * ```ts
 * import type { OverflowRule } from "@ctxkit/overflow"
 *
 * const rule: OverflowRule = "growth"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowRule = Schema.Literals([
  "no-usage",
  "no-estimate",
  "first-request-small",
  "first-request",
  "exact-first-request",
  "growth",
  "below-min-growth",
  "shrunk",
  "collapse",
  "exact-growth"
])

/**
 * @category models
 * @since 0.1.0
 */
export type OverflowRule = typeof OverflowRule.Type

/**
 * What a request was for: a conversation `turn`, or a `compaction` request (the history plus an instruction to
 * summarize it), judged with `OVERFLOW_MIN_GROWTH_COMPACT` and never used as the baseline of later turns.
 *
 * @example
 * ```ts
 * import type { RequestKind } from "@ctxkit/overflow"
 *
 * const kind: RequestKind = "compaction"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestKind = Schema.Literals(["turn", "compaction"])

/**
 * @category models
 * @since 0.1.0
 */
export type RequestKind = typeof RequestKind.Type

/**
 * How a truncated request looks: `plateau` when the server still reports about a window's worth of tokens
 * (it kept the system prompt and the most recent messages), `collapse` when it reports almost nothing (63
 * tokens in the tutorial's measurements). A label for messages and reports; no decision depends on it.
 *
 * @example
 * ```ts
 * import type { TruncationMode } from "@ctxkit/overflow"
 *
 * const mode: TruncationMode = "plateau"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const TruncationMode = Schema.Literals(["plateau", "collapse"])

/**
 * @category models
 * @since 0.1.0
 */
export type TruncationMode = typeof TruncationMode.Type

/**
 * The context window the server appears to have, from what it reported since the last model change.
 * `tokens` is the largest prompt it reported processing (a lower bound: the window holds at least that much);
 * `overflowAt`, when known, is the approximate size, in the server's tokens, of the smallest request that
 * did not fit (an upper bound, approximate because it is scaled from the estimate). The real window lies
 * between the two.
 *
 * @example
 * ```ts
 * import type { ApparentWindow } from "@ctxkit/overflow"
 *
 * const window: ApparentWindow = { tokens: 3_715, overflowAt: 4_288 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ApparentWindow = Schema.Struct({
  /** The largest prompt the server reported processing: the window holds at least this many tokens. */
  tokens: Schema.Number,
  /** About this many tokens (in the server's count) did not fit. */
  overflowAt: Schema.optionalKey(Schema.Number)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ApparentWindow = typeof ApparentWindow.Type

/**
 * The detector's conclusion about one response.
 *
 * - `truncated`: the request looks truncated; the answer was built without part of the prompt.
 * - `calibrate`: the usage may calibrate the estimator (usage reported, an estimate, not truncated).
 * - `rule`: which rule decided (see {@link OverflowRule}).
 * - `sample`: the request as observed; `baseline`: the last good request it was compared with, if any.
 * - `minGrowth`: the minimum estimated growth that applied (200 for a turn, 50 for a compaction request).
 * - `mode` and `apparentWindow`, on a truncated request: how the truncation looks and the window the server
 *   appears to have.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * const { verdict } = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 63, estimate: 3_975 })
 * verdict.truncated // true
 * verdict.rule // "first-request"
 * verdict.mode // "collapse"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowVerdict = Schema.Struct({
  /** The request looks truncated: the server dropped part of the prompt. */
  truncated: Schema.Boolean,
  /** The usage may calibrate the estimator. */
  calibrate: Schema.Boolean,
  /** The rule that decided. */
  rule: OverflowRule,
  /** What the request was for. */
  kind: RequestKind,
  /** The request as observed. */
  sample: RequestSample,
  /** The last good request of the same conversation it was compared with. */
  baseline: Schema.NullOr(RequestSample),
  /** The minimum estimated growth that applied. */
  minGrowth: Schema.Number,
  /** On a truncated request: plateau or collapse. */
  mode: Schema.optionalKey(TruncationMode),
  /** On a truncated request: the window the server appears to have, when anything is known about it. */
  apparentWindow: Schema.optionalKey(ApparentWindow)
})

/**
 * @category models
 * @since 0.1.0
 */
export type OverflowVerdict = typeof OverflowVerdict.Type
