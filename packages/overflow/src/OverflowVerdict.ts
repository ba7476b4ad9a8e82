/**
 * What the overflow detector concluded about one response, as data: whether the request looks truncated,
 * whether its usage may calibrate the estimator, and which rule decided.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { RequestSample } from "./LooksTruncated.ts"

/**
 * The rule that decided a verdict (see `OverflowDetector.observe` for what each one can and cannot see).
 *
 * - `no-usage`: the server reported no prompt size (0, negative or not a number); nothing can be decided.
 * - `no-estimate`: the request has no usable estimate (0, negative or not a number); nothing can be decided.
 * - `beyond-overflow`: the request is at least as large as one of the same conversation that did not fit, so
 *   it does not fit either.
 * - `shrunk`: the estimate went DOWN since the last good request: the conversation was edited and the harness
 *   did not say so (`edited` in the observed request); undecided, and the conversation is judged afresh.
 * - `not-grown`: the request is larger than the one with the highest report, yet reported at or under it; an
 *   honest prompt only grows (every appended message adds template tokens).
 * - `collapse`: the estimate grew by less than the minimum growth, yet the reported size fell under
 *   `OVERFLOW_GROWTH_RATIO` of the last good one.
 * - `floor`: the server reported fewer tokens than the token floor of the request's content (`floor` in the
 *   observed request): it did not read all of it, whatever the tokenizer and the content.
 * - `floor-growth`: the report grew since the last good request by less than the floor of what was appended,
 *   less a slack of 16 tokens.
 * - `exact-first-request`, `exact-growth`: with an exact counter for the served model, judged by how far the
 *   reported size falls short of the count plus the template overhead learned from good requests.
 * - `known-window`: with the approximate counter and a known window: the last good report plus the least the
 *   growth can cost already exceeds the window, and the report sits at or under it.
 * - `first-request-small`: no earlier request to compare with, estimated under `OVERFLOW_MIN_FIRST`; undecided.
 * - `first-request`: no earlier request; judged by the ratio of reported to estimated size.
 * - `growth`: judged by the growth since the last good request (the local-harness overflow guide's signal,
 *   `looksTruncated`).
 * - `below-min-growth`: the estimate grew by less than the minimum growth since the last good request; undecided.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 * import type { OverflowRule } from "@ctxkit/overflow/OverflowVerdict"
 *
 * let detector = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 3_900, estimate: 3_600 }).state
 * const rule: OverflowRule = OverflowDetector.observe(detector, { tokens: 3_880, estimate: 3_750 }).verdict.rule
 * rule // "not-grown"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowRule = Schema.Literals([
  "no-usage",
  "no-estimate",
  "beyond-overflow",
  "shrunk",
  "not-grown",
  "collapse",
  "floor",
  "floor-growth",
  "exact-first-request",
  "exact-growth",
  "known-window",
  "first-request-small",
  "first-request",
  "growth",
  "below-min-growth"
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
 * import type { RequestKind } from "@ctxkit/overflow/OverflowVerdict"
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
 * tokens in the local-harness overflow guide's measurements). A label for messages and reports; no decision
 * depends on it.
 *
 * @example
 * ```ts
 * import type { TruncationMode } from "@ctxkit/overflow/OverflowVerdict"
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
 * import type { ApparentWindow } from "@ctxkit/overflow/OverflowVerdict"
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
 * The numbers that decided a verdict, those the rule used: `expected`, the fewest tokens an intact prompt would
 * have been reported with (exact rules: the count plus the learned overhead; `not-grown`: one more than the
 * ceiling; `known-window`: the last good report plus the least the growth can cost), and `tolerance`, the
 * shortfall tolerated under it; `ratio`, the reported growth (or size, for a first request) over the
 * estimated one, and `threshold`, the ratio under which it flags; `ceiling`, the request with the highest
 * report of this conversation; `overflowEstimate`, the estimate of its smallest request that did not fit;
 * `window`, the known window; `floor`, the token floor of the request (`floor`) or of its growth
 * (`floor-growth`).
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * const detector = OverflowDetector.initial({ counter: { id: "o200k_base", approximate: false } })
 * const first = OverflowDetector.observe(detector, { tokens: 2_040, estimate: 2_000 }).state
 * OverflowDetector.observe(first, { tokens: 2_100, estimate: 2_300 }).verdict.evidence
 * // { expected: 2340, tolerance: 3 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowEvidence = Schema.Struct({
  /** The fewest tokens an intact prompt would have been reported with. */
  expected: Schema.optionalKey(Schema.Number),
  /** The shortfall under `expected` that is tolerated (exact rules). */
  tolerance: Schema.optionalKey(Schema.Number),
  /** Reported growth over estimated growth (reported over estimated size for a first request). */
  ratio: Schema.optionalKey(Schema.Number),
  /** The ratio under which the rule flags. */
  threshold: Schema.optionalKey(Schema.Number),
  /** The request of this conversation with the highest report. */
  ceiling: Schema.optionalKey(RequestSample),
  /** The estimate of the smallest request of this conversation that did not fit. */
  overflowEstimate: Schema.optionalKey(Schema.Number),
  /** The known context window. */
  window: Schema.optionalKey(Schema.Number),
  /** Floor rules: the token floor of the request (`floor`) or of what was appended since the baseline (`floor-growth`). */
  floor: Schema.optionalKey(Schema.Number)
})

/**
 * @category models
 * @since 0.1.0
 */
export type OverflowEvidence = typeof OverflowEvidence.Type

/**
 * The detector's conclusion about one response.
 *
 * - `truncated`: the request looks truncated; the answer was built without part of the prompt.
 * - `calibrate`: the usage may calibrate the estimator (usage reported, an estimate, not truncated).
 * - `rule`: which rule decided (see `OverflowRule` in `@ctxkit/overflow/OverflowVerdict`).
 * - `sample`: the request as observed; `baseline`: the last good request it was compared with, if any.
 * - `minGrowth`: the minimum estimated growth that applied (200 for a turn, 50 for a compaction request).
 * - `evidence`: the numbers that decided (see `OverflowEvidence`).
 * - `suspect`: the local-harness overflow guide's signal fired, but honest low-information text (runs of spaces)
 *   can do the same: not flagged, and not trusted either (no calibration, not the baseline).
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
  /** The numbers that decided. */
  evidence: OverflowEvidence,
  /** The local-harness overflow guide's signal fired on a request no safe rule confirmed: not flagged, not trusted. */
  suspect: Schema.optionalKey(Schema.Boolean),
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
