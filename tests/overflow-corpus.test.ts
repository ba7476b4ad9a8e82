/**
 * The real corpus replayed as growing sequences of requests (one per assistant turn, the prompt being every
 * message before it) through the overflow detector: with honest usage nothing is flagged; through a scripted
 * server that truncates at 25% of the conversation's size, the overflow is found.
 */
import { decodeConversation, formats, type Message } from "@ctxkit/core"
import { OVERFLOW_EXACT_MIN_SHORTFALL, OVERFLOW_EXACT_SHORTFALL, OverflowDetector } from "@ctxkit/overflow"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import {
  exactEstimate,
  factorOf,
  mixedTokenizer,
  replay,
  scaledTokenizer,
  type ScriptedServer,
  serverSize,
  type Step,
  TEMPLATE_PER_MESSAGE,
  type Tokenizer
} from "../packages/overflow/test/ScriptedServer.ts"
import { corpusAbsent, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()
const canonical = formats.canonical

const exactDetector = () => OverflowDetector.initial({ counter: { id: "scripted-server", approximate: false } })

/** A window at `fraction` of the conversation's true size on the server. */
const windowAt = (messages: ReadonlyArray<Message>, tokenizer: Tokenizer, fraction: number): number => {
  const probe: ScriptedServer = { window: 0, mode: "plateau", tokenizer }
  return Math.floor(messages.reduce((sum, m) => sum + serverSize(probe, canonical, m), 0) * fraction)
}

const flaggedWrongly = (steps: ReadonlyArray<Step>) => steps.filter((s) => !s.reply.truncated && s.verdict.truncated)

describe.skipIf(corpusAbsent)("overflow detection on real transcripts (../shared/corpus/normalized)", () => {
  for (const conversation of corpus) {
    const decoded = decodeConversation(conversation.messages, { format: canonical })
    const messages: ReadonlyArray<Message> = Result.isSuccess(decoded) ? decoded.success : []
    // The honest server's tokenizer: 1.00–1.48× the estimate, a different factor for each conversation.
    const factor = factorOf(conversation.id)
    const name = `${conversation.source}/${conversation.id}`

    it(`${name}: honest usage (×${factor.toFixed(2)}, and per-message mixed) is never flagged`, () => {
      assert.isTrue(Result.isSuccess(decoded))
      const huge: ScriptedServer = {
        window: Number.MAX_SAFE_INTEGER,
        mode: "plateau",
        tokenizer: scaledTokenizer(factor)
      }
      for (const server of [huge, { ...huge, tokenizer: mixedTokenizer }]) {
        const approximate = replay(messages, canonical, server).steps
        const exact = replay(messages, canonical, server, {
          detector: exactDetector(),
          estimator: exactEstimate(server.tokenizer)
        }).steps
        for (const steps of [approximate, exact]) {
          assert.deepStrictEqual(steps.filter((s) => s.verdict.truncated).map((s) => s.verdict), [])
          assert.isTrue(steps.every((s) => s.verdict.calibrate))
        }
        // Reported over estimated, as real servers: between 1.00 and 1.48.
        for (const step of approximate) {
          const ratio = step.reply.tokens / step.estimate
          assert.isTrue(ratio >= 1 && ratio <= 1.48, `ratio ${ratio}`)
        }
      }
    })

    it(`${name}: a server that collapses at 25% of the conversation is caught at the first request over its window`, () => {
      const tokenizer = scaledTokenizer(factor)
      const server: ScriptedServer = { window: windowAt(messages, tokenizer, 0.25), mode: "collapse", tokenizer }
      const { steps } = replay(messages, canonical, server)
      const first = steps.find((s) => s.reply.truncated)
      if (first !== undefined) assert.isTrue(first.verdict.truncated, JSON.stringify(first))
      assert.deepStrictEqual(flaggedWrongly(steps), [])
      assert.deepStrictEqual(steps.filter((s) => s.reply.truncated && !s.verdict.truncated), [])
    })

    it(`${name}: a server that plateaus at 25%, with an exact counter: the first request over the window is caught unless it lost less than the margin`, () => {
      const tokenizer = scaledTokenizer(factor)
      const server: ScriptedServer = { window: windowAt(messages, tokenizer, 0.25), mode: "plateau", tokenizer }
      const { steps } = replay(messages, canonical, server, {
        detector: exactDetector(),
        estimator: exactEstimate(tokenizer)
      })
      assert.deepStrictEqual(flaggedWrongly(steps), [])
      const i = steps.findIndex((s) => s.reply.truncated)
      const first = steps[i]
      if (first === undefined) return
      if (!first.verdict.truncated) {
        // Only a loss within the template tokens plus the margin goes unseen...
        const baseline = first.verdict.baseline
        const since = baseline === null ? 0 : (steps[i - 1]?.at ?? 0)
        const counted = first.estimate - (baseline?.estimate ?? 0)
        const margin = Math.max(OVERFLOW_EXACT_MIN_SHORTFALL, OVERFLOW_EXACT_SHORTFALL * counted)
        assert.isAtMost(
          first.reply.dropped,
          TEMPLATE_PER_MESSAGE * (first.at - since) + margin,
          JSON.stringify(first)
        )
        // ... and the overflow is caught later in the conversation.
        assert.isTrue(steps.slice(i + 1).some((s) => s.verdict.truncated))
      }
    })

    it(`${name}: a server that plateaus at 25%, approximate counter: nothing untruncated is flagged; misses are the documented blind spots`, () => {
      const tokenizer = scaledTokenizer(factor)
      const server: ScriptedServer = { window: windowAt(messages, tokenizer, 0.25), mode: "plateau", tokenizer }
      const { steps } = replay(messages, canonical, server)
      assert.deepStrictEqual(flaggedWrongly(steps), [])
      for (const step of steps.filter((s) => s.reply.truncated && !s.verdict.truncated)) {
        const { baseline, minGrowth, rule, sample } = step.verdict
        if (baseline === null) {
          // The first request already over the window: a long system prompt and the task survive, and the
          // ratio stays in the untruncated range.
          assert.include(["first-request", "first-request-small"], rule)
        } else {
          // Growth under the minimum, or a drop smaller than what the request added.
          const grown = sample.estimate - baseline.estimate
          assert.isTrue(grown < minGrowth || sample.tokens - baseline.tokens >= 0.1 * grown)
        }
      }
    })
  }
})
