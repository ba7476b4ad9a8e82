/**
 * The data the overflow detector works on: its immutable state, what it observes for each response, why it
 * is reset, and what one observation returns.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { RequestSample } from "./LooksTruncated.ts"
import { type OverflowVerdict, RequestKind } from "./OverflowVerdict.ts"

/**
 * The overflow detector's state. Immutable: `OverflowDetector.observe` returns a new one.
 *
 * Two kinds of knowledge live here. About the CONVERSATION since its last edit: `lastGood`, the last request
 * that did not look truncated (the baseline of the growth signal); `ceiling`, the request with the highest
 * report; `overflowEstimate`, the smallest request found truncated. Forgotten on every edit (compaction,
 * clearing, in-place reduction, a governor epoch) and on a model change. About the MODEL and its server: the
 * template overhead learned from good requests (exact counters only), the largest prompt the server processed
 * and the smallest request that did not fit; forgotten on a model change only.
 *
 * Plain data (a Schema struct), so it can be stored with a session and decoded back.
 *
 * @example
 * ```ts
 * import { OverflowDetector, OverflowDetectorState } from "@ctxkit/overflow"
 * import * as Schema from "effect/Schema"
 *
 * const stored = JSON.stringify(OverflowDetector.initial())
 * const state = Schema.decodeUnknownSync(OverflowDetectorState)(JSON.parse(stored))
 * state.lastGood // null
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowDetectorState = Schema.Struct({
  /** The id of the counter the estimates come from (`approximate-chars-v1`, `o200k_base`, …). */
  counter: Schema.String,
  /** The estimates are exact counts for the served model: the exact-counter rules apply. */
  exact: Schema.Boolean,
  /** The last request of this conversation that did not look truncated: the growth baseline. */
  lastGood: Schema.NullOr(RequestSample),
  /**
   * The token floor (`tokenFloor` of its content) of `lastGood`, when the harness gave one: the baseline of the
   * floor-growth rule. Absent or null otherwise.
   */
  lastGoodFloor: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  /** The request of this conversation with the highest report, whatever its verdict. */
  ceiling: Schema.NullOr(RequestSample),
  /** The estimate of the smallest request of this conversation found truncated. */
  overflowEstimate: Schema.NullOr(Schema.Number),
  /**
   * Exact counters only: the lowest `reported − exact` seen on a good request of this model (negative when
   * the chat template drops content, such as earlier reasoning).
   */
  overhead: Schema.NullOr(Schema.Number),
  /** The largest prompt (tokens) the server reported processing for this model; 0 when none yet. */
  largestPrompt: Schema.Number,
  /** The approximate size (server tokens) of the smallest request of this model that looked truncated. */
  smallestOverflow: Schema.NullOr(Schema.Number)
})

/**
 * @category models
 * @since 0.1.0
 */
export type OverflowDetectorState = typeof OverflowDetectorState.Type

/**
 * How the harness edited the prompt since the previous request: `compaction` (a summary replaced part of the
 * history), `clearing` (old tool results replaced by a note), `reduction` (content shortened in place) or
 * `epoch` (a governor's elisions applied at an epoch boundary). An honest prompt only grows unless it was
 * edited, so the detector forgets what it knew about the conversation before judging an edited request.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * const detector = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 9_000, estimate: 8_000 }).state
 * OverflowDetector.observe(detector, { tokens: 2_100, estimate: 8_300, edited: "clearing" }).verdict.truncated // false
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptEdit = Schema.Literals(["compaction", "clearing", "reduction", "epoch"])

/**
 * @category models
 * @since 0.1.0
 */
export type PromptEdit = typeof PromptEdit.Type

/**
 * What the detector observes for one response: the prompt size the server reported (input + cache read +
 * cache write, already normalized; 0 when the provider reported none), the local estimate of the same request
 * (by the detector's counter), what the request was for (`turn` by default, or `compaction`), whether the
 * harness edited the prompt since the previous request (`edited`), and the server's context window in its own
 * tokens when the harness knows it (`window`: configured, or discovered from an over-window error), and the token floor of the
 * request's content (`floor`: see `tokenFloor` in `@ctxkit/budget`) when the harness computes it.
 *
 * @example
 * ```ts
 * import type { ObservedRequest } from "@ctxkit/overflow"
 *
 * const observed: ObservedRequest = { tokens: 3_725, estimate: 6_204 }
 * const withFloor: ObservedRequest = { tokens: 3_725, estimate: 6_204, floor: 4_870 }
 * const compaction: ObservedRequest = { tokens: 3_650, estimate: 3_680, kind: "compaction" }
 * const afterClearing: ObservedRequest = { tokens: 2_100, estimate: 2_000, edited: "clearing", window: 4_096 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ObservedRequest = Schema.Struct({
  /** Prompt tokens reported by the server (input + cache read + cache write); 0 when not reported. */
  tokens: Schema.Number,
  /** The local estimate of the same request, by the detector's counter. */
  estimate: Schema.Number,
  /** `turn` (default) or `compaction`. */
  kind: Schema.optionalKey(RequestKind),
  /** The harness edited the prompt since the previous request (it may have shrunk honestly). */
  edited: Schema.optionalKey(PromptEdit),
  /** The server's context window in its own tokens, when known. */
  window: Schema.optionalKey(Schema.Number),
  /**
   * A lower bound on the server's count of this request: the sum of `tokenFloor` (from `@ctxkit/budget`) over
   * the pieces of text the server reads verbatim (message texts, tool results), each counted once. Turns on
   * the `floor` and `floor-growth` rules, whatever the counter.
   */
  floor: Schema.optionalKey(Schema.Number)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ObservedRequest = typeof ObservedRequest.Type

/**
 * Why the detector is reset. An edit (`compaction`, `clearing`, `reduction`, `epoch`: see {@link PromptEdit})
 * changes the conversation, so what was known about it is forgotten; what was learned about the model and its
 * server stays. `model-change` forgets everything.
 *
 * @example
 * ```ts
 * import type { ResetCause } from "@ctxkit/overflow/DetectorState"
 *
 * const cause: ResetCause = "compaction"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResetCause = Schema.Literals(["compaction", "clearing", "reduction", "epoch", "model-change"])

/**
 * @category models
 * @since 0.1.0
 */
export type ResetCause = typeof ResetCause.Type

/**
 * What the detector needs to know of the counter its estimates come from: its `id` (stored in the state, so a
 * state is never fed estimates of another counter) and whether it is `approximate`. Every `TokenCounter` of
 * `@ctxkit/budget` is one; a host that only knows which tokenizer it used can pass these two fields alone.
 *
 * @example
 * ```ts
 * import { o200kCounter } from "@ctxkit/budget/o200k"
 * import type { DetectorCounter } from "@ctxkit/overflow/DetectorState"
 *
 * const served: DetectorCounter = { id: "qwen3", approximate: false }
 * const fromBudget: DetectorCounter = o200kCounter
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface DetectorCounter {
  /** The counter's id (`approximate-chars-v1`, `o200k_base`, …), as `TokenCounter.id`. */
  readonly id: string
  /** Whether its counts are estimates rather than the served model's own tokenization. */
  readonly approximate: boolean
}

/**
 * Options of `OverflowDetector.initial`.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import type { DetectorOptions } from "@ctxkit/overflow/DetectorState"
 *
 * const options: DetectorOptions = { counter: approximateCounter }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface DetectorOptions {
  /**
   * The counter the estimates come from (only its `id` and `approximate` are read). Default
   * `approximateCounter`. A counter that is not approximate (an exact counter for the served model) turns on the
   * exact-counter rules.
   */
  readonly counter?: DetectorCounter | undefined
}

/**
 * What `OverflowDetector.observe` returns: the next state and the verdict on the response.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 * import type { Observation } from "@ctxkit/overflow/DetectorState"
 *
 * const observation: Observation = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 900, estimate: 800 })
 * observation.state.lastGood // { tokens: 900, estimate: 800 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Observation {
  /** The detector's next state. */
  readonly state: OverflowDetectorState
  /** The verdict on the observed response. */
  readonly verdict: OverflowVerdict
}
