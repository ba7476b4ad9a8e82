import { formats, type Message } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames, formatOf, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import {
  approximateCounter,
  conversationCost,
  CounterFailed,
  DEFAULT_PER_MESSAGE_OVERHEAD,
  makeCostCache,
  messageCost,
  requestChars,
  SettingAdjusted
} from "./all.ts"
import { brokenCounters, countingCounter, nonFiniteNumbers } from "./helpers.ts"

const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are terse." },
  { role: "user", content: "hello world" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
  { role: "tool", toolCallId: "c1", content: "a.txt\nb.txt" }
])

describe("messageCost and conversationCost", () => {
  it("cost = count(format.text) + perMessageOverhead (default 4)", () => {
    assert.strictEqual(DEFAULT_PER_MESSAGE_OVERHEAD, 4)
    const texts = messages.map((m) => formats.canonical.text(m))
    const expected = texts.map((t) => Math.ceil(t.length / 4) + 4)
    const cost = conversationCost(messages, { format: formats.canonical })
    assert.deepStrictEqual(cost.costs, expected)
    assert.strictEqual(cost.total, expected.reduce((a, b) => a + b, 0))
    assert.strictEqual(cost.counter, "approximate-chars-v1")
    assert.isTrue(cost.approximate)
    assert.deepStrictEqual(cost.diagnostics, [])
    assert.strictEqual(messageCost(messages[1], { format: formats.canonical }).tokens, expected[1])
  })

  it("takes another overhead, and replaces an invalid one by the default with a diagnostic", () => {
    assert.deepStrictEqual(conversationCost(messages, { perMessageOverhead: 0 }).costs, [4, 3, 2, 3])
    for (const bad of [-1, Number.NaN, Infinity]) {
      const cost = conversationCost(messages, { perMessageOverhead: bad })
      assert.strictEqual(cost.total, conversationCost(messages).total)
      assert.instanceOf(cost.diagnostics[0], SettingAdjusted)
    }
  })

  it("is data-last too", () => {
    assert.deepStrictEqual(pipe(messages, conversationCost({ format: formats.canonical })), conversationCost(messages))
  })

  it("an empty conversation costs 0; something that is not an array counts as empty", () => {
    assert.strictEqual(conversationCost([]).total, 0)
    assert.strictEqual(conversationCost("nope" as never, {}).total, 0)
    assert.strictEqual(conversationCost(null as never, {}).total, 0)
  })

  it("a counter that fails on some messages falls back for those only, reports once per kind, never caches the fallback", () => {
    let calls = 0
    const flaky = {
      id: "flaky",
      approximate: false,
      count: (text: string) => {
        calls++
        if (text.includes("world")) throw new Error("unknown byte")
        if (text.includes("txt")) return Number.NaN
        return text.length
      }
    }
    const cache = makeCostCache()
    const first = conversationCost(messages, { counter: flaky, cache })
    assert.isTrue(first.approximate)
    assert.deepStrictEqual(first.diagnostics, [
      new CounterFailed({ counter: "flaky", failure: "threw", detail: "unknown byte", texts: 1 }),
      new CounterFailed({ counter: "flaky", failure: "invalid-count", detail: "NaN", texts: 1 })
    ])
    assert.strictEqual(first.costs[1], 3 + 4) // the approximate count of "hello world"
    assert.strictEqual(calls, 4)
    // The two good counts are cached; the two failures are retried and reported again.
    const second = conversationCost(messages, { counter: flaky, cache })
    assert.strictEqual(calls, 6)
    assert.deepStrictEqual(second, first)
  })

  it("every broken counter gives finite costs and a diagnostic", () => {
    for (const counter of brokenCounters) {
      const cost = conversationCost(messages, { counter, cache: makeCostCache() })
      assert.deepStrictEqual(nonFiniteNumbers(cost), [], counter.id)
      assert.strictEqual(cost.total, conversationCost(messages).total, counter.id)
      assert.isTrue(cost.diagnostics.length > 0, counter.id)
    }
  })

  it("keys the cache by counter id and format: another counter or format counts afresh", () => {
    const a = countingCounter("a")
    const b = countingCounter("b")
    const cache = makeCostCache()
    conversationCost(messages, { counter: a.counter, cache, format: formats.canonical })
    conversationCost(messages, { counter: b.counter, cache, format: formats.canonical })
    conversationCost(messages, { counter: a.counter, cache, format: formats.auto })
    assert.strictEqual(a.seen.length, 8)
    assert.strictEqual(b.seen.length, 4)
  })

  it("counts a 50 MB message with the approximate counter", () => {
    const big = [{ role: "user", content: "y".repeat(50_000_000) }]
    assert.strictEqual(conversationCost(big, { counter: approximateCounter }).total, 12_500_004)
  })
})

describe("the cache stays correct whatever happens to the conversation between calls", () => {
  const edit = fc.oneof(
    fc.record({ kind: fc.constant("push" as const), text: fc.string({ maxLength: 40 }) }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.string({ maxLength: 40 }) }),
    fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), text: fc.string({ maxLength: 40 }) }),
    fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("reverse" as const) })
  )
  it("in-place pushes, insertions, removals, replacements, duplicates and reorders: cached = uncached", () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 30 }), (edits) => {
        // One array, edited in place between calls, as a harness may do.
        const messages: Array<Message> = [{ role: "system", content: "rules" }]
        const cache = makeCostCache()
        const { counter } = countingCounter()
        for (const e of edits) {
          const at = "at" in e ? e.at % (messages.length + 1) : 0
          if (e.kind === "push") messages.push({ role: "user", content: e.text })
          else if (e.kind === "insert") messages.splice(at, 0, { role: "assistant", content: e.text })
          else if (e.kind === "remove") messages.splice(at, 1)
          else if (e.kind === "replace") messages[Math.min(at, messages.length - 1)] = { role: "user", content: e.text }
          else if (e.kind === "duplicate" && messages.length > 0) messages.push(messages[at % messages.length]!) // non-empty
          else if (e.kind === "reverse") messages.reverse()
          const cached = conversationCost(messages, { counter, format: formats.canonical, cache })
          assert.deepStrictEqual(cached, conversationCost(messages, { format: formats.canonical, counter }))
          const chars = requestChars({ messages, format: formats.canonical, cache })
          assert.deepStrictEqual(chars, requestChars({ messages, format: formats.canonical }))
        }
      }),
      { numRuns: runs.more }
    )
  })

  it("counts each distinct message once across in-place growth", () => {
    const messages: Array<Message> = []
    const cache = makeCostCache()
    const { counter, seen } = countingCounter()
    for (let i = 0; i < 50; i++) {
      messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i}` })
      conversationCost(messages, { counter, format: formats.canonical, cache })
    }
    assert.strictEqual(seen.length, 50)
  })
})

describe("conversationCost laws, on generated conversations in every format", () => {
  for (const name of formatNames) {
    const format = formatOf(name)
    it(`${name}: each message is counted once across calls sharing a cache; the cache changes no result`, () => {
      fc.assert(
        fc.property(conversation(name), (rendered) => {
          const input = rendered.messages
          const { counter, seen } = countingCounter()
          const cache = makeCostCache()
          const first = conversationCost(input, { counter, format, cache })
          const second = conversationCost(input, { counter, format, cache })
          const distinct = new Set(input)
          assert.strictEqual(seen.length, distinct.size)
          assert.deepStrictEqual(
            [...seen].sort(),
            [...distinct].map((m) => format.text(m)).sort()
          )
          assert.deepStrictEqual(second, first)
          assert.deepStrictEqual(conversationCost(input, { counter, format }), first)
          assert.strictEqual(first.costs.length, input.length)
          assert.strictEqual(first.total, first.costs.reduce((a, b) => a + b, 0))
        }),
        { numRuns: runs.some }
      )
    })

    it(`${name}: a growing conversation counts only its new messages`, () => {
      fc.assert(
        fc.property(conversation(name), fc.nat(), (rendered, cut) => {
          const input = rendered.messages
          const k = input.length === 0 ? 0 : cut % (input.length + 1)
          const prefix = input.slice(0, k)
          const { counter, seen } = countingCounter()
          const cache = makeCostCache()
          conversationCost(prefix, { counter, format, cache })
          const before = seen.length
          const grown = conversationCost(input, { counter, format, cache })
          const old = new Set(prefix)
          const fresh = new Set(input.filter((m) => !old.has(m)))
          assert.strictEqual(seen.length - before, fresh.size)
          assert.deepStrictEqual(grown, conversationCost(input, { counter, format }))
        }),
        { numRuns: runs.some }
      )
    })

    it(`${name}: pure on deep-frozen input, with or without a cache`, () => {
      fc.assert(
        fc.property(conversation(name), (rendered) => {
          const cache = makeCostCache()
          assert.deepStrictEqual(purityViolations((ms) => conversationCost(ms, { format }), rendered.messages), [])
          assert.deepStrictEqual(
            purityViolations((ms) => conversationCost(ms, { format, cache }), rendered.messages),
            []
          )
        }),
        { numRuns: runs.few }
      )
    })
  }
})
