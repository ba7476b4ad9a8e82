import { ContextOverflow, contextOverflow, OverflowDetector, overflowMessage } from "@ctxkit/overflow"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"

const afterGood = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 3_700, estimate: 3_450 }).state
const plateau = OverflowDetector.observe(afterGood, { tokens: 3_725, estimate: 6_204 }).verdict
const collapse = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 63, estimate: 3_975 }).verdict
const compaction = OverflowDetector.observe(afterGood, { tokens: 3_600, estimate: 3_510, kind: "compaction" }).verdict

describe("contextOverflow", () => {
  it("is the named outcome `context_overflow` for a truncated turn: end the run, keep the history", () => {
    const outcome = contextOverflow(plateau, { configuredWindow: 32_768, windowSetting: "--context-window" })
    assert.isTrue(Schema.is(ContextOverflow)(outcome))
    assert.strictEqual(outcome?.reason, "context_overflow")
    assert.strictEqual(outcome?.kind, "turn")
    assert.strictEqual(outcome?.action, "end-run")
    assert.strictEqual(outcome?.verdict, plateau)
    assert.strictEqual(
      outcome?.message,
      overflowMessage(plateau, { configuredWindow: 32_768, windowSetting: "--context-window" })
    )
    assert.deepStrictEqual(Schema.decodeUnknownSync(ContextOverflow)(JSON.parse(JSON.stringify(outcome))), outcome)
  })

  it("for a compaction request: leave the conversation as it was", () => {
    const outcome = contextOverflow(compaction)
    assert.deepStrictEqual([outcome?.kind, outcome?.action], ["compaction", "keep-conversation"])
  })

  it("is nothing when the request did not look truncated", () => {
    const fine = OverflowDetector.observe(afterGood, { tokens: 4_300, estimate: 4_000 }).verdict
    assert.isUndefined(contextOverflow(fine))
    const unknown = OverflowDetector.observe(afterGood, { tokens: 0, estimate: 9_000 }).verdict
    assert.isUndefined(contextOverflow(unknown))
  })
})

describe("overflowMessage", () => {
  it("says what the server did, with its numbers, what was done, and the window it appears to have", () => {
    const message = overflowMessage(plateau, { configuredWindow: 32_768, windowSetting: "--context-window" })
    for (
      const part of [
        "silently dropped part of the prompt",
        "reported 3725 prompt tokens for a request estimated at 6204",
        "grew by 2754 tokens and the reported size grew by 25",
        "drops the oldest ones, where the task usually is",
        "The answer was discarded; the conversation history is kept whole.",
        "appears to have a context window of about 3725 tokens",
        "configured for 32768",
        "set --context-window to the window the server really has (about 3725 tokens)",
        "raise the server's window to 32768"
      ]
    ) assert.include(message, part)
  })

  it("names the settings of the common local servers, generically", () => {
    for (const verdict of [plateau, collapse, compaction]) {
      const message = overflowMessage(verdict)
      assert.include(message, "Set the real context window")
      assert.include(message, "num_ctx")
      assert.include(message, "OLLAMA_CONTEXT_LENGTH")
      assert.include(message, "llama.cpp: -c / --ctx-size")
      assert.include(message, "the harness's context window")
    }
  })

  it("a collapse on a first request: nothing is known about the window but that the request did not fit", () => {
    const message = overflowMessage(collapse)
    assert.include(message, "reported 63 prompt tokens for a request estimated at 3975, under 2.5% of it")
    assert.include(message, "answered from almost none of it")
    assert.include(message, "The server's context window is smaller than this request.")
  })

  it("a compaction request: the compaction was not applied", () => {
    const message = overflowMessage(compaction, { windowSetting: "contextWindow" })
    assert.include(message, "dropped part of the compaction request")
    assert.include(message, "no more than the 3700 it reported for a smaller request")
    assert.include(message, "the compaction was not applied and the conversation was left as it was")
    assert.include(message, "set contextWindow to the window the server really has (about 3700 tokens)")
  })

  it("an exact-counter verdict speaks of the count, not an estimate", () => {
    const detector = OverflowDetector.initial({ counter: { id: "qwen3", approximate: false } })
    const { verdict } = OverflowDetector.observe(detector, { tokens: 3_725, estimate: 7_445 })
    assert.include(overflowMessage(verdict), "for a request counted at 7445")
    // A configured window that is not a number is left out rather than printed.
    assert.notInclude(overflowMessage(verdict, { configuredWindow: Number.NaN }), "NaN")
  })
})
