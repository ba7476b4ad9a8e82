/**
 * The figures measured in the tutorial this package comes from (Ollama, qwen2.5:7b, a 4,096-token window),
 * reproduced exactly through `looksTruncated` and the detector.
 */
import {
  looksTruncated,
  OVERFLOW_GROWTH_RATIO,
  OVERFLOW_MIN_FIRST,
  OVERFLOW_MIN_GROWTH,
  OVERFLOW_MIN_GROWTH_COMPACT,
  OverflowDetector,
  type OverflowDetectorState,
  type OverflowVerdict,
  type RequestSample
} from "@ctxkit/overflow"
import { assert, describe, it } from "@effect/vitest"

/** Feeds samples to a fresh (or given) detector; returns every verdict and the final state. */
const run = (
  samples: ReadonlyArray<RequestSample>,
  start: OverflowDetectorState = OverflowDetector.initial()
): { readonly verdicts: ReadonlyArray<OverflowVerdict>; readonly state: OverflowDetectorState } => {
  let state = start
  const verdicts: Array<OverflowVerdict> = []
  for (const sample of samples) {
    const observed = OverflowDetector.observe(state, sample)
    state = observed.state
    verdicts.push(observed.verdict)
  }
  return { verdicts, state }
}

// The growing conversation: each turn adds a ~550-token note; untruncated, the reported size grows by 600 a turn
// (about 1.1× the estimated growth). Past the window the server keeps the system prompt and the latest notes,
// and the reported size moves by −36, +16, +14 and +21; the last request is the 27-message conversation,
// estimated at 6,204 tokens and answered with 3,725.
const fitting: ReadonlyArray<RequestSample> = [0, 1, 2, 3, 4, 5].map((k) => ({
  tokens: 700 + 600 * k,
  estimate: 700 + 550 * k
}))
const plateau: ReadonlyArray<RequestSample> = [
  { tokens: 3_700 - 36, estimate: 4_000 },
  { tokens: 3_700 - 36 + 16, estimate: 4_550 },
  { tokens: 3_700 - 36 + 16 + 14, estimate: 5_100 },
  { tokens: 3_700 - 36 + 16 + 14 + 21, estimate: 5_650 },
  { tokens: 3_725, estimate: 6_204 }
]

describe("the tutorial's figures", () => {
  it("constants: 0.1, 200, 50, 500", () => {
    assert.strictEqual(OVERFLOW_GROWTH_RATIO, 0.1)
    assert.strictEqual(OVERFLOW_MIN_GROWTH, 200)
    assert.strictEqual(OVERFLOW_MIN_GROWTH_COMPACT, 50)
    assert.strictEqual(OVERFLOW_MIN_FIRST, 500)
  })

  it("27 messages estimated at 6,204 tokens, answered with 3,725 (plateau): flagged by the growth since the last request that fit", () => {
    const { verdicts } = run([...fitting, ...plateau])
    assert.deepStrictEqual(verdicts.map((v) => v.truncated), [
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true
    ])
    // Untruncated, the reported growth per turn is about 1.1× the estimated one.
    for (let k = 1; k < fitting.length; k++) {
      const cur = fitting[k]!
      const prev = fitting[k - 1]!
      assert.strictEqual(Math.round(((cur.tokens - prev.tokens) / (cur.estimate - prev.estimate)) * 10) / 10, 1.1)
    }
    // Truncated, 0.03–0.04× from one truncated turn to the next (so the threshold 0.1 sits above it)...
    const perTurn = plateau.slice(1, 4).map((cur, i) =>
      Math.round(((cur.tokens - plateau[i]!.tokens) / (cur.estimate - plateau[i]!.estimate)) * 100) / 100
    )
    assert.deepStrictEqual(perTurn, [0.03, 0.03, 0.04])
    // ... and each one is compared with the last request that fit, never with a truncated one. The first
    // reported less than the last request that fit (not-grown); the later ones are larger than a request
    // that did not fit (beyond-overflow).
    assert.deepStrictEqual(verdicts.slice(6).map((v) => v.rule), [
      "not-grown",
      "beyond-overflow",
      "beyond-overflow",
      "beyond-overflow",
      "beyond-overflow"
    ])
    const last = verdicts.at(-1)
    assert.deepStrictEqual(last?.sample, { tokens: 3_725, estimate: 6_204 })
    assert.deepStrictEqual(last?.baseline, { tokens: 3_700, estimate: 3_450 })
    assert.strictEqual(last?.mode, "plateau")
    assert.isFalse(last?.calibrate)
    // Straight after the last request that fit, the 6,204-token request is flagged by the growth itself.
    assert.isTrue(looksTruncated({ tokens: 3_700, estimate: 3_450 }, { tokens: 3_725, estimate: 6_204 }))
    const direct = run([...fitting, { tokens: 3_725, estimate: 6_204 }]).verdicts.at(-1)
    assert.deepStrictEqual([direct?.truncated, direct?.rule], [true, "growth"])
    assert.deepStrictEqual(direct?.evidence, { ratio: 0.009, threshold: 0.025 })
  })

  it("the same request alone: the ratio (0.60) is inside the untruncated range, so only an exact counter sees it", () => {
    const alone = { tokens: 3_725, estimate: 6_204 }
    assert.strictEqual(Math.round((alone.tokens / alone.estimate) * 100) / 100, 0.6)
    assert.isFalse(looksTruncated(null, alone))
    const { verdict: approximate } = OverflowDetector.observe(OverflowDetector.initial(), alone)
    assert.deepStrictEqual([approximate.truncated, approximate.rule], [false, "first-request"])
    // With an exact counter for the served model the estimate IS the count (at least the 6,204 estimated, up to
    // 1.48× that): 3,725 is far below it.
    for (const exact of [6_204, 7_445, 9_182]) {
      const detector = OverflowDetector.initial({ counter: { id: "qwen2.5", approximate: false } })
      const { verdict } = OverflowDetector.observe(detector, { tokens: 3_725, estimate: exact })
      assert.strictEqual(verdict.truncated, true)
      assert.strictEqual(verdict.rule, "exact-first-request")
      assert.strictEqual(verdict.mode, "plateau")
      // It processed 3,725 tokens; a request of `exact` tokens did not fit.
      assert.deepStrictEqual(verdict.apparentWindow, { tokens: 3_725, overflowAt: exact })
    }
  })

  it("single requests of 3,975 to 17,701 estimated tokens answered with 63 (collapse): all 21 flagged", () => {
    const estimates = Array.from({ length: 21 }, (_, i) => Math.round(3_975 + ((17_701 - 3_975) * i) / 20))
    assert.strictEqual(estimates[0], 3_975)
    assert.strictEqual(estimates[20], 17_701)
    for (const estimate of estimates) {
      assert.isTrue(looksTruncated(null, { tokens: 63, estimate }))
      const { verdict } = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 63, estimate })
      assert.strictEqual(verdict.truncated, true)
      assert.strictEqual(verdict.rule, "first-request")
      assert.strictEqual(verdict.mode, "collapse")
    }
  })

  it("untruncated reported/estimated ratios of 1.00–1.48 (code to JSON) are never flagged", () => {
    const ratios = [1.0, 1.03, 1.06, 1.2, 1.45, 1.48]
    for (const ratio of ratios) {
      for (const estimate of [OVERFLOW_MIN_FIRST, 1_000, 6_204, 17_701, 120_000]) {
        const first = { tokens: Math.round(ratio * estimate), estimate }
        assert.isFalse(looksTruncated(null, first))
        // A conversation growing at that ratio, turn after turn.
        const turns = [0, 1, 2, 3, 4].map((k) => ({
          tokens: Math.round(ratio * (estimate + 550 * k)),
          estimate: estimate + 550 * k
        }))
        assert.isFalse(run(turns).verdicts.some((v) => v.truncated))
      }
    }
  })

  it("0.22, the lowest untruncated case (text that carries no information): not flagged, a margin of over 2×", () => {
    assert.isAbove(0.22 / OVERFLOW_GROWTH_RATIO, 2)
    // As the ratio of a whole request (runs of spaces)...
    assert.isFalse(looksTruncated(null, { tokens: 220, estimate: 1_000 }))
    // ... and as the ratio of a turn's growth.
    const prev = { tokens: 3_700, estimate: 3_450 }
    assert.isFalse(looksTruncated(prev, { tokens: 3_700 + 121, estimate: 3_450 + 550 }))
    assert.isTrue(looksTruncated(prev, { tokens: 3_700 + 54, estimate: 3_450 + 550 }))
    const { verdict } = OverflowDetector.observe(run([prev]).state, { tokens: 3_821, estimate: 4_000 })
    assert.deepStrictEqual([verdict.truncated, verdict.rule, verdict.calibrate], [false, "growth", true])
    // Runs of spaces go lower still with o200k (1/32 of the estimate): the seed's rule fires, the detector
    // does not flag (under 0.025 of the growth is needed), and does not trust the request either.
    assert.isTrue(looksTruncated(prev, { tokens: 3_700 + 18, estimate: 3_450 + 550 }))
    const spaces = OverflowDetector.observe(run([prev]).state, { tokens: 3_718, estimate: 4_000 })
    assert.deepStrictEqual(
      [spaces.verdict.truncated, spaces.verdict.suspect, spaces.verdict.calibrate, spaces.state.lastGood],
      [false, true, false, prev]
    )
  })

  it("growth under 200 estimated tokens: the ratio is not decided; a report that did not grow at all is", () => {
    const prev = { tokens: 3_700, estimate: 3_450 }
    const state = run([prev]).state
    for (const tokens of [3_701, 3_720, 3_900]) {
      assert.isFalse(looksTruncated(prev, { tokens, estimate: 3_450 + 199 }))
      const { verdict } = OverflowDetector.observe(state, { tokens, estimate: 3_450 + 199 })
      assert.deepStrictEqual([verdict.truncated, verdict.rule], [false, "below-min-growth"])
    }
    // The stated better rule: an honest prompt that grew is reported larger, whatever the growth; at or under
    // the highest report, part of it is missing.
    for (const tokens of [3_700, 3_500, 2_000, 400]) {
      assert.isFalse(looksTruncated(prev, { tokens, estimate: 3_450 + 199 }))
      const { verdict } = OverflowDetector.observe(state, { tokens, estimate: 3_450 + 199 })
      assert.deepStrictEqual([verdict.truncated, verdict.rule], [true, "not-grown"])
    }
    assert.isTrue(looksTruncated(prev, { tokens: 3_701, estimate: 3_450 + 200 }))
    assert.strictEqual(OverflowDetector.observe(state, { tokens: 3_701, estimate: 3_650 }).verdict.rule, "growth")
  })

  it("a compaction request is judged from 50 tokens of growth", () => {
    const prev = { tokens: 3_700, estimate: 3_450 }
    const request = { tokens: 3_701, estimate: 3_450 + 60 }
    assert.isFalse(looksTruncated(prev, request))
    assert.isTrue(looksTruncated(prev, request, OVERFLOW_MIN_GROWTH_COMPACT))
    const state = run([prev]).state
    const asCompaction = OverflowDetector.observe(state, { ...request, kind: "compaction" })
    assert.deepStrictEqual([asCompaction.verdict.truncated, asCompaction.verdict.rule], [true, "growth"])
    assert.strictEqual(asCompaction.verdict.minGrowth, 50)
    assert.strictEqual(OverflowDetector.observe(state, request).verdict.rule, "below-min-growth")
    const small = OverflowDetector.observe(state, { tokens: 3_701, estimate: 3_450 + 49, kind: "compaction" })
    assert.deepStrictEqual([small.verdict.truncated, small.verdict.rule], [false, "below-min-growth"])
    // The same rules as a turn: a compaction request reported under the last turn is flagged at any growth.
    const shrunk = OverflowDetector.observe(state, { tokens: 3_600, estimate: 3_460, kind: "compaction" })
    assert.deepStrictEqual([shrunk.verdict.truncated, shrunk.verdict.rule], [true, "not-grown"])
  })

  it("the real limit, near 4,070 prompt tokens, lies within the apparent window the detector reports", () => {
    // Plateau: the last request that fit reported 3,700; the first that did not was estimated at 4,000.
    const grown = run([...fitting, ...plateau])
    const windows = grown.verdicts.filter((v) => v.truncated).map((v) => v.apparentWindow)
    assert.deepStrictEqual(windows[0], { tokens: 3_700, overflowAt: 4_290 })
    assert.deepStrictEqual(windows.at(-1), { tokens: 3_725, overflowAt: 4_290 })
    for (const window of windows) {
      assert.isAtMost(window?.tokens ?? Infinity, 4_070)
      assert.isAbove(window?.overflowAt ?? 0, 4_070)
    }
    // Collapse: a request reported whole at 4,062 tokens, the next one (15 estimated tokens more) answered
    // with 63. The growth rule leaves it undecided (under 200); a report that did not grow is flagged.
    const good = { tokens: 4_062, estimate: 3_960 }
    const next = { tokens: 63, estimate: 3_975 }
    assert.isFalse(looksTruncated(good, next))
    const { verdicts } = run([good, next])
    const last = verdicts[1]
    assert.deepStrictEqual([last?.truncated, last?.rule, last?.mode], [true, "not-grown", "collapse"])
    assert.deepStrictEqual(last?.apparentWindow, { tokens: 4_062, overflowAt: 4_077 })
  })

  it("context shift during generation is invisible: the server reports the whole prompt", () => {
    // Prompts of 3,781 to 4,090 tokens fit a 4,096 window, but 910 to 1,024 generated tokens did not: the
    // server shifted the context while generating and still reported every prompt token.
    const prev = { tokens: 3_000, estimate: 2_900 }
    for (const tokens of [3_781, 4_090]) {
      assert.isFalse(looksTruncated(prev, { tokens, estimate: tokens - 100 }))
    }
  })
})
