/**
 * The one conversion from a counter argument to a counter (`toCounter`), message-pricing counters
 * (`countMessage`, `o200kChatCounter`) and the one guarded tally (`TokenTally`).
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { conversation, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { countTokens, encodeChat } from "gpt-tokenizer/encoding/o200k_base"
import { o200kChatCounter } from "../src/o200k.ts"
import {
  approximateCounter,
  conversationCost,
  estimateTokens,
  makeCostCache,
  messageCost,
  type MessageCounter,
  toCounter,
  TokenTally
} from "./all.ts"
import { brokenCounters } from "./helpers.ts"

const chat = formats.openaiChat as MessageFormat<unknown>
const plain = (t: number) => Array.from({ length: t }, () => "word").join(" ")

describe("toCounter: one counter per function, with an id of its own", () => {
  it("two inline counters sharing a cost cache each get their own counts (11 where 11 are due, 1,100 where 1,100 are)", () => {
    const cache = makeCostCache()
    const messages = [{ role: "user", content: "x".repeat(44) }]
    // Both functions are named `counter` (the property they are assigned to).
    const small = { counter: (text: string) => Math.ceil(text.length / 4) }
    const large = { counter: (text: string) => text.length * 25 }
    assert.strictEqual(small.counter.name, large.counter.name)
    const a = conversationCost(messages, { counter: small.counter, cache, perMessageOverhead: 0 })
    const b = conversationCost(messages, { counter: large.counter, cache, perMessageOverhead: 0 })
    assert.strictEqual(a.total, 11)
    assert.strictEqual(b.total, 1_100)
    assert.notStrictEqual(a.counter, b.counter)
    // Counted again with the first function: still its own counts, from the cache.
    assert.strictEqual(conversationCost(messages, { counter: small.counter, cache, perMessageOverhead: 0 }).total, 11)
  })

  it("the same function always gives the same counter; an object is used as it is; none is the approximate counter", () => {
    const f = (text: string) => text.length
    assert.strictEqual(toCounter(f), toCounter(f))
    assert.match(toCounter(f).id, /^function:f#\d+$/)
    assert.isTrue(toCounter(f).approximate)
    assert.strictEqual(toCounter(approximateCounter), approximateCounter)
    assert.strictEqual(toCounter(o200kChatCounter), o200kChatCounter)
    assert.strictEqual(toCounter(undefined), approximateCounter)
    assert.match(toCounter((text: string) => text.length).id, /^function:anonymous#\d+$|^function:.+#\d+$/)
  })

  it("ids are unique per function, whatever the names (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("counter", "count", ""), { minLength: 2, maxLength: 8 }), (names) => {
        const counters = names.map((name) => {
          const f = (text: string) => text.length
          Object.defineProperty(f, "name", { value: name })
          return toCounter(f)
        })
        return new Set(counters.map((c) => c.id)).size === counters.length
      })
    )
  })
})

describe("message-pricing counters", () => {
  const framed: MessageCounter = {
    id: "framed-test",
    approximate: true,
    count: approximateCounter.count,
    countMessage: (message, format) =>
      approximateCounter.count(format.text(message)) + 4 + 3 * format.toolCalls(message).length
  }
  const call = {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "c1", type: "function", function: { name: "ls", arguments: "{}" } },
      { id: "c2", type: "function", function: { name: "cat", arguments: "{\"path\":\"a\"}" } }
    ]
  }

  it("messageCost and conversationCost charge countMessage, with no per-message overhead on top", () => {
    const expected = approximateCounter.count(chat.text(call)) + 4 + 6
    assert.strictEqual(messageCost(call, { counter: framed, format: chat }).tokens, expected)
    assert.deepStrictEqual(conversationCost([call], { counter: framed, format: chat }).costs, [expected])
    // perMessageOverhead is a text counter's framing: a message counter's price already has its own.
    assert.strictEqual(messageCost(call, { counter: framed, format: chat, perMessageOverhead: 100 }).tokens, expected)
    // The same counter's text path, for comparison: the tool calls' framing is what it misses.
    assert.strictEqual(
      messageCost(call, { counter: approximateCounter, format: chat }).tokens,
      approximateCounter.count(chat.text(call)) + 4
    )
  })

  it("a message price and a text count of one counter id never share cache entries", () => {
    const cache = makeCostCache()
    const asText = { id: framed.id, approximate: true, count: framed.count }
    const priced = conversationCost([call], { counter: framed, format: chat, cache }).total
    const counted = conversationCost([call], { counter: asText, format: chat, cache }).total
    assert.strictEqual(priced - counted, 6)
    assert.strictEqual(conversationCost([call], { counter: framed, format: chat, cache }).total, priced)
  })

  it("a message counter that fails falls back to the approximate text count plus the overhead, reported", () => {
    for (const broken of brokenCounters) {
      const failing: MessageCounter = {
        ...framed,
        id: broken.id,
        countMessage: () => (broken.count as (text: string) => number)("x")
      }
      const cost = conversationCost([call, call], { counter: failing, format: chat, cache: makeCostCache() })
      const fallback = approximateCounter.count(chat.text(call)) + 4
      assert.deepStrictEqual(cost.costs, [fallback, fallback])
      assert.isTrue(cost.approximate)
      assert.strictEqual(cost.diagnostics[0]?._tag, "CounterFailed")
    }
  })

  for (const name of formatNames) {
    it(`${name}: with a cache or without, a message counter gives the same costs, each message priced once`, () => {
      const format = formatOf(name)
      fc.assert(
        fc.property(conversation(name), ({ messages }) => {
          let calls = 0
          const counting: MessageCounter = {
            ...framed,
            countMessage: (message, f) => {
              calls++
              return framed.countMessage(message, f)
            }
          }
          const cache = makeCostCache()
          const plainCost = conversationCost(messages, { counter: framed, format })
          const first = conversationCost(messages, { counter: counting, format, cache })
          const seen = calls
          const second = conversationCost(messages, { counter: counting, format, cache })
          return JSON.stringify(first.costs) === JSON.stringify(plainCost.costs) &&
            JSON.stringify(second.costs) === JSON.stringify(plainCost.costs) && calls === seen &&
            seen <= messages.length
        }),
        { numRuns: 30 }
      )
    })
  }
})

describe("o200kChatCounter", () => {
  const messages = [
    { role: "system", content: "You are a careful assistant." },
    { role: "user", content: "What is in README.md? <|endoftext|> is just text here." },
    { role: "assistant", content: "It describes the project." }
  ]

  it("without tool calls, the messages' prices plus the reply's priming are gpt-tokenizer's encodeChat, token for token", () => {
    const cost = conversationCost(messages, { counter: o200kChatCounter, format: chat })
    const reference = encodeChat(messages as Parameters<typeof encodeChat>[0], "gpt-4o", {
      disallowedSpecial: new Set<string>()
    }).length
    assert.strictEqual(cost.total + 3, reference)
    assert.isFalse(cost.approximate)
  })

  it("a tool call costs its name, its arguments and 3 tokens of framing (at most a token more for the joiners)", () => {
    const args = "{\"path\":\"src/index.ts\",\"lines\":[1,40]}"
    const call = {
      role: "assistant",
      content: "Reading it.",
      tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: args } }]
    }
    const parts = 4 + countTokens("Reading it.") + countTokens("read_file") + countTokens(args) + 3
    const priced = messageCost(call, { counter: o200kChatCounter, format: chat }).tokens
    assert.isAtLeast(priced, parts)
    assert.isAtMost(priced, parts + 2)
    assert.strictEqual(estimateTokens("Reading it.", o200kChatCounter).tokens, countTokens("Reading it."))
  })
})

describe("TokenTally: guarded counting with fallback and failure aggregation", () => {
  it("falls back per text, counts the failures once per kind, and merges what it absorbs", () => {
    const flaky = { id: "flaky", approximate: false, count: (text: string) => text.length > 10 ? Number.NaN : 1 }
    const tally = new TokenTally(flaky)
    assert.isFalse(tally.approximate)
    assert.strictEqual(tally.count("short"), 1)
    assert.strictEqual(tally.count("a longer text"), 4)
    const cost = conversationCost([{ role: "user", content: plain(5) }], { counter: flaky, perMessageOverhead: 100 })
    const others = tally.absorb(cost.diagnostics)
    assert.deepStrictEqual(others, [])
    const [failure, ...rest] = tally.diagnostics()
    assert.deepStrictEqual(rest, [])
    assert.strictEqual(failure?.counter, "flaky")
    assert.strictEqual(failure?.failure, "invalid-count")
    assert.strictEqual(failure?.texts, 2)
    assert.isTrue(tally.failed)
    assert.isTrue(tally.approximate)
  })

  it("every broken counter: finite counts, and one diagnostic per kind naming every text that fell back (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...brokenCounters), fc.array(fc.string(), { maxLength: 20 }), (broken, texts) => {
        const tally = new TokenTally(broken)
        const counts = texts.map((t) => tally.count(t))
        const fellBack = tally.diagnostics().reduce((sum, d) => sum + d.texts, 0)
        const failedTexts = texts.filter((t) => {
          try {
            const n = broken.count(t)
            return !(typeof n === "number" && n >= 0 && n <= Number.MAX_SAFE_INTEGER)
          } catch {
            return true
          }
        }).length
        return counts.every((n) => Number.isInteger(n) && n >= 0) && fellBack === failedTexts &&
          new Set(tally.diagnostics().map((d) => d.failure)).size === tally.diagnostics().length
      })
    )
  })

  it("other diagnostics pass through absorb untouched, in order", () => {
    const tally = new TokenTally()
    const adjusted = conversationCost([], { perMessageOverhead: -1 }).diagnostics
    assert.deepStrictEqual(tally.absorb(adjusted), [...adjusted])
    assert.deepStrictEqual(tally.diagnostics(), [])
  })
})
