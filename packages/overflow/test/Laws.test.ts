/**
 * Law L14 (quality.md) and the detector's own invariants, as fast-check properties over arbitrary histories:
 * random samples (including bad numbers) and growing conversations that now and then plateau or collapse.
 */
import {
  contextOverflow,
  looksTruncated,
  type ObservedRequest,
  OverflowDetector,
  type OverflowDetectorState,
  overflowMessage,
  OverflowVerdict,
  type RequestKind
} from "@ctxkit/overflow"
import { purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const counter = fc.constantFrom(
  { id: "approximate-chars-v1", approximate: true },
  { id: "exact-for-the-served-model", approximate: false }
)

const kind: fc.Arbitrary<RequestKind | undefined> = fc.constantFrom(undefined, "turn", "compaction")

const withKind = (tokens: number, estimate: number, k: RequestKind | undefined): ObservedRequest =>
  k === undefined ? { tokens, estimate } : { tokens, estimate, kind: k }

/** Any number a provider or a caller might hand over, good or bad. */
const anyNumber = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 300_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -1_000, max: 0 }) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 63) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 10_000, noNaN: true }) }
)

const randomRequest = fc.tuple(anyNumber, anyNumber, kind).map(([t, e, k]) => withKind(t, e, k))

/**
 * A growing conversation: each turn adds 0–3,000 estimated tokens, reported at 0.22–1.48× (honest), or the
 * server plateaus (reports what it reported before, give or take) or collapses (63).
 */
const growing = fc.tuple(
  fc.integer({ min: 1, max: 4_000 }),
  fc.array(
    fc.record({
      grow: fc.integer({ min: 0, max: 3_000 }),
      ratio: fc.double({ min: 0.22, max: 1.48, noNaN: true }),
      server: fc.constantFrom("honest", "honest", "honest", "plateau", "collapse", "silent"),
      jitter: fc.integer({ min: -50, max: 50 }),
      kind
    }),
    { maxLength: 30 }
  )
).map(([start, turns]) => {
  const out: Array<ObservedRequest> = []
  let estimate = start
  let tokens = start
  for (const turn of turns) {
    estimate += turn.grow
    const honest = tokens + Math.round(turn.grow * turn.ratio)
    const reported = turn.server === "honest"
      ? honest
      : turn.server === "plateau"
      ? Math.max(1, tokens + turn.jitter)
      : turn.server === "collapse"
      ? 63
      : 0
    if (turn.server === "honest") tokens = honest
    out.push(withKind(reported, estimate, turn.kind))
  }
  return out
})

const history = fc.oneof(fc.array(randomRequest, { maxLength: 20 }), growing)

/** A detector after a history, with every step along the way. */
const detectorAfter = fc.tuple(counter, history).map(([c, requests]) => {
  let state = OverflowDetector.initial({ counter: c })
  const steps: Array<
    {
      readonly before: OverflowDetectorState
      readonly after: OverflowDetectorState
      readonly verdict: OverflowVerdict
      readonly request: ObservedRequest
    }
  > = []
  for (const request of requests) {
    const { state: after, verdict } = OverflowDetector.observe(state, request)
    steps.push({ before: state, after, verdict, request })
    state = after
  }
  return { counter: c, state, steps }
})

const RUNS = { numRuns: runs.many }

describe("law L14: detection", () => {
  it("no usage (tokens <= 0, or not a number) never decides, never calibrates, and changes nothing", () => {
    fc.assert(
      fc.property(
        detectorAfter,
        fc.constantFrom(0, -1, -4_096, Number.NaN),
        anyNumber,
        kind,
        ({ state }, tokens, estimate, k) => {
          const observed = OverflowDetector.observe(state, withKind(tokens, estimate, k))
          assert.strictEqual(observed.state, state)
          assert.strictEqual(observed.verdict.truncated, false)
          assert.strictEqual(observed.verdict.calibrate, false)
          assert.strictEqual(observed.verdict.rule, "no-usage")
          assert.isFalse(looksTruncated(state.lastGood, { tokens, estimate }))
        }
      ),
      RUNS
    )
  })

  it("a request whose reported growth keeps up with its estimated growth is never flagged", () => {
    fc.assert(
      fc.property(
        detectorAfter,
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        kind,
        ({ state }, grow, extra, k) => {
          const base = state.lastGood
          // With a baseline: both grow, the reported size at least as much as the estimate. Without one (a first
          // request), "growth" is the whole request: at least the estimate is reported.
          const estimate = (base?.estimate ?? 0) + grow + 1
          const tokens = base === null ? estimate + extra : base.tokens + (estimate - base.estimate) + extra
          const { verdict } = OverflowDetector.observe(state, withKind(tokens, estimate, k))
          assert.strictEqual(verdict.truncated, false, `${verdict.rule}: ${JSON.stringify(verdict)}`)
          assert.isFalse(looksTruncated(base, { tokens, estimate }))
        }
      ),
      RUNS
    )
  })
})

describe("OverflowDetector invariants", () => {
  it("a flagged sample never becomes the last good sample and never calibrates", () => {
    fc.assert(
      fc.property(detectorAfter, ({ steps }) => {
        for (const { after, before, verdict } of steps) {
          if (verdict.truncated) {
            assert.strictEqual(after.lastGood, before.lastGood)
            assert.isFalse(verdict.calibrate)
          }
          // Calibration exactly when usage and an estimate are there and the request did not look truncated.
          const decidable = verdict.rule !== "no-usage" && verdict.rule !== "no-estimate"
          assert.strictEqual(verdict.calibrate, decidable && !verdict.truncated)
          // The baseline only ever moves to a good turn.
          if (after.lastGood !== before.lastGood) {
            assert.isTrue(verdict.calibrate && verdict.kind === "turn")
            assert.deepStrictEqual(after.lastGood, verdict.sample)
          }
        }
      }),
      RUNS
    )
  })

  it("flags whatever looksTruncated flags (on usable numbers); beyond it only the collapse and exact-counter rules flag", () => {
    fc.assert(
      fc.property(detectorAfter, ({ steps }) => {
        for (const { before, request, verdict } of steps) {
          const minGrowth = request.kind === "compaction" ? 50 : 200
          // The detector refuses bad numbers (an infinite estimate) that the bare formula would still judge.
          if (verdict.rule === "no-usage" || verdict.rule === "no-estimate") continue
          const seed = looksTruncated(before.lastGood, request, minGrowth)
          if (seed) assert.isTrue(verdict.truncated)
          if (verdict.truncated && !seed) {
            assert.include(["collapse", "exact-first-request", "exact-growth"], verdict.rule)
            if (!before.exact) assert.strictEqual(verdict.rule, "collapse")
          }
        }
      }),
      RUNS
    )
  })

  it("reset forgets the conversation; a model change forgets everything", () => {
    fc.assert(
      fc.property(
        detectorAfter,
        fc.constantFrom("compaction" as const, "clearing" as const),
        randomRequest,
        ({ counter: c, state }, cause, request) => {
          const fresh = OverflowDetector.initial({ counter: c })
          assert.deepStrictEqual(OverflowDetector.reset(state, "model-change"), fresh)
          const after = OverflowDetector.reset(state, cause)
          assert.isNull(after.lastGood)
          const judged = OverflowDetector.observe(after, request).verdict
          const fromScratch = OverflowDetector.observe(fresh, request).verdict
          assert.isNull(judged.baseline)
          if (!c.approximate) return
          // With an approximate counter nothing learned about the server takes part in a decision.
          assert.deepStrictEqual(
            [judged.truncated, judged.rule, judged.calibrate],
            [fromScratch.truncated, fromScratch.rule, fromScratch.calibrate]
          )
        }
      ),
      RUNS
    )
  })

  it("is pure: deep-frozen inputs, equal results; verdicts and outcomes are Schema-valid", () => {
    fc.assert(
      fc.property(detectorAfter, randomRequest, ({ state }, request) => {
        assert.deepStrictEqual(
          purityViolations((input) => OverflowDetector.observe(input.state, input.request), { state, request }),
          []
        )
        const { verdict } = OverflowDetector.observe(state, request)
        assert.isTrue(Schema.is(OverflowVerdict)(verdict))
        assert.deepStrictEqual(purityViolations((v) => contextOverflow(v, { configuredWindow: 32_768 }), verdict), [])
        assert.deepStrictEqual(purityViolations((v) => overflowMessage(v), verdict), [])
        assert.deepStrictEqual(
          purityViolations((s) => OverflowDetector.reset(s, "compaction"), state),
          []
        )
      }),
      RUNS
    )
  })
})
