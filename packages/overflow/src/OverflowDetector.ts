/**
 * The overflow detector: observe every response, and it tells whether the server dropped part of the
 * prompt, whether the usage may calibrate the estimator, which rule decided, and — when it finds a
 * truncation — the window the server appears to have.
 *
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * let detector = OverflowDetector.initial()
 * // after every response:
 * const { state, verdict } = OverflowDetector.observe(detector, { tokens: 3_725, estimate: 6_204 })
 * detector = state
 * // after compaction or clearing, and on a model change:
 * detector = OverflowDetector.reset(detector, "compaction")
 * ```
 *
 * @since 0.1.0
 */
import { approximateCounter } from "@ctxkit/budget"
import { dual } from "effect/Function"
import type {
  DetectorOptions,
  Observation,
  ObservedRequest,
  OverflowDetectorState,
  ResetCause
} from "./DetectorState.ts"
import { judge, truncationMode } from "./internal/rules.ts"
import { OVERFLOW_MIN_GROWTH, OVERFLOW_MIN_GROWTH_COMPACT, type RequestSample } from "./LooksTruncated.ts"
import type { ApparentWindow, OverflowVerdict } from "./OverflowVerdict.ts"

/**
 * A fresh detector: no baseline, nothing learned. The counter says where estimates come from; an exact
 * counter for the served model (not `approximate`) turns on the exact-counter rules.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * const detector = OverflowDetector.initial()
 * detector.exact // false
 * OverflowDetector.initial({ counter: { id: "qwen3", approximate: false } }).exact // true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const initial = (options: DetectorOptions = {}): OverflowDetectorState => {
  const counter = options.counter ?? approximateCounter
  return {
    counter: counter.id,
    exact: counter.approximate === false,
    lastGood: null,
    ceiling: null,
    overflowEstimate: null,
    overhead: null,
    largestPrompt: 0,
    smallestOverflow: null
  }
}

const usable = (n: number): boolean => Number.isFinite(n) && n > 0

/** The state without what it knew about the conversation (after an edit). */
const forgetConversation = (state: OverflowDetectorState): OverflowDetectorState => {
  if (
    state.lastGood === null && state.ceiling === null && state.overflowEstimate === null &&
    state.lastGoodFloor === undefined
  ) return state
  const { lastGoodFloor: _, ...rest } = state
  return { ...rest, lastGood: null, ceiling: null, overflowEstimate: null }
}

/** The state with `sample` as the last good request, and its floor when one was given. */
const withLastGood = (
  state: OverflowDetectorState,
  sample: RequestSample,
  floor: number | undefined
): OverflowDetectorState => {
  const { lastGoodFloor: _, ...rest } = state
  return floor !== undefined && Number.isFinite(floor) && floor >= 0
    ? { ...rest, lastGood: sample, lastGoodFloor: floor }
    : { ...rest, lastGood: sample }
}

const higher = (ceiling: RequestSample | null, sample: RequestSample): RequestSample =>
  ceiling === null || sample.tokens > ceiling.tokens ? sample : ceiling

const observeImpl = (before: OverflowDetectorState, request: ObservedRequest): Observation => {
  const kind = request.kind ?? "turn"
  const minGrowth = kind === "compaction" ? OVERFLOW_MIN_GROWTH_COMPACT : OVERFLOW_MIN_GROWTH
  const sample: RequestSample = { tokens: request.tokens, estimate: request.estimate }
  const usableWindow = request.window !== undefined && usable(request.window)
  // Undecidable: no usage, or nothing to compare it with. Nothing is learned either.
  if (!usable(sample.tokens) || !usable(sample.estimate)) {
    const rule = usable(sample.tokens) ? "no-estimate" : "no-usage"
    const verdict: OverflowVerdict = {
      truncated: false,
      calibrate: false,
      rule,
      kind,
      sample,
      baseline: before.lastGood,
      minGrowth,
      evidence: {}
    }
    // An edit is still an edit: what was known about the conversation no longer holds.
    return { state: request.edited === undefined ? before : forgetConversation(before), verdict }
  }
  const state = request.edited === undefined ? before : forgetConversation(before)
  const usableFloor = request.floor !== undefined && Number.isFinite(request.floor) && request.floor >= 0
  const judged = {
    tokens: sample.tokens,
    estimate: sample.estimate,
    ...(usableWindow ? { window: request.window } : {}),
    ...(usableFloor ? { floor: request.floor } : {})
  }
  const decision = judge(state, judged, minGrowth)
  const { rule, truncated, evidence } = decision
  const baseline = state.lastGood
  const common = { kind, sample, baseline, minGrowth, evidence }
  if (!truncated) {
    // An estimate that went down is an edit nobody declared: the conversation is judged afresh from here.
    const conversation = rule === "shrunk" ? forgetConversation(state) : state
    if (decision.suspect === true) {
      // The tutorial's signal fired and no safe rule confirmed it: not flagged, and not trusted either.
      const next: OverflowDetectorState = kind === "turn"
        ? { ...conversation, ceiling: higher(conversation.ceiling, sample) }
        : conversation
      return { state: next, verdict: { truncated: false, calibrate: false, rule, ...common, suspect: true } }
    }
    const overhead = sample.tokens - sample.estimate
    // A compaction request is a side request: the turns that follow are compared with the last turn.
    const based = kind === "turn"
      ? withLastGood(conversation, sample, usableFloor ? request.floor : undefined)
      : conversation
    const next: OverflowDetectorState = {
      ...based,
      ceiling: kind === "turn" ? higher(conversation.ceiling, sample) : conversation.ceiling,
      overhead: state.exact ? Math.min(state.overhead ?? overhead, overhead) : state.overhead,
      largestPrompt: Math.max(state.largestPrompt, sample.tokens)
    }
    return { state: next, verdict: { truncated: false, calibrate: true, rule, ...common } }
  }
  // Truncated: the sample never becomes the baseline and never calibrates. What it says about the window
  // is kept: a plateau means the server processed that many tokens; the request itself did not fit.
  const mode = truncationMode(state, sample)
  const largestPrompt = mode === "plateau" ? Math.max(state.largestPrompt, sample.tokens) : state.largestPrompt
  // The request's size in the server's tokens: the exact count, or the estimate scaled like the baseline's.
  const size = state.exact
    ? sample.estimate
    : baseline !== null && usable(baseline.tokens) && usable(baseline.estimate)
    ? sample.estimate * (baseline.tokens / baseline.estimate)
    : undefined
  const smallestOverflow = size === undefined
    ? state.smallestOverflow
    : Math.round(Math.min(state.smallestOverflow ?? size, size))
  // A turn that did not fit bounds every larger turn of the conversation; a compaction request (the history
  // plus an instruction) bounds nothing else.
  const next: OverflowDetectorState = {
    ...state,
    ...(kind === "turn"
      ? {
        ceiling: higher(state.ceiling, sample),
        overflowEstimate: Math.min(state.overflowEstimate ?? sample.estimate, sample.estimate)
      }
      : {}),
    largestPrompt,
    smallestOverflow
  }
  const verdict: OverflowVerdict = { truncated: true, calibrate: false, rule, ...common, mode }
  if (largestPrompt <= 0) return { state: next, verdict }
  const apparentWindow: ApparentWindow = smallestOverflow !== null && smallestOverflow > largestPrompt
    ? { tokens: largestPrompt, overflowAt: smallestOverflow }
    : { tokens: largestPrompt }
  return { state: next, verdict: { ...verdict, apparentWindow } }
}

/**
 * Observes one response: judges its request, and returns the verdict and the next state. Call it for EVERY
 * response, with the prompt size the server reported (input + cache read + cache write) and the estimate of
 * the same request; pass `kind: "compaction"` for a compaction request (judged with
 * `OVERFLOW_MIN_GROWTH_COMPACT` by the same rules, never the baseline or ceiling of later turns).
 *
 * Pass `edited` when the harness changed the prompt since the previous request (compaction, clearing, an
 * in-place reduction, a governor epoch): an honest prompt only grows unless it was edited, so the detector
 * forgets the conversation (not the server) before judging. Pass `window` when the server's window is known.
 *
 * The rules, in order (the verdict's `rule` names the one that decided, `evidence` the numbers):
 * 1. `no-usage`, `no-estimate`: nothing reported, or nothing estimated: undecided, no calibration.
 * 2. `beyond-overflow`: at least as large as a request of this conversation that did not fit.
 * 3. `shrunk`: the estimate went down with no edit declared: undecided; the conversation is judged afresh.
 * 4. `not-grown`: larger than the request with the highest report, yet reported at or under it. Every appended
 *    message adds template tokens, so an honest report only grows; at any growth, with either counter.
 * 5. `collapse`: under the minimum growth, the report fell under `OVERFLOW_GROWTH_RATIO` of the last good one.
 * 5b. With `floor` given (`tokenFloor` of the request's texts, whatever the counter): `floor`, the report is
 *    under the floor (checked right after `beyond-overflow`: templates add tokens, an honest server drops
 *    nothing); `floor-growth`, the report grew since the last good request by less than the floor of the
 *    appended text less `FLOOR_GROWTH_SLACK` (16). A floor that went down is an undeclared edit (`shrunk`).
 * 6. Exact counter (not `approximate`): EVERY request is judged directly. `exact-growth`: truncated when the
 *    report falls short of the count plus the overhead of the last good request (`reported − count`: the
 *    chat template, tools) by more than max(3 tokens, 2% of the counted growth); `exact-first-request`, with
 *    no baseline: short of the count (plus the overhead learned, when negative) by more than max(3, 2%).
 * 7. Approximate counter: `known-window` (the last good report plus the least the growth can cost exceeds
 *    the known window, and the report is at or under it); `first-request` and `growth`, the local-harness
 *    overflow guide's signal (`looksTruncated`), flagged only under 0.025 of the estimate (of its growth): runs
 *    of spaces cost 1/32 of a characters / 4 estimate in o200k, so between 0.025 and `OVERFLOW_GROWTH_RATIO`
 *    honest text is possible and the request is a `suspect` (not flagged, not trusted); `first-request-small`
 *    and `below-min-growth` are undecided.
 *
 * A flagged or suspect request never calibrates and never becomes the baseline. No usage never decides, and
 * an honest request (the server kept every token of a prompt that only grew, or was declared edited) is
 * never flagged, whatever its content (law L14).
 *
 * Blind spots, with the approximate counter: without `floor`, a truncation whose report still grows past every earlier report
 * by at least 0.025 of the estimated growth (a plateau that dropped less than the request added), and a
 * first request over the window (a long system prompt kept whole): both look like honest low-information
 * text; the next request that reports no more than the highest report is caught, and every larger one after
 * it. With either counter: context shift during generation (the server reports the whole prompt: reserving
 * room for the reply prevents it, nothing detects it); a template that drops earlier content (reasoning)
 * shrinks an honest prompt: count what the template keeps, or declare it as an edit.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * let detector = OverflowDetector.initial()
 * detector = OverflowDetector.observe(detector, { tokens: 3_700, estimate: 3_750 }).state
 * const { verdict } = OverflowDetector.observe(detector, { tokens: 3_725, estimate: 6_204 })
 * verdict.truncated // true
 * verdict.rule // "growth"
 * verdict.calibrate // false
 * verdict.apparentWindow // { tokens: 3725, overflowAt: 6121 }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const observe: {
  (
    request: ObservedRequest
  ): (state: OverflowDetectorState) => { readonly state: OverflowDetectorState; readonly verdict: OverflowVerdict }
  (
    state: OverflowDetectorState,
    request: ObservedRequest
  ): { readonly state: OverflowDetectorState; readonly verdict: OverflowVerdict }
} = dual(2, observeImpl)

/**
 * Resets the detector. After a compaction or a clearing the conversation is not the one the baseline was
 * taken from, so the baseline is forgotten (the next request is judged as a first request); what was learned
 * about the model and its server stays. After a model change everything is forgotten; if the new model needs
 * another counter, start over with `initial({ counter })`.
 *
 * @example
 * ```ts
 * import { OverflowDetector } from "@ctxkit/overflow"
 *
 * const detector = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 900, estimate: 800 }).state
 * OverflowDetector.reset(detector, "compaction").lastGood // null
 * OverflowDetector.reset(detector, "model-change").largestPrompt // 0
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const reset: {
  (cause: ResetCause): (state: OverflowDetectorState) => OverflowDetectorState
  (state: OverflowDetectorState, cause: ResetCause): OverflowDetectorState
} = dual(2, (state: OverflowDetectorState, cause: ResetCause): OverflowDetectorState =>
  cause === "model-change"
    ? {
      counter: state.counter,
      exact: state.exact,
      lastGood: null,
      ceiling: null,
      overflowEstimate: null,
      overhead: null,
      largestPrompt: 0,
      smallestOverflow: null
    }
    : forgetConversation(state))
