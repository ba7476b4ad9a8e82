/**
 * The detector's rules as plain decisions over a state and a sample with usable numbers (both positive and
 * finite: the caller has already ruled out `no-usage` and `no-estimate`).
 *
 * @internal
 */
import type { OverflowDetectorState } from "../DetectorState.ts"
import { OVERFLOW_EXACT_MIN_SHORTFALL, OVERFLOW_EXACT_SHORTFALL } from "../ExactCount.ts"
import { OVERFLOW_GROWTH_RATIO, OVERFLOW_MIN_FIRST, type RequestSample } from "../LooksTruncated.ts"
import type { OverflowRule, TruncationMode } from "../OverflowVerdict.ts"

/** The shortfall an exact count (or exact growth) of `size` tokens tolerates. */
const exactMargin = (size: number): number => Math.max(OVERFLOW_EXACT_MIN_SHORTFALL, OVERFLOW_EXACT_SHORTFALL * size)

/** Which rule decides, and what it decides. */
export const judge = (
  state: OverflowDetectorState,
  cur: RequestSample,
  minGrowth: number
): { readonly rule: OverflowRule; readonly truncated: boolean } => {
  const prev = state.lastGood
  if (prev === null) {
    if (cur.estimate >= OVERFLOW_MIN_FIRST && cur.tokens < OVERFLOW_GROWTH_RATIO * cur.estimate) {
      return { rule: "first-request", truncated: true }
    }
    if (state.exact) {
      // Only a NEGATIVE learned overhead lowers the expectation: a positive one grows with the number of
      // messages, and a first request after a compaction has fewer of them than the requests it was learned on.
      const expected = cur.estimate + Math.min(0, state.overhead ?? 0)
      return { rule: "exact-first-request", truncated: cur.tokens < expected - exactMargin(cur.estimate) }
    }
    return { rule: cur.estimate >= OVERFLOW_MIN_FIRST ? "first-request" : "first-request-small", truncated: false }
  }
  const grown = cur.estimate - prev.estimate
  const reportedGrowth = cur.tokens - prev.tokens
  if (grown < 0) return { rule: "shrunk", truncated: false }
  if (grown >= minGrowth && reportedGrowth < OVERFLOW_GROWTH_RATIO * grown) return { rule: "growth", truncated: true }
  if (grown < minGrowth && prev.tokens >= OVERFLOW_MIN_FIRST && cur.tokens < OVERFLOW_GROWTH_RATIO * prev.tokens) {
    return { rule: "collapse", truncated: true }
  }
  if (state.exact) {
    // The template only adds tokens as the conversation grows, so the reported growth keeps up with the exact
    // growth; falling short of it by more than the margin is lost text.
    return { rule: "exact-growth", truncated: reportedGrowth < grown - exactMargin(grown) }
  }
  return { rule: grown >= minGrowth ? "growth" : "below-min-growth", truncated: false }
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
