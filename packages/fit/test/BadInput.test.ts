import { formats, type Message } from "@ctxkit/core"
import { bm25Scores, type ContextStrategy, fitOrFail, shiftContext, strategies } from "@ctxkit/fit"
import { deepFreeze, fitViolations, partitionViolations, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { NotAConversation, OptionAdjusted } from "../src/Diagnostics.ts"

const count = (text: string): number => Math.ceil(text.length / 4)
const builtins: ReadonlyArray<ContextStrategy> = Object.values(strategies)

const nested = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = [{ type: "text", text: "x", nested: value }]
  return value
}

/** Messages that are not messages, or are barely: none may crash fitting. */
const garbage: ReadonlyArray<unknown> = deepFreeze([
  null,
  undefined,
  42,
  "a string",
  [],
  {},
  { role: 42, content: { not: "text" } },
  { role: "tool", toolCallId: 7, content: null },
  { role: "assistant", toolCalls: "not an array", content: [null, 1, { type: "text" }] },
  { role: "assistant", content: "", toolCalls: [{ id: "dup", name: "a", arguments: "{}" }, { id: "dup" }] },
  { role: "tool", toolCallId: "dup", content: "r" },
  { role: "tool", toolCallId: "orphan", content: "\u0000nul\u0000 e\u0301 👩‍👩‍👧 \uD83D" },
  { role: "user", content: nested(2_000) },
  { role: "system", source: "memory", content: "m", meta: { relevance: "high", manualExcluded: "yes" } },
  { role: "user", content: "the request" }
])

describe("bad input", () => {
  it("messages that are not a conversation never fit: nothing kept, fits false, a diagnostic naming them", () => {
    for (const bad of [null, "messages", 42, { length: 3 }, { messages: [{ role: "user", content: "hi" }] }]) {
      for (const strategy of builtins) {
        const result = strategy.fit(bad as never, count, 100)
        assert.deepStrictEqual(result.kept, [])
        assert.deepStrictEqual(result.excluded, [])
        assert.isFalse(result.fits)
        assert.instanceOf(result.diagnostics[0], NotAConversation)
      }
    }
  })

  it("garbage entries never crash any strategy, and the laws still hold", () => {
    for (const strategy of builtins) {
      for (const budget of [1, 5, 20, 60, 1_000]) {
        for (const format of [formats.auto, formats.canonical, formats.anthropic, formats.openaiResponses]) {
          const result = strategy.fit(garbage, count, budget, { format: format as never, compress: { threshold: 1 } })
          assert.deepStrictEqual(
            partitionViolations(garbage, {
              kept: result.kept,
              excluded: result.excluded.map((e) => e.message),
              inserted: result.inserted,
              replaced: result.truncated
            }),
            []
          )
        }
        assert.deepStrictEqual(fitViolations(strategy, garbage, budget, { purity: false }), [])
      }
    }
  })

  it("a 50 MB message is handled: counted, compressed or dropped, never copied whole into a summary", () => {
    const huge = "x".repeat(50_000_000)
    const input: ReadonlyArray<Message> = [
      { role: "user", content: huge },
      { role: "assistant", content: "ok" },
      { role: "user", content: "next" }
    ]
    const dropped = shiftContext(input, count, 100, { format: formats.canonical })
    assert.deepStrictEqual(dropped.excluded.map((e) => e.index), [0])
    const compressed = shiftContext(input, count, 1_000, { format: formats.canonical, compress: true })
    assert.strictEqual(compressed.truncated.length, 1)
    assert.isTrue(compressed.fits)
    const summarized = strategies.summarize.fit(input, count, 200, { format: formats.canonical })
    assert.isTrue(summarized.summaryCreated)
    assert.isBelow(String((summarized.inserted[0] as Message).content).length, 400)
  })

  it("options that are not what they should be are replaced, with a diagnostic", () => {
    const input: ReadonlyArray<Message> = [{ role: "user", content: "x".repeat(400) }, { role: "user", content: "y" }]
    const badFormat = shiftContext(input, count, 50, { format: { name: "nope" } as never })
    assert.deepStrictEqual(
      badFormat.diagnostics[0],
      new OptionAdjusted({ option: "format", given: "an object", used: "auto" })
    )
    assert.deepStrictEqual(badFormat.kept, [input[1]])
    const badCompress = shiftContext(input, count, 50, { compress: { threshold: -1, keep: Number.NaN } })
    assert.deepStrictEqual(badCompress.diagnostics.map((d) => d._tag), ["OptionAdjusted", "OptionAdjusted"])
    assert.strictEqual(badCompress.truncated.length, 0)
    for (const options of [null, 42, "options", { perMessageOverhead: -4 }, { cache: {} }, { removalPriority: 3 }]) {
      assert.isTrue(shiftContext(input, count, 50, options as never).fits)
    }
  })

  it("countTokens that is not a counter falls back to the approximate count", () => {
    const input: ReadonlyArray<Message> = [{ role: "user", content: "hello world" }]
    for (const bad of [undefined, null, 42, { count: "no" }, { id: 3, count: () => 1 }]) {
      const result = shiftContext(input, bad as never, 50)
      assert.strictEqual(result.tokens, bad !== null && typeof bad === "object" && bad.id === 3 ? 5 : 7)
    }
  })

  it("deep-frozen input works, and the same call twice gives equal results", () => {
    for (const strategy of builtins) {
      assert.deepStrictEqual(
        purityViolations((ms: ReadonlyArray<unknown>) => strategy.fit(ms, count, 30, { compress: true }), garbage),
        []
      )
    }
  })

  it("fitOrFail turns a throwing strategy into a defect, not a crash at construction", () => {
    const throwing: ContextStrategy = {
      id: "throws",
      fit: () => {
        throw new Error("bad plugin")
      }
    }
    const effect = fitOrFail([], count, 100, { strategy: throwing })
    assert.isTrue(Exit.isFailure(Effect.runSyncExit(effect)))
  })

  it("bm25Scores takes anything", () => {
    assert.deepStrictEqual(bm25Scores(null as never, "docs" as never), [])
    assert.deepStrictEqual(bm25Scores("a", ["a"], { k1: Number.NaN, b: 9 }), bm25Scores("a", ["a"]))
  })
})
