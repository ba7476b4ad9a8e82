/**
 * Law L14 (quality.md) and the detector's own invariants, as fast-check properties over arbitrary histories:
 * random samples (including bad numbers) and growing conversations that now and then plateau or collapse.
 */
import { approximateCounter } from "@ctxkit/budget"
import { cl100kCounter } from "@ctxkit/budget/cl100k"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { tokenFloor } from "@ctxkit/budget/TokenFloor"
import {
  contextOverflow,
  looksTruncated,
  type ObservedRequest,
  OverflowDetector,
  type OverflowDetectorState,
  overflowMessage,
  OverflowVerdict
} from "@ctxkit/overflow"
import type { PromptEdit } from "@ctxkit/overflow/DetectorState"
import type { RequestKind } from "@ctxkit/overflow/OverflowVerdict"
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

/** Tool-result content an honest server may well see: ordinary text, and the low- and high-density extremes. */
const content = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.tuple(fc.constantFrom(" ", "\n", "\t", "=", "-", ".", "0", "的", " \n"), fc.integer({ min: 1, max: 6_000 }))
    .map(([unit, n]) => unit.repeat(n)),
  fc.tuple(fc.string({ minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 80 })).map(([line, n]) =>
    `${line}\n`.repeat(n)
  ),
  fc.uint8Array({ maxLength: 3_000 }).map((bytes) => Buffer.from(bytes).toString("base64")),
  fc.json({ maxDepth: 3 }).map((json) => JSON.stringify(JSON.parse(json)))
)

/** A server's chat-template tokens per message: at least one (role markers), whatever the harness adds. */
const TEMPLATE = { system: 4, user: 5, assistant: 6, tool: 3 } as const

type Role = keyof typeof TEMPLATE

interface HonestRequest {
  readonly tokens: number
  readonly approximate: number
  readonly exact: number
  /** The token floor of the prompt's texts (`tokenFloor` of each message, summed). */
  readonly floor: number
  readonly kind: RequestKind
  readonly edited: PromptEdit | undefined
}

/**
 * An honest conversation: messages appended one by one (any content), now and then an edit that removes or
 * shortens earlier messages (declared on the next request), now and then a compaction request (the history
 * plus an instruction). The server keeps every token: it reports its own count (o200k plus its template) of
 * the whole prompt. The harness estimates it by characters / 4 plus 4 a message, or counts it exactly (o200k
 * plus 4 a message: not the server's template).
 */
const honestConversation = fc.record({
  system: fc.string({ maxLength: 2_000 }),
  steps: fc.array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          step: fc.constant("append" as const),
          role: fc.constantFrom<Role>("user", "assistant", "tool"),
          text: content
        })
      },
      {
        weight: 1,
        arbitrary: fc.record({
          step: fc.constant("edit" as const),
          edit: fc.constantFrom<PromptEdit>("compaction", "clearing", "reduction", "epoch"),
          keep: fc.double({ min: 0, max: 1, noNaN: true })
        })
      },
      {
        weight: 1,
        arbitrary: fc.record({ step: fc.constant("compact" as const), instruction: fc.string({ maxLength: 400 }) })
      }
    ),
    { maxLength: 24 }
  )
}).map(({ steps, system }) => {
  const size = (role: Role, text: string) => ({
    server: o200kCounter.count(text) + TEMPLATE[role],
    approximate: approximateCounter.count(text) + 4,
    exact: o200kCounter.count(text) + 4,
    floor: tokenFloor(text)
  })
  let messages = [size("system", system)]
  const requests: Array<HonestRequest> = []
  let edited: PromptEdit | undefined
  const total = (list: ReadonlyArray<ReturnType<typeof size>>) =>
    list.reduce((acc, m) => ({
      server: acc.server + m.server,
      approximate: acc.approximate + m.approximate,
      exact: acc.exact + m.exact,
      floor: acc.floor + m.floor
    }), { server: 0, approximate: 0, exact: 0, floor: 0 })
  for (const step of steps) {
    if (step.step === "edit") {
      // Removes the oldest non-system messages, or shortens them to nothing, in place.
      const cut = Math.floor((messages.length - 1) * step.keep)
      messages = [messages[0]!, ...messages.slice(1 + cut)]
      edited = step.edit
      continue
    }
    if (step.step === "compact") {
      const all = total([...messages, size("user", step.instruction)])
      requests.push({
        tokens: all.server,
        approximate: all.approximate,
        exact: all.exact,
        floor: all.floor,
        kind: "compaction",
        edited
      })
      edited = undefined
      continue
    }
    messages = [...messages, size(step.role, step.text)]
    if (step.role === "assistant") continue
    const all = total(messages)
    requests.push({
      tokens: all.server,
      approximate: all.approximate,
      exact: all.exact,
      floor: all.floor,
      kind: "turn",
      edited
    })
    edited = undefined
  }
  return { requests }
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

  it("an honest request is never flagged, whatever its content, with either counter, with or without its floor, across declared edits", () => {
    fc.assert(
      fc.property(honestConversation, ({ requests }) => {
        for (const [exact, floored] of [[false, false], [false, true], [true, false], [true, true]] as const) {
          let state = OverflowDetector.initial({ counter: exact ? o200kCounter : approximateCounter })
          for (const request of requests) {
            const { state: next, verdict } = OverflowDetector.observe(state, {
              tokens: request.tokens,
              estimate: exact ? request.exact : request.approximate,
              ...(floored ? { floor: request.floor } : {}),
              ...(request.kind === "turn" ? {} : { kind: request.kind }),
              ...(request.edited === undefined ? {} : { edited: request.edited })
            })
            assert.isFalse(
              verdict.truncated,
              `${exact ? "exact" : "approximate"}${floored ? " with floor" : ""}: ${JSON.stringify(verdict)}`
            )
            state = next
          }
        }
      }),
      { numRuns: runs.some }
    )
  })

  it("tokenFloor never exceeds the o200k or cl100k count, alone or between other texts, whatever the content", () => {
    // Punctuation, slashes and newlines are where pieces could span words; Unicode spaces where definitions differ.
    const tricky = fc.array(
      fc.constantFrom(
        "!",
        "/",
        "\n",
        "\r\n",
        " ",
        "\t",
        "\u00a0",
        "\u3000",
        "\u0085",
        "\ufeff",
        "a",
        "1",
        "的",
        "😀",
        "'s",
        "??"
      ),
      { maxLength: 200 }
    ).map((parts) => parts.join(""))
    const text = fc.oneof(content, tricky)
    fc.assert(
      fc.property(text, text, text, (before, piece, after) => {
        for (const exact of [o200kCounter, cl100kCounter]) {
          assert.isAtMost(tokenFloor(piece), exact.count(piece), exact.id)
          // Pieces set side by side with nothing between them: the floors still add up under the count.
          assert.isAtMost(
            tokenFloor(before) + tokenFloor(piece) + tokenFloor(after),
            exact.count(before + piece + after),
            exact.id
          )
        }
      }),
      RUNS
    )
  })

  it("looksTruncated never flags a request whose reported growth is at least OVERFLOW_GROWTH_RATIO of its estimated growth", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        fc.constantFrom(200, 50),
        (tokens, estimate, grow, ratio, minGrowth) => {
          const prev = { tokens, estimate }
          const cur = { tokens: tokens + Math.ceil(ratio * grow), estimate: estimate + grow }
          assert.isFalse(looksTruncated(prev, cur, minGrowth))
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
          // Calibration exactly when usage and an estimate are there and the request was neither flagged nor
          // suspect.
          const decidable = verdict.rule !== "no-usage" && verdict.rule !== "no-estimate"
          assert.strictEqual(verdict.calibrate, decidable && !verdict.truncated && verdict.suspect !== true)
          // The baseline only ever moves to a good turn, or is forgotten (an edit, declared or not).
          if (after.lastGood !== before.lastGood && after.lastGood !== null) {
            assert.isTrue(verdict.calibrate && verdict.kind === "turn", JSON.stringify(verdict))
            assert.deepStrictEqual(after.lastGood, verdict.sample)
          }
        }
      }),
      RUNS
    )
  })

  it("whatever looksTruncated flags is flagged or held as a suspect (never trusted); every flag names its numbers", () => {
    fc.assert(
      fc.property(detectorAfter, ({ steps }) => {
        for (const { before, request, verdict } of steps) {
          const minGrowth = request.kind === "compaction" ? 50 : 200
          // The detector refuses bad numbers (an infinite estimate) that the bare formula would still judge.
          if (verdict.rule === "no-usage" || verdict.rule === "no-estimate") continue
          if (looksTruncated(before.lastGood, request, minGrowth) && !verdict.truncated) {
            // An exact count that matches is stronger than the ratio; an undeclared edit is judged afresh.
            assert.isTrue(
              verdict.suspect === true || before.exact || verdict.rule === "shrunk",
              JSON.stringify(verdict)
            )
          }
          if (verdict.truncated) assert.notDeepEqual(verdict.evidence, {})
          if (verdict.suspect === true) assert.isFalse(verdict.truncated)
        }
      }),
      RUNS
    )
  })

  it("reset forgets the conversation; a model change forgets everything", () => {
    fc.assert(
      fc.property(
        detectorAfter,
        fc.constantFrom("compaction" as const, "clearing" as const, "reduction" as const, "epoch" as const),
        randomRequest,
        ({ counter: c, state }, cause, request) => {
          const fresh = OverflowDetector.initial({ counter: c })
          assert.deepStrictEqual(OverflowDetector.reset(state, "model-change"), fresh)
          const after = OverflowDetector.reset(state, cause)
          assert.deepStrictEqual([after.lastGood, after.ceiling, after.overflowEstimate], [null, null, null])
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
