/**
 * Whole growing conversations through a scripted server that truncates like Ollama (plateau and collapse), with
 * the detector observing every response. The server's "true" count differs from the harness's estimate by a
 * factor of 1.00–1.48, as real tokenizers do.
 */
import { formats, type Message } from "@ctxkit/core"
import { OverflowDetector } from "@ctxkit/overflow"
import { conversation } from "@ctxkit/testing"
import { tutorialConversation, tutorialKeys } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { exactTolerance } from "../src/internal/rules.ts"
import {
  answer,
  COLLAPSE_TOKENS,
  exactEstimate,
  mixedTokenizer,
  replay,
  scaledTokenizer,
  type ScriptedServer,
  serverSize,
  type Step,
  TEMPLATE_PER_MESSAGE,
  type Tokenizer
} from "./ScriptedServer.ts"

const canonical = formats.canonical

// The tutorial's experiment (`@ctxkit/testing/Tutorial`): its last request, and the answer the model gave.
const seedConversation: ReadonlyArray<Message> = [
  ...tutorialConversation,
  { role: "assistant", content: tutorialKeys.system }
]

const flaggedWrongly = (steps: ReadonlyArray<Step>) => steps.filter((s) => !s.reply.truncated && s.verdict.truncated)
const missed = (steps: ReadonlyArray<Step>) => steps.filter((s) => s.reply.truncated && !s.verdict.truncated)

/** A server whose window is `fraction` of the conversation's true size (at least 1,000 tokens). */
const serverFor = (
  messages: ReadonlyArray<Message>,
  mode: ScriptedServer["mode"],
  tokenizer: Tokenizer,
  fraction: number
): ScriptedServer => {
  const probe: ScriptedServer = { window: 0, mode, tokenizer }
  const total = messages.reduce((sum, m) => sum + serverSize(probe, canonical, m), 0)
  return { window: Math.max(1_000, Math.floor(total * fraction)), mode, tokenizer }
}

const exactDetector = () => OverflowDetector.initial({ counter: { id: "scripted-server", approximate: false } })

describe("the scripted server", () => {
  const server = (mode: ScriptedServer["mode"]): ScriptedServer => ({ window: 100, mode, tokenizer: (t) => t.length })
  const prompt: ReadonlyArray<Message> = [
    { role: "system", content: "s".repeat(20) },
    { role: "user", content: "t".repeat(30) },
    { role: "assistant", content: "a".repeat(16) },
    { role: "user", content: "u".repeat(40) }
  ]

  it("answers a prompt that fits with its true size", () => {
    assert.deepStrictEqual(answer({ ...server("plateau"), window: 1_000 }, canonical, prompt), {
      tokens: 122,
      total: 122,
      truncated: false,
      dropped: 0
    })
  })

  it("plateau: drops the oldest messages after the system prompt until the prompt fits, and reports what it kept", () => {
    // 24 + 34 + 20 + 44 = 122 > 100: the task (34) goes; 88 is kept.
    assert.deepStrictEqual(answer(server("plateau"), canonical, prompt), {
      tokens: 88,
      total: 122,
      truncated: true,
      dropped: 34
    })
  })

  it("collapse: reports 63", () => {
    assert.strictEqual(answer(server("collapse"), canonical, prompt).tokens, COLLAPSE_TOKENS)
  })
})

describe("the tutorial's conversation, turn by turn, through a truncating server", () => {
  const windows = Array.from({ length: 150 }, (_, i) => 2_000 + i * 41)
  const factors = [1, 1.12, 1.25, 1.37, 1.48]

  it("has 27 messages after the system prompt, estimated at 6,204 tokens", () => {
    const request = seedConversation.slice(0, -1)
    assert.strictEqual(request.length - 1, 27)
    const { steps } = replay(seedConversation, canonical, { window: 1e9, mode: "plateau", tokenizer: mixedTokenizer })
    assert.strictEqual(steps.length, 14)
    assert.strictEqual(steps.at(-1)?.estimate, 6_204)
  })

  it("collapse: EVERY truncated request is flagged and no untruncated one, at every window and tokenizer factor", () => {
    let truncated = 0
    for (const window of windows) {
      for (const factor of factors) {
        const { steps } = replay(seedConversation, canonical, {
          window,
          mode: "collapse",
          tokenizer: scaledTokenizer(factor)
        })
        assert.deepStrictEqual(flaggedWrongly(steps), [])
        assert.deepStrictEqual(missed(steps), [])
        truncated += steps.filter((s) => s.reply.truncated).length
      }
    }
    assert.isAbove(truncated, 3_000)
  })

  it("plateau: no untruncated request flagged; a truncated one is missed only at the first overflow, when just the task fell out, and the next request is flagged", () => {
    let truncated = 0
    let missedCount = 0
    for (const window of windows) {
      for (const factor of factors) {
        const tokenizer = scaledTokenizer(factor)
        const { steps } = replay(seedConversation, canonical, { window, mode: "plateau", tokenizer })
        assert.deepStrictEqual(flaggedWrongly(steps), [])
        truncated += steps.filter((s) => s.reply.truncated).length
        const first = steps.findIndex((s) => s.reply.truncated)
        for (const step of missed(steps)) {
          missedCount++
          const i = steps.indexOf(step)
          // The first overflow, where the server only had to drop the task message and its acknowledgement:
          // the reported size still grew with the new note. Or the last request, which only adds the short
          // question (growth under 200: not decided).
          const beforeFirstNote = [1, 2].reduce(
            (sum, k) => sum + serverSize({ window, mode: "plateau", tokenizer }, canonical, seedConversation[k]!),
            0
          )
          const onlyTheTask = i === first && step.reply.dropped <= beforeFirstNote
          assert.isTrue(
            onlyTheTask || step.verdict.rule === "below-min-growth",
            JSON.stringify({ window, factor, step })
          )
          // The next request is flagged, unless it is the short question again (growth under 200).
          const next = steps[i + 1]
          if (next !== undefined && next.verdict.rule !== "below-min-growth") {
            assert.isTrue(next.verdict.truncated, JSON.stringify({ window, factor, next }))
          }
        }
      }
    }
    // How often that happens, for the record: a few percent of the truncated requests.
    assert.isBelow(missedCount / truncated, 0.05)
  })

  it("plateau at the tutorial's 4,096 window: the first overflow drops a note and is flagged, like every request after it", () => {
    const { steps } = replay(seedConversation, canonical, {
      window: 4_096,
      mode: "plateau",
      tokenizer: scaledTokenizer(1.1)
    })
    const truncated = steps.filter((s) => s.reply.truncated)
    assert.isAbove(truncated.length, 5)
    assert.isTrue(truncated.every((s) => s.verdict.truncated && s.verdict.mode === "plateau"))
    // Each truncated verdict brackets the window: the server processed at most 4,096 tokens, and about
    // `overflowAt` (more than the window) did not fit.
    for (const step of truncated) {
      const window = step.verdict.apparentWindow
      assert.isAtMost(window?.tokens ?? Infinity, 4_096)
      assert.isAbove(window?.overflowAt ?? 0, 4_096)
    }
  })
})

describe("generated conversations (@ctxkit/testing), grown turn by turn through a truncating server", () => {
  const rendered = conversation("canonical", { maxTurns: 40 }).map((r) => r.messages as ReadonlyArray<Message>)
  const tokenizer = fc.oneof(
    fc.constant(mixedTokenizer),
    fc.double({ min: 1, max: 1.48, noNaN: true }).map((factor) => scaledTokenizer(factor))
  )
  const fraction = fc.double({ min: 0.1, max: 0.9, noNaN: true })
  const RUNS = { numRuns: runs.more }

  it("collapse: EVERY truncated request is flagged, and no untruncated one", () => {
    fc.assert(
      fc.property(rendered, tokenizer, fraction, (messages, tok, f) => {
        const { steps } = replay(messages, canonical, serverFor(messages, "collapse", tok, f))
        assert.deepStrictEqual(flaggedWrongly(steps), [])
        assert.deepStrictEqual(missed(steps), [])
      }),
      RUNS
    )
  })

  it("plateau: no untruncated request is flagged; a miss is one of the documented blind spots; a plateau cannot hide for long", () => {
    fc.assert(
      fc.property(rendered, tokenizer, fraction, (messages, tok, f) => {
        const server = serverFor(messages, "plateau", tok, f)
        const { steps } = replay(messages, canonical, server)
        assert.deepStrictEqual(flaggedWrongly(steps), [])
        for (const step of steps.filter((s) => s.reply.truncated)) {
          const { baseline, minGrowth, rule, sample, truncated } = step.verdict
          if (baseline === null) {
            // A first request: judged by the ratio only (a long system prompt survives, the ratio stays normal).
            if (!truncated) assert.include(["first-request", "first-request-small"], rule)
            continue
          }
          const grown = sample.estimate - baseline.estimate
          if (!truncated) {
            // Growth under the minimum, or a drop smaller than what the request added: the reported size
            // still grew past every earlier report, and by at least 0.025 of the estimated growth (what runs
            // of spaces cost: no safe rule can flag less).
            assert.isTrue(
              grown < minGrowth || sample.tokens - baseline.tokens >= 0.025 * grown,
              JSON.stringify(step.verdict)
            )
            assert.isAbove(sample.tokens, baseline.tokens)
          }
          // The server never reports more than its window, so once the estimate has grown, since the last
          // request accepted, by forty times the room that request left, the plateau shows.
          if (grown >= minGrowth && 0.025 * grown > server.window - baseline.tokens) assert.isTrue(truncated)
        }
      }),
      RUNS
    )
  })

  it("plateau, with an exact counter for the served model: every drop larger than the margin is flagged, and no untruncated request", () => {
    fc.assert(
      fc.property(rendered, tokenizer, fraction, (messages, tok, f) => {
        const server = serverFor(messages, "plateau", tok, f)
        const { steps } = replay(messages, canonical, server, {
          detector: exactDetector(),
          estimator: exactEstimate(tok)
        })
        assert.deepStrictEqual(flaggedWrongly(steps), [])
        // The last request the detector accepted: where it was, and what the server had dropped from it (when a
        // truncation went unseen, the baseline itself is short).
        let good = { at: 0, dropped: 0 }
        for (const step of steps) {
          const { baseline, sample } = step.verdict
          // What the exact count does not include: the template's tokens for the messages since the baseline
          // (all of them, for a first request).
          const template = TEMPLATE_PER_MESSAGE * (step.at - (baseline === null ? 0 : good.at))
          const counted = baseline === null ? sample.estimate : sample.estimate - baseline.estimate
          const margin = exactTolerance(counted)
          const lost = step.reply.dropped - (baseline === null ? 0 : good.dropped)
          if (lost > template + margin) {
            assert.isTrue(step.verdict.truncated, JSON.stringify({ step, template, margin }))
          }
          if (step.verdict.calibrate) good = { at: step.at, dropped: step.reply.dropped }
        }
      }),
      RUNS
    )
  })
})
