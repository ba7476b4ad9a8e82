/**
 * The detector's rules as plain decisions over a state and a sample with usable numbers (both positive and
 * finite: the caller has already ruled out `no-usage` and `no-estimate`, and forgotten the conversation when
 * the harness declared an edit).
 *
 * Two facts make a rule safe, whatever the content of the prompt:
 * - an honest server reports at least one more token for every message appended (the chat template adds role
 *   markers), so in an append-only conversation the reported size only grows;
 * - a prompt that contains a prompt that did not fit does not fit either.
 * Everything else (the growth ratio, the first-request ratio) depends on how many tokens the new text costs,
 * which the characters / 4 estimate does not know: runs of spaces cost 1/32 of the estimate in o200k, CJK
 * 2.5×, base64 2.7×. Those rules flag only under {@link LOW_INFORMATION_RATIO}, below any text.
 *
 * @internal
 */
import type { ObservedRequest, OverflowDetectorState } from "../DetectorState.ts"
import { looksTruncated, OVERFLOW_GROWTH_RATIO, OVERFLOW_MIN_FIRST, type RequestSample } from "../LooksTruncated.ts"
import type { OverflowEvidence, OverflowRule, TruncationMode } from "../OverflowVerdict.ts"

/**
 * The fewest server tokens one estimated token of text can cost, with a margin: runs of spaces are the
 * cheapest text measured in o200k (128 spaces a token, 0.03125 of the characters / 4 estimate; runs of `-`,
 * `=` or `.` cost 0.0625, newlines 0.25). 0.025 keeps a 20% margin under that floor. A reported growth
 * below this fraction of the estimated growth cannot be honest text; between it and
 * `OVERFLOW_GROWTH_RATIO` it can (a tool result of whitespace), so it is only a suspicion.
 */
export const LOW_INFORMATION_RATIO = 0.025

/** Exact counters: the shortfall tolerated whatever the size, in tokens (template boundary merges). */
export const EXACT_TOLERANCE = 3

/** Exact counters: the shortfall tolerated per counted token (re-serialized arguments, template drift). */
export const EXACT_TOLERANCE_RATIO = 0.02

/** The shortfall an exact count of `counted` tokens (the whole request, or its growth) tolerates. */
export const exactTolerance = (counted: number): number =>
  Math.max(EXACT_TOLERANCE, Math.ceil(EXACT_TOLERANCE_RATIO * counted))

/**
 * Floor growth: what an honest report may grow by less than the floor of the appended text. The generation
 * prompt of the previous request is replaced by the header of the assistant message (templates that differ
 * there, such as an empty thinking block, differ by a few tokens) and text may merge across a boundary.
 */
export const FLOOR_GROWTH_SLACK = 16

/** A rule's decision. */
export interface Decision {
  readonly rule: OverflowRule
  readonly truncated: boolean
  /** Looked truncated by a rule that honest content can also trigger: neither flagged nor trusted. */
  readonly suspect?: boolean
  readonly evidence: OverflowEvidence
}

const round2 = (n: number): number => Math.round(n * 1_000) / 1_000

/** The fewest tokens an intact prompt would have been reported with, by the exact counter. */
const exactExpectation = (
  state: OverflowDetectorState,
  cur: RequestSample
): { expected: number; tolerance: number } => {
  const prev = state.lastGood
  if (prev !== null) {
    // The template only adds tokens as messages are appended: the overhead of the last good request holds.
    return {
      expected: cur.estimate + (prev.tokens - prev.estimate),
      tolerance: exactTolerance(cur.estimate - prev.estimate)
    }
  }
  // Only a NEGATIVE learned overhead lowers the expectation: a positive one grows with the number of
  // messages, and a first request after an edit has fewer of them than the requests it was learned on.
  return { expected: cur.estimate + Math.min(0, state.overhead ?? 0), tolerance: exactTolerance(cur.estimate) }
}

/** Which rule decides, and what it decides. */
export const judge = (state: OverflowDetectorState, request: ObservedRequest, minGrowth: number): Decision => {
  const cur: RequestSample = { tokens: request.tokens, estimate: request.estimate }
  const prev = state.lastGood
  const ceiling = state.ceiling
  // A prompt that contains one that did not fit (append-only conversation, the same server) does not fit.
  if (state.overflowEstimate !== null && cur.estimate >= state.overflowEstimate) {
    return { rule: "beyond-overflow", truncated: true, evidence: { overflowEstimate: state.overflowEstimate } }
  }
  // Template tokens are never negative and an honest server drops nothing: it reports at least the floor.
  if (request.floor !== undefined && cur.tokens < request.floor) {
    return { rule: "floor", truncated: true, evidence: { floor: request.floor, expected: request.floor } }
  }
  const prevFloor = state.lastGoodFloor ?? undefined
  if (
    (prev !== null && cur.estimate < prev.estimate) || (ceiling !== null && cur.estimate < ceiling.estimate) ||
    (prevFloor !== undefined && request.floor !== undefined && request.floor < prevFloor)
  ) {
    return { rule: "shrunk", truncated: false, evidence: {} }
  }
  // Honest prompts only grow: a larger request reported at or under the highest report is missing text.
  if (ceiling !== null && cur.estimate > ceiling.estimate && cur.tokens <= ceiling.tokens) {
    return { rule: "not-grown", truncated: true, evidence: { ceiling, expected: ceiling.tokens + 1 } }
  }
  if (
    prev !== null && cur.estimate - prev.estimate < minGrowth && prev.tokens >= OVERFLOW_MIN_FIRST &&
    cur.tokens < OVERFLOW_GROWTH_RATIO * prev.tokens
  ) {
    return { rule: "collapse", truncated: true, evidence: { threshold: OVERFLOW_GROWTH_RATIO } }
  }
  // The appended text costs at least its floor: an honest report grows by at least that much, less the slack.
  if (prev !== null && prevFloor !== undefined && request.floor !== undefined) {
    const floor = request.floor - prevFloor
    const expected = prev.tokens + floor - FLOOR_GROWTH_SLACK
    if (cur.tokens < expected) {
      return { rule: "floor-growth", truncated: true, evidence: { floor, expected, tolerance: FLOOR_GROWTH_SLACK } }
    }
  }
  if (state.exact) {
    // Every request is judged directly: the count plus the overhead learned from good requests, less a
    // tolerance. (A known window adds nothing here: under it and above the expectation is this same shortfall.)
    const { expected, tolerance } = exactExpectation(state, cur)
    return {
      rule: prev === null ? "exact-first-request" : "exact-growth",
      truncated: cur.tokens < expected - tolerance,
      evidence: { expected, tolerance }
    }
  }
  // The approximate counter: the reported size grows by at least LOW_INFORMATION_RATIO of the estimate.
  if (request.window !== undefined && cur.tokens <= request.window) {
    const expected = prev === null
      ? LOW_INFORMATION_RATIO * cur.estimate
      : prev.tokens + LOW_INFORMATION_RATIO * (cur.estimate - prev.estimate)
    if (expected > request.window) {
      return { rule: "known-window", truncated: true, evidence: { expected, window: request.window } }
    }
  }
  if (prev === null) {
    if (cur.estimate < OVERFLOW_MIN_FIRST) return { rule: "first-request-small", truncated: false, evidence: {} }
    const ratio = round2(cur.tokens / cur.estimate)
    if (!looksTruncated(null, cur)) return { rule: "first-request", truncated: false, evidence: { ratio } }
    return cur.tokens < LOW_INFORMATION_RATIO * cur.estimate
      ? { rule: "first-request", truncated: true, evidence: { ratio, threshold: LOW_INFORMATION_RATIO } }
      : {
        rule: "first-request",
        truncated: false,
        suspect: true,
        evidence: { ratio, threshold: LOW_INFORMATION_RATIO }
      }
  }
  const grown = cur.estimate - prev.estimate
  if (grown < minGrowth) return { rule: "below-min-growth", truncated: false, evidence: {} }
  const ratio = round2((cur.tokens - prev.tokens) / grown)
  if (!looksTruncated(prev, cur, minGrowth)) return { rule: "growth", truncated: false, evidence: { ratio } }
  return cur.tokens - prev.tokens < LOW_INFORMATION_RATIO * grown
    ? { rule: "growth", truncated: true, evidence: { ratio, threshold: LOW_INFORMATION_RATIO } }
    : { rule: "growth", truncated: false, suspect: true, evidence: { ratio, threshold: LOW_INFORMATION_RATIO } }
}

/**
 * Plateau or collapse: a plateau still reports about a window's worth (at least a tenth of the request's
 * expected size, or half the largest prompt the server processed); a collapse reports almost nothing.
 */
export const truncationMode = (state: OverflowDetectorState, cur: RequestSample): TruncationMode => {
  const prev = state.lastGood
  const ratio = prev === null ? 1 : prev.tokens / prev.estimate
  const scale = state.exact || !(Number.isFinite(ratio) && ratio > 0) ? 1 : ratio
  const expected = cur.estimate * scale
  const plateau = cur.tokens >= OVERFLOW_GROWTH_RATIO * expected ||
    (state.largestPrompt > 0 && cur.tokens >= state.largestPrompt / 2)
  return plateau ? "plateau" : "collapse"
}
