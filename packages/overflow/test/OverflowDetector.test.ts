import { approximateCounter } from "@ctxkit/budget"
import {
  looksTruncated,
  OVERFLOW_EXACT_MIN_SHORTFALL,
  OVERFLOW_EXACT_SHORTFALL,
  OverflowDetector,
  OverflowDetectorState,
  type OverflowDetectorState as State,
  overflowMessage,
  OverflowVerdict,
  type RequestSample
} from "@ctxkit/overflow"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"

const exactCounter = { id: "qwen3", approximate: false } as const

const feed = (state: State, samples: ReadonlyArray<RequestSample>): State =>
  samples.reduce((s, sample) => OverflowDetector.observe(s, sample).state, state)

describe("OverflowDetector", () => {
  it("starts empty, approximate by default", () => {
    assert.deepStrictEqual(OverflowDetector.initial(), {
      counter: approximateCounter.id,
      exact: false,
      lastGood: null,
      overhead: null,
      largestPrompt: 0,
      smallestOverflow: null
    })
    assert.deepStrictEqual(OverflowDetector.initial({ counter: exactCounter }).exact, true)
    assert.deepStrictEqual(OverflowDetector.initial({ counter: exactCounter }).counter, "qwen3")
  })

  it("no usage, or no estimate: undecided, no calibration, the very same state", () => {
    const state = deepFreeze(feed(OverflowDetector.initial(), [{ tokens: 3_000, estimate: 2_800 }]))
    for (const tokens of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const observed = OverflowDetector.observe(state, { tokens, estimate: 9_000 })
      assert.strictEqual(observed.state, state)
      assert.deepStrictEqual([observed.verdict.truncated, observed.verdict.calibrate], [false, false])
      assert.strictEqual(observed.verdict.rule, "no-usage")
    }
    for (const estimate of [0, -5, Number.NaN, Number.NEGATIVE_INFINITY]) {
      const observed = OverflowDetector.observe(state, { tokens: 63, estimate })
      assert.strictEqual(observed.state, state)
      assert.deepStrictEqual(
        [observed.verdict.truncated, observed.verdict.calibrate, observed.verdict.rule],
        [false, false, "no-estimate"]
      )
    }
  })

  it("a good request becomes the baseline and calibrates; a small first request is undecided", () => {
    const small = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 30, estimate: 400 })
    assert.deepStrictEqual(
      [small.verdict.truncated, small.verdict.calibrate, small.verdict.rule],
      [false, true, "first-request-small"]
    )
    assert.deepStrictEqual(small.state.lastGood, { tokens: 30, estimate: 400 })
    const next = OverflowDetector.observe(small.state, { tokens: 700, estimate: 1_000 })
    assert.deepStrictEqual([next.verdict.rule, next.verdict.truncated], ["growth", false])
    assert.deepStrictEqual(next.verdict.baseline, { tokens: 30, estimate: 400 })
    assert.strictEqual(next.state.largestPrompt, 700)
  })

  it("a truncated request is never the baseline and never calibrates", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 3_700, estimate: 3_450 }])
    const { state: after, verdict } = OverflowDetector.observe(state, { tokens: 3_664, estimate: 4_000 })
    assert.deepStrictEqual([verdict.truncated, verdict.calibrate], [true, false])
    assert.strictEqual(after.lastGood, state.lastGood)
    // The next request is still compared with the last good one.
    assert.deepStrictEqual(
      OverflowDetector.observe(after, { tokens: 3_680, estimate: 4_550 }).verdict.baseline,
      { tokens: 3_700, estimate: 3_450 }
    )
  })

  it("an edited conversation without a reset is `shrunk`, undecided, and becomes the new baseline", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 9_000, estimate: 8_000 }])
    const { state: after, verdict } = OverflowDetector.observe(state, { tokens: 200, estimate: 1_000 })
    assert.deepStrictEqual([verdict.truncated, verdict.rule, verdict.calibrate], [false, "shrunk", true])
    assert.deepStrictEqual(after.lastGood, { tokens: 200, estimate: 1_000 })
  })

  it("a compaction request is judged but never becomes the baseline of the next turn", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 3_000, estimate: 2_800 }])
    const good = OverflowDetector.observe(state, { tokens: 3_100, estimate: 2_900, kind: "compaction" })
    assert.deepStrictEqual([good.verdict.truncated, good.verdict.kind, good.verdict.calibrate], [
      false,
      "compaction",
      true
    ])
    assert.strictEqual(good.state.lastGood, state.lastGood)
    const truncated = OverflowDetector.observe(state, { tokens: 2_500, estimate: 2_900, kind: "compaction" })
    assert.deepStrictEqual([truncated.verdict.truncated, truncated.verdict.rule], [true, "growth"])
  })

  it("reset: compaction and clearing forget the baseline and keep what was learned about the server", () => {
    const state = feed(OverflowDetector.initial(), [
      { tokens: 3_700, estimate: 3_450 },
      { tokens: 3_664, estimate: 4_000 }
    ])
    assert.strictEqual(state.largestPrompt, 3_700)
    assert.strictEqual(state.smallestOverflow, 4_290)
    for (const cause of ["compaction", "clearing"] as const) {
      const after = OverflowDetector.reset(state, cause)
      assert.deepStrictEqual(after, { ...state, lastGood: null })
      assert.deepStrictEqual(pipe(state, OverflowDetector.reset(cause)), after)
    }
    assert.deepStrictEqual(OverflowDetector.reset(state, "model-change"), OverflowDetector.initial())
    const exact = feed(OverflowDetector.initial({ counter: exactCounter }), [{ tokens: 1_000, estimate: 990 }])
    assert.deepStrictEqual(
      OverflowDetector.reset(exact, "model-change"),
      OverflowDetector.initial({ counter: exactCounter })
    )
  })

  it("is data-first and data-last", () => {
    const state = OverflowDetector.initial()
    const request = { tokens: 63, estimate: 5_000 }
    assert.deepStrictEqual(pipe(state, OverflowDetector.observe(request)), OverflowDetector.observe(state, request))
  })

  it("state and verdicts are Schema data: they survive JSON and decode back", () => {
    let state = OverflowDetector.initial({ counter: exactCounter })
    for (const sample of [{ tokens: 1_000, estimate: 990 }, { tokens: 400, estimate: 2_000 }]) {
      const { state: next, verdict } = OverflowDetector.observe(state, sample)
      assert.isTrue(Schema.is(OverflowVerdict)(verdict))
      assert.deepStrictEqual(Schema.decodeUnknownSync(OverflowVerdict)(JSON.parse(JSON.stringify(verdict))), verdict)
      state = next
    }
    assert.deepStrictEqual(Schema.decodeUnknownSync(OverflowDetectorState)(JSON.parse(JSON.stringify(state))), state)
  })
})

describe("bad input", () => {
  const odd = [0, -1, 1, 63, 1e308, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE]

  it("never throws, whatever the numbers, in the request or in a stored state; verdicts stay valid data", () => {
    for (const exact of [false, true]) {
      const fresh = OverflowDetector.initial({ counter: { id: "c", approximate: !exact } })
      for (const a of odd) {
        for (const b of odd) {
          // A stored state that decodes (numbers are numbers) but holds nonsense.
          const stored: State = { ...fresh, lastGood: { tokens: a, estimate: b }, largestPrompt: a, overhead: b }
          for (const state of [fresh, stored]) {
            for (const kind of ["turn", "compaction"] as const) {
              const { verdict } = OverflowDetector.observe(state, { tokens: b, estimate: a, kind })
              assert.isTrue(Schema.is(OverflowVerdict)(verdict))
              assert.isString(overflowMessage(verdict))
            }
          }
          assert.isBoolean(looksTruncated({ tokens: a, estimate: b }, { tokens: b, estimate: a }))
        }
      }
    }
  })

  it("a counter without options, or undefined options, is the approximate one", () => {
    assert.deepStrictEqual(OverflowDetector.initial({ counter: undefined }), OverflowDetector.initial())
    assert.deepStrictEqual(OverflowDetector.initial({}), OverflowDetector.initial())
  })
})

describe("OverflowDetector, exact counter for the served model", () => {
  const initial = OverflowDetector.initial({ counter: exactCounter })

  it("judges a first request by its shortfall from the exact count, with a margin of 10% and at least 50 tokens", () => {
    assert.strictEqual(OVERFLOW_EXACT_SHORTFALL, 0.1)
    assert.strictEqual(OVERFLOW_EXACT_MIN_SHORTFALL, 50)
    const judge = (tokens: number, estimate: number) => OverflowDetector.observe(initial, { tokens, estimate }).verdict
    // 10% of 4,000 is 400: 3,601 reported is within it, 3,599 is not.
    assert.deepStrictEqual([judge(3_601, 4_000).truncated, judge(3_601, 4_000).rule], [false, "exact-first-request"])
    assert.deepStrictEqual([judge(3_599, 4_000).truncated, judge(3_599, 4_000).rule], [true, "exact-first-request"])
    // Under 500 tokens the floor of 50 applies; the approximate rules would not judge such a request at all.
    assert.strictEqual(judge(251, 300).truncated, false)
    assert.strictEqual(judge(249, 300).truncated, true)
    // The ratio rule still comes first for a collapse.
    assert.strictEqual(judge(63, 4_000).rule, "first-request")
  })

  it("learns a template that drops content (negative overhead) from good requests, and keeps it across a compaction", () => {
    // The template drops earlier reasoning: the server reports 600 fewer tokens than the exact count.
    const learned = feed(initial, [{ tokens: 5_400, estimate: 6_000 }, { tokens: 5_950, estimate: 6_600 }])
    assert.strictEqual(learned.overhead, -650)
    const afterCompaction = OverflowDetector.reset(learned, "compaction")
    // 3,000 counted, 2,500 reported: a shortfall of 500, within the learned 650 plus the margin.
    const fine = OverflowDetector.observe(afterCompaction, { tokens: 2_500, estimate: 3_000 }).verdict
    assert.deepStrictEqual([fine.truncated, fine.rule], [false, "exact-first-request"])
    // Without what was learned, the same request would look truncated.
    assert.isTrue(OverflowDetector.observe(initial, { tokens: 2_500, estimate: 3_000 }).verdict.truncated)
    // A positive overhead (role markers) is not added to the expectation: it grows with the number of messages.
    const positive = feed(initial, [{ tokens: 6_600, estimate: 6_000 }])
    assert.strictEqual(positive.overhead, 600)
    const reset = OverflowDetector.reset(positive, "compaction")
    assert.isFalse(OverflowDetector.observe(reset, { tokens: 1_000, estimate: 1_000 }).verdict.truncated)
  })

  it("judges growth too, including growth under 200: the reported growth must keep up with the exact growth", () => {
    const state = feed(initial, [{ tokens: 3_000, estimate: 2_900 }])
    const judge = (tokens: number, estimate: number) => OverflowDetector.observe(state, { tokens, estimate }).verdict
    // 100 counted tokens more, 40 reported fewer: a shortfall of 140 > 50.
    assert.deepStrictEqual([judge(2_960, 3_000).truncated, judge(2_960, 3_000).rule], [true, "exact-growth"])
    // Within the margin.
    assert.deepStrictEqual([judge(3_060, 3_000).truncated, judge(3_060, 3_000).rule], [false, "exact-growth"])
    // 2,000 counted tokens more, 1,700 reported more: a shortfall of 300 > 10% of 2,000.
    assert.deepStrictEqual([judge(4_700, 4_900).truncated, judge(4_700, 4_900).rule], [true, "exact-growth"])
    assert.strictEqual(judge(4_850, 4_900).truncated, false)
  })
})
