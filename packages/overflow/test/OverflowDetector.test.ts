import { approximateCounter } from "@ctxkit/budget"
import { o200kCounter } from "@ctxkit/budget/o200k"
import {
  looksTruncated,
  OverflowDetector,
  OverflowDetectorState,
  type OverflowDetectorState as State,
  overflowMessage,
  OverflowVerdict,
  type RequestSample
} from "@ctxkit/overflow"
import type { DetectorCounter, DetectorOptions } from "@ctxkit/overflow/DetectorState"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"

// The counter option's own named type: any budget TokenCounter, or just the two fields the detector reads.
const exactCounter: DetectorCounter = { id: "qwen3", approximate: false }

const feed = (state: State, samples: ReadonlyArray<RequestSample>): State =>
  samples.reduce((s, sample) => OverflowDetector.observe(s, sample).state, state)

describe("OverflowDetector", () => {
  it("starts empty, approximate by default", () => {
    assert.deepStrictEqual(OverflowDetector.initial(), {
      counter: approximateCounter.id,
      exact: false,
      lastGood: null,
      ceiling: null,
      overflowEstimate: null,
      overhead: null,
      largestPrompt: 0,
      smallestOverflow: null
    })
    assert.deepStrictEqual(OverflowDetector.initial({ counter: exactCounter }).exact, true)
    assert.deepStrictEqual(OverflowDetector.initial({ counter: exactCounter }).counter, "qwen3")
  })

  it("takes a budget counter as its DetectorCounter, reading only its id and whether it is approximate", () => {
    const counter: DetectorCounter = o200kCounter
    const options: DetectorOptions = { counter }
    const state = OverflowDetector.initial(options)
    assert.strictEqual(state.counter, "o200k_base")
    assert.isTrue(state.exact)
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
    assert.deepStrictEqual([truncated.verdict.truncated, truncated.verdict.rule], [true, "not-grown"])
    // Neither a good nor a truncated compaction request bounds the turns that follow.
    assert.strictEqual(good.state.ceiling, state.ceiling)
    assert.deepStrictEqual([truncated.state.ceiling, truncated.state.overflowEstimate], [state.ceiling, null])
  })

  it("a declared edit forgets the conversation before judging: an honest prompt may shrink after one", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 9_000, estimate: 8_000 }, {
      tokens: 9_500,
      estimate: 8_400
    }])
    // Without the edit declared, a larger request reported under the ceiling is truncated...
    assert.strictEqual(OverflowDetector.observe(state, { tokens: 2_100, estimate: 8_600 }).verdict.rule, "not-grown")
    // ... with it, it is a first request again (clearing replaced big results by a short note).
    for (const edited of ["compaction", "clearing", "reduction", "epoch"] as const) {
      const { state: after, verdict } = OverflowDetector.observe(state, { tokens: 2_100, estimate: 8_600, edited })
      assert.deepStrictEqual([verdict.truncated, verdict.rule, verdict.baseline], [false, "first-request", null])
      assert.deepStrictEqual(after.ceiling, { tokens: 2_100, estimate: 8_600 })
      assert.strictEqual(after.largestPrompt, 9_500)
    }
  })

  it("a request at least as large as one that did not fit is truncated (beyond-overflow)", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 3_700, estimate: 3_450 }, {
      tokens: 3_650,
      estimate: 4_000
    }])
    assert.strictEqual(state.overflowEstimate, 4_000)
    const { verdict } = OverflowDetector.observe(state, { tokens: 3_990, estimate: 4_200 })
    assert.deepStrictEqual([verdict.truncated, verdict.rule, verdict.evidence], [true, "beyond-overflow", {
      overflowEstimate: 4_000
    }])
  })

  it("a known window: the last good report plus the least the growth can cost exceeds it", () => {
    const state = feed(OverflowDetector.initial(), [{ tokens: 4_093, estimate: 3_800 }])
    // 190 more estimated tokens cost at least 4.75 server tokens: more than the 4,096 window leaves.
    const over = OverflowDetector.observe(state, { tokens: 4_095, estimate: 3_990, window: 4_096 }).verdict
    assert.deepStrictEqual([over.truncated, over.rule, over.evidence], [true, "known-window", {
      expected: 4_097.75,
      window: 4_096
    }])
    // Without the window, growth under 200 is not decided by the ratio.
    const unknown = OverflowDetector.observe(state, { tokens: 4_095, estimate: 3_990 }).verdict
    assert.deepStrictEqual([unknown.truncated, unknown.rule], [false, "below-min-growth"])
    // A window not usable (0, NaN) is ignored.
    for (const window of [0, Number.NaN]) {
      assert.strictEqual(
        OverflowDetector.observe(state, { tokens: 4_095, estimate: 3_990, window }).verdict.rule,
        "below-min-growth"
      )
    }
  })

  it("reset: compaction and clearing forget the baseline and keep what was learned about the server", () => {
    const state = feed(OverflowDetector.initial(), [
      { tokens: 3_700, estimate: 3_450 },
      { tokens: 3_664, estimate: 4_000 }
    ])
    assert.strictEqual(state.largestPrompt, 3_700)
    assert.strictEqual(state.smallestOverflow, 4_290)
    for (const cause of ["compaction", "clearing", "reduction", "epoch"] as const) {
      const after = OverflowDetector.reset(state, cause)
      assert.deepStrictEqual(after, { ...state, lastGood: null, ceiling: null, overflowEstimate: null })
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

  it("judges a first request by its shortfall from the exact count, with a tolerance of 2% and at least 3 tokens", () => {
    const judge = (tokens: number, estimate: number) => OverflowDetector.observe(initial, { tokens, estimate }).verdict
    // 2% of 4,000 is 80: 3,920 reported is within it, 3,919 is not.
    assert.deepStrictEqual([judge(3_920, 4_000).truncated, judge(3_920, 4_000).rule], [false, "exact-first-request"])
    assert.deepStrictEqual([judge(3_919, 4_000).truncated, judge(3_919, 4_000).rule], [true, "exact-first-request"])
    assert.deepStrictEqual(judge(3_919, 4_000).evidence, { expected: 4_000, tolerance: 80 })
    // Under 150 tokens the floor of 3 applies; the approximate rules would not judge such a request at all.
    assert.strictEqual(judge(97, 100).truncated, false)
    assert.strictEqual(judge(96, 100).truncated, true)
    assert.strictEqual(judge(63, 4_000).rule, "exact-first-request")
  })

  it("learns a template that drops content (negative overhead) from good requests, and keeps it across a compaction", () => {
    // The template drops a little (re-serialized arguments): the server reports 100 fewer tokens than counted.
    const learned = feed(initial, [{ tokens: 5_900, estimate: 6_000 }, { tokens: 6_490, estimate: 6_600 }])
    assert.strictEqual(learned.overhead, -110)
    const afterCompaction = OverflowDetector.reset(learned, "compaction")
    // 3,000 counted, 2,860 reported: a shortfall of 140, within the learned 110 plus the tolerance (60).
    const fine = OverflowDetector.observe(afterCompaction, { tokens: 2_860, estimate: 3_000 }).verdict
    assert.deepStrictEqual([fine.truncated, fine.rule], [false, "exact-first-request"])
    // Without what was learned, the same request would look truncated.
    assert.isTrue(OverflowDetector.observe(initial, { tokens: 2_860, estimate: 3_000 }).verdict.truncated)
    // A positive overhead (role markers) is not added to the expectation: it grows with the number of messages.
    const positive = feed(initial, [{ tokens: 6_600, estimate: 6_000 }])
    assert.strictEqual(positive.overhead, 600)
    const reset = OverflowDetector.reset(positive, "compaction")
    assert.isFalse(OverflowDetector.observe(reset, { tokens: 1_000, estimate: 1_000 }).verdict.truncated)
  })

  it("judges growth too, including growth under 200: the overhead of the last good request must hold", () => {
    const state = feed(initial, [{ tokens: 3_000, estimate: 2_900 }])
    const judge = (tokens: number, estimate: number) => OverflowDetector.observe(state, { tokens, estimate }).verdict
    // 100 counted tokens more, the overhead (100) kept: 3,100 expected, 3 tolerated.
    assert.deepStrictEqual([judge(3_097, 3_000).truncated, judge(3_097, 3_000).rule], [false, "exact-growth"])
    assert.deepStrictEqual([judge(3_096, 3_000).truncated, judge(3_096, 3_000).rule], [true, "exact-growth"])
    assert.deepStrictEqual(judge(3_096, 3_000).evidence, { expected: 3_100, tolerance: 3 })
    // 2,000 counted tokens more: 40 tolerated.
    assert.strictEqual(judge(4_960, 4_900).truncated, false)
    assert.strictEqual(judge(4_959, 4_900).truncated, true)
    // A report that did not grow is flagged before the exact rule.
    assert.strictEqual(judge(2_990, 2_950).rule, "not-grown")
  })

  it("floor: a first request reported under its token floor is truncated, with the approximate counter too", () => {
    // A plateau on a first request: the ratio 0.61 looks like honest text, but 5,000 words cost 5,000 tokens at least.
    const first = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 4_096, estimate: 6_700, floor: 5_000 })
    assert.deepStrictEqual(
      [first.verdict.truncated, first.verdict.rule, first.verdict.evidence],
      [true, "floor", { floor: 5_000, expected: 5_000 }]
    )
    assert.isFalse(first.verdict.calibrate)
    // Without the floor the same request passes as honest low-information text.
    assert.isFalse(
      OverflowDetector.observe(OverflowDetector.initial(), { tokens: 4_096, estimate: 6_700 }).verdict.truncated
    )
    // At the floor exactly: not flagged (the slack is the one word per piece `tokenFloor` already subtracts).
    const atFloor = OverflowDetector.observe(OverflowDetector.initial(), {
      tokens: 5_000,
      estimate: 6_700,
      floor: 5_000
    })
    assert.isFalse(atFloor.verdict.truncated)
  })

  it("floor-growth: a report that grew by less than the floor of the appended text, less the slack, is truncated", () => {
    const state = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 3_000, estimate: 2_800, floor: 1_500 })
      .state
    assert.strictEqual(state.lastGoodFloor, 1_500)
    // Appended 600 words; the report grew by 300 (ratio 0.43 of the estimate: the seed's rule sees nothing).
    const plateau = OverflowDetector.observe(state, { tokens: 3_300, estimate: 3_500, floor: 2_100 })
    assert.deepStrictEqual(
      [plateau.verdict.truncated, plateau.verdict.rule, plateau.verdict.evidence],
      [true, "floor-growth", { floor: 600, expected: 3_584, tolerance: 16 }]
    )
    assert.deepStrictEqual(plateau.state.lastGood, { tokens: 3_000, estimate: 2_800 })
    // Grown by the floor less the slack: honest.
    const honest = OverflowDetector.observe(state, { tokens: 3_584, estimate: 3_500, floor: 2_100 })
    assert.deepStrictEqual([honest.verdict.truncated, honest.state.lastGoodFloor], [false, 2_100])
    // A floor that went down was an edit nobody declared: undecided, judged afresh.
    const edited = OverflowDetector.observe(state, { tokens: 2_000, estimate: 2_900, floor: 900 })
    assert.deepStrictEqual([edited.verdict.truncated, edited.verdict.rule], [false, "shrunk"])
    // A declared edit forgets the floor baseline with the rest of the conversation.
    const cleared = OverflowDetector.observe(state, { tokens: 1_000, estimate: 3_000, floor: 800, edited: "clearing" })
    assert.deepStrictEqual([cleared.verdict.truncated, cleared.state.lastGoodFloor], [false, 800])
    assert.isUndefined(OverflowDetector.reset(state, "compaction").lastGoodFloor)
  })

  it("a bad floor (negative, not a number) is ignored: the request is judged as if none was given", () => {
    for (const floor of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const { verdict, state } = OverflowDetector.observe(OverflowDetector.initial(), {
        tokens: 900,
        estimate: 800,
        floor
      })
      assert.deepStrictEqual([verdict.truncated, verdict.rule, state.lastGoodFloor], [
        false,
        "first-request",
        undefined
      ])
    }
  })
})
