/**
 * Counting across packages: every package reads a counter argument through `toCounter` from `@ctxkit/budget`
 * (one counter, with an id of its own, per function), and fitting honours a counter that prices whole messages
 * (`countMessage`), so that per-tool-call framing is counted as the server counts it.
 */
import { approximateCounter, conversationCost, type MessageCounter, toCounter } from "@ctxkit/budget"
import { formats, type MessageFormat } from "@ctxkit/core"
import { shiftContext } from "@ctxkit/fit"
import { conversation } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { counterOf as compactionCounter } from "../packages/compaction/src/internal/capCounting.ts"
import { asCounter as fitCounter } from "../packages/fit/src/internal/counting.ts"

describe("one function-to-counter conversion", () => {
  it("fit and compaction read a function as budget does: the same counter, an id unique to the function", () => {
    const a = { counter: (text: string) => text.length }
    const b = { counter: (text: string) => text.length * 100 }
    assert.strictEqual(fitCounter(a.counter), toCounter(a.counter))
    assert.strictEqual(compactionCounter(a.counter), toCounter(a.counter))
    assert.notStrictEqual(compactionCounter(a.counter).id, compactionCounter(b.counter).id)
    assert.notStrictEqual(fitCounter(a.counter).id, fitCounter(b.counter).id)
  })
})

describe("framing: side by side with a reference that charges 3 tokens per tool call", () => {
  const chat = formats.openaiChat as MessageFormat<unknown>
  // The reference: the text, 4 tokens per message and 3 per tool call (OpenAI's rule for function calls).
  const referenceCost = (message: unknown): number =>
    approximateCounter.count(chat.text(message)) + 4 + 3 * chat.toolCalls(message).length
  const reference = (messages: ReadonlyArray<unknown>): number =>
    messages.reduce<number>((s, m) => s + referenceCost(m), 0)
  const framed: MessageCounter = {
    id: "chars-framed-test",
    approximate: true,
    count: approximateCounter.count,
    countMessage: (message, format) =>
      approximateCounter.count(format.text(message)) + 4 + 3 * format.toolCalls(message).length
  }
  // 30 generated OpenAI chat conversations with tool calls, fitted to 60% of what the reference charges.
  const cases = fc.sample(
    conversation("openaiChat").filter(({ messages }) =>
      messages.filter((m) => chat.toolCalls(m).length > 0).length >= 3
    ),
    { numRuns: 30, seed: 11 }
  )

  const overReference = (counter: typeof approximateCounter | MessageCounter): number =>
    cases.filter(({ messages }) => {
      const budget = Math.floor(reference(messages) * 0.6)
      const result = shiftContext(messages, counter, budget, { format: chat })
      return result.fits && reference(result.kept) > budget
    }).length

  it("a text counter misses the calls' framing: some fitted requests are over the reference's budget", () => {
    assert.strictEqual(cases.length, 30)
    assert.isAbove(overReference(approximateCounter), 0)
  })

  it("a counter that prices whole messages: no fitted request is over it, and fitting agrees with conversationCost", () => {
    assert.strictEqual(overReference(framed), 0)
    for (const { messages } of cases.slice(0, 5)) {
      const budget = Math.floor(reference(messages) * 0.6)
      const result = shiftContext(messages, framed, budget, { format: chat })
      assert.strictEqual(result.tokens, conversationCost(result.kept, { counter: framed, format: chat }).total)
      assert.strictEqual(result.tokens, reference(result.kept))
    }
  })
})
