import { approximateCounter, makeCostCache, type TokenCounter } from "@ctxkit/budget"
import { CounterFailed, SettingAdjusted } from "@ctxkit/budget/Diagnostics"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { shiftContext, strategies } from "@ctxkit/fit"
import { conversation, deepFreeze, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { CallbackFailed, ProtectedOverBudget, UnusableBudget } from "../src/Diagnostics.ts"

const count = (text: string): number => Math.ceil(text.length / 4)
const canonical = { format: formats.canonical }

// Costs with ceil(length / 4) + 4: 8, 14, 6, 14, 14, 14, 5 — total 75.
const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are terse." },
  { role: "user", content: "a".repeat(40) },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
  { role: "user", content: "b".repeat(40) },
  { role: "tool", toolCallId: "c1", content: "x".repeat(40) },
  { role: "assistant", content: "c".repeat(40) },
  { role: "user", content: "now" }
])

const indices = (kept: ReadonlyArray<Message>): Array<number> => kept.map((m) => messages.indexOf(m))

describe("shiftContext", () => {
  it("keeps everything, as the same objects, when it fits", () => {
    const result = shiftContext(messages, count, 75, canonical)
    assert.deepStrictEqual(indices(result.kept), [0, 1, 2, 3, 4, 5, 6])
    result.kept.forEach((m, i) => assert.strictEqual(m, messages[i]))
    assert.deepStrictEqual(result.excluded, [])
    assert.strictEqual(result.tokens, 75)
    assert.strictEqual(result.budget, 75)
    assert.isTrue(result.fits)
    assert.deepStrictEqual(result.diagnostics, [])
  })

  it("removes the oldest unprotected group and stops as soon as it fits", () => {
    const result = shiftContext(messages, count, 61, canonical)
    assert.deepStrictEqual(indices(result.kept), [0, 2, 3, 4, 5, 6])
    assert.deepStrictEqual(result.excluded, [{ message: messages[1], index: 1, reason: "context-shift", tokens: 14 }])
    assert.strictEqual(result.tokens, 61)
  })

  it("removes a call and its far result together, as one group aged by its call", () => {
    const result = shiftContext(messages, count, 60, canonical)
    assert.deepStrictEqual(indices(result.kept), [0, 3, 5, 6])
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [1, 2, 4])
    assert.strictEqual(result.tokens, 41)
    assert.strictEqual(shiftContext(messages, count, 20, canonical).tokens, 13)
  })

  it("keeps the system prompt and the current request; when they alone exceed the budget it does not fit", () => {
    const result = shiftContext(messages, count, 12, canonical)
    assert.deepStrictEqual(indices(result.kept), [0, 6])
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [1, 2, 4, 3, 5])
    assert.isFalse(result.fits)
    assert.strictEqual(result.tokens, 13)
    assert.deepStrictEqual(result.diagnostics, [new ProtectedOverBudget({ protectedTokens: 13, budget: 12 })])
  })

  it("protects pinned messages and their groups, not memory or lorebook blocks, not summaries as the request", () => {
    const input: ReadonlyArray<Message> = [
      { role: "system", content: "memory: the user likes tea", source: "memory" },
      { role: "system", content: "lore: dragons", source: "lorebook" },
      { role: "assistant", content: "", toolCalls: [{ id: "p", name: "read", arguments: "{}" }], pinned: true },
      { role: "tool", toolCallId: "p", content: "pinned result" },
      { role: "user", content: "the question" },
      { role: "user", content: "[checkpoint]", summary: true }
    ]
    const result = shiftContext(input, count, 1, canonical)
    assert.deepStrictEqual(result.kept, [input[2], input[3], input[4]])
    assert.isFalse(result.fits)
    const unprotected = shiftContext(input, count, 1, { ...canonical, protectCurrentRequest: false })
    assert.deepStrictEqual(unprotected.kept, [input[2], input[3]])
  })

  it("protects system messages whose source is system or absent", () => {
    const input: ReadonlyArray<Message> = [
      { role: "system", content: "a", source: "system" },
      { role: "system", content: "b" },
      { role: "system", content: "c", source: "persona" }
    ]
    assert.deepStrictEqual(shiftContext(input, count, 1, canonical).kept, [input[0], input[1]])
  })

  it("reads every wire format through its lens: one Anthropic message answering two calls goes with them", () => {
    const input = [
      { role: "user", content: "look around" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "ls", input: {} },
          { type: "tool_use", id: "t2", name: "pwd", input: {} }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "a.ts" },
          { type: "tool_result", tool_use_id: "t2", content: "/work" }
        ]
      },
      { role: "user", content: "now what?" }
    ]
    for (const format of [formats.anthropic as MessageFormat<unknown>, formats.auto]) {
      const result = shiftContext(input, count, 12, { format })
      assert.deepStrictEqual(result.kept, [input[3]])
      assert.deepStrictEqual(result.excluded.map((e) => e.index), [0, 1, 2])
    }
  })

  it("reorders removal with removalPriority, oldest first among equals", () => {
    const result = shiftContext(messages, count, 61, {
      ...canonical,
      removalPriority: (group) => group.messages.some((m) => m.role === "tool") ? 0 : 1
    })
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [2, 4])
    const failing = shiftContext(messages, count, 61, {
      ...canonical,
      removalPriority: () => {
        throw new Error("boom")
      }
    })
    assert.deepStrictEqual(failing.excluded.map((e) => e.index), [1])
    assert.deepStrictEqual(failing.diagnostics, [
      new CallbackFailed({ callback: "removalPriority", detail: "threw: boom" })
    ])
  })

  it("prices each message at most once, only what it needs unless countExcluded, nothing the cache knows", () => {
    const seen: Array<string> = []
    const counter: TokenCounter = {
      id: "recording",
      approximate: true,
      count: (text) => {
        seen.push(text)
        return count(text)
      }
    }
    // The protected system prompt and request first, then newest first: message 5 fits, message 3 does not (the
    // cut). Messages 1, 2 and 4 are older than the cut and are not priced.
    const lazy = shiftContext(messages, counter, 40, canonical)
    assert.deepStrictEqual(seen, ["You are terse.", "now", "c".repeat(40), "b".repeat(40)])
    assert.deepStrictEqual(lazy.excluded.map((e) => [e.index, e.tokens]), [[1, undefined], [2, undefined], [
      4,
      undefined
    ], [
      3,
      14
    ]])
    seen.length = 0
    const priced = shiftContext(messages, counter, 40, { ...canonical, countExcluded: true })
    assert.strictEqual(seen.length, messages.length)
    assert.deepStrictEqual(priced.excluded.map((e) => [e.index, e.tokens]), [[1, 14], [2, 6], [4, 14], [3, 14]])
    assert.deepStrictEqual(priced.kept, lazy.kept)
    seen.length = 0
    const cache = makeCostCache()
    shiftContext(messages, counter, 40, { ...canonical, cache, countExcluded: true })
    assert.strictEqual(seen.length, messages.length)
    seen.length = 0
    const grown = [...messages, { role: "assistant", content: "ok" } satisfies Message]
    const result = shiftContext(grown, counter, 40, { ...canonical, cache })
    assert.deepStrictEqual(seen, ["ok"])
    assert.deepStrictEqual(result, shiftContext(grown, counter, 40, canonical))
  })

  it("takes a plain function or a counter, and caches per function", () => {
    const cache = makeCostCache()
    const quarter = shiftContext(messages, count, 40, { ...canonical, cache })
    const double = shiftContext(messages, (text: string) => text.length * 2, 40, { ...canonical, cache })
    assert.notStrictEqual(quarter.tokens, double.tokens)
    assert.deepStrictEqual(shiftContext(messages, approximateCounter, 40, canonical).kept, quarter.kept)
  })

  it("a counter that throws or returns NaN falls back to the approximate count and says so", () => {
    const expected = shiftContext(messages, approximateCounter, 40, canonical)
    for (const bad of [() => Number.NaN, () => -1, () => Infinity, () => "7" as unknown as number]) {
      const result = shiftContext(messages, bad, 40, canonical)
      assert.deepStrictEqual(result.kept, expected.kept)
      assert.strictEqual(result.tokens, expected.tokens)
      assert.strictEqual(result.diagnostics.length, 1)
      assert.instanceOf(result.diagnostics[0], CounterFailed)
      assert.strictEqual((result.diagnostics[0] as CounterFailed).failure, "invalid-count")
      // The 4 texts it priced (see above).
      assert.strictEqual((result.diagnostics[0] as CounterFailed).texts, 4)
    }
    const throwing = shiftContext(
      messages,
      {
        id: "throws",
        approximate: false,
        count: () => {
          throw new Error("vocabulary not loaded")
        }
      },
      40,
      canonical
    )
    assert.strictEqual(throwing.tokens, expected.tokens)
    assert.deepStrictEqual(throwing.diagnostics.map((d) => d._tag), ["CounterFailed"])
  })

  it("never fits an unusable budget: NaN, negative, zero, infinite, not a number", () => {
    for (const bad of [Number.NaN, -1, 0, -0, Infinity, -Infinity, "100" as unknown as number]) {
      const result = shiftContext(messages, count, bad, canonical)
      assert.isFalse(result.fits)
      assert.deepStrictEqual(indices(result.kept), [0, 6])
      assert.strictEqual(result.budget, 0)
      assert.instanceOf(result.diagnostics[0], UnusableBudget)
      assert.match(result.diagnostics[0]?.message ?? "", /not a finite number of tokens > 0/)
    }
  })

  it("uses another per-message overhead, and the default for an invalid one", () => {
    assert.strictEqual(shiftContext(messages, count, 1_000, { ...canonical, perMessageOverhead: 0 }).tokens, 75 - 28)
    const bad = shiftContext(messages, count, 1_000, { ...canonical, perMessageOverhead: Number.NaN })
    assert.strictEqual(bad.tokens, 75)
    assert.instanceOf(bad.diagnostics[0], SettingAdjusted)
  })

  it("is data-last too, and strategies.truncate is the same function", () => {
    const dataFirst = shiftContext(messages, count, 40, canonical)
    assert.deepStrictEqual(pipe(messages, shiftContext(count, 40, canonical)), dataFirst)
    assert.deepStrictEqual(pipe(messages, shiftContext(approximateCounter, 40)), dataFirst)
    assert.deepStrictEqual(strategies.truncate.fit(messages, count, 40, canonical), dataFirst)
  })
})

describe("shiftContext with compression", () => {
  const big = "head of the log. " + "noise ".repeat(600) + " end of the log"
  const input: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    { role: "assistant", content: "", toolCalls: [{ id: "r1", name: "run", arguments: "{\"cmd\":\"make\"}" }] },
    { role: "tool", toolCallId: "r1", content: big, id: "m-2" },
    { role: "user", content: big },
    { role: "user", content: "fix it" }
  ])

  it("keeps the head and tail of large blocks with a visible marker before dropping anything", () => {
    const result = shiftContext(input, count, 1_100, { ...canonical, compress: { threshold: 200, keep: 100 } })
    assert.isTrue(result.fits)
    assert.deepStrictEqual(result.excluded, [])
    assert.deepStrictEqual(result.truncated.map((t) => t.index), [2])
    const block = result.truncated[0]
    if (block === undefined) return assert.fail("nothing compressed")
    assert.strictEqual(block.original, input[2])
    const compressed = block.message as Extract<Message, { role: "tool" }>
    assert.strictEqual(compressed.toolCallId, "r1")
    assert.strictEqual(compressed.id, "m-2")
    assert.match(
      String(compressed.content),
      /^head of the log\. noise[\s\S]*\n\[… \d+ characters omitted to fit the context window …\]\n[\s\S]*end of the log$/
    )
    assert.isBelow(block.tokensAfter, block.tokensBefore)
    assert.isAtMost(block.tokensAfter - 4, 200)
    assert.strictEqual(result.kept[2], block.message)
    assert.strictEqual(result.kept[1], input[1])
    assert.strictEqual(result.kept[3], input[3])
  })

  it("compresses more blocks, oldest first, then drops groups whole (the original goes to excluded)", () => {
    const two = shiftContext(input, count, 300, { ...canonical, compress: { threshold: 200, keep: 100 } })
    assert.deepStrictEqual(two.truncated.map((t) => t.index), [2, 3])
    assert.deepStrictEqual(two.excluded, [])
    const dropped = shiftContext(input, count, 150, { ...canonical, compress: { threshold: 200, keep: 100 } })
    assert.deepStrictEqual(dropped.excluded.map((e) => e.message), [input[1], input[2]])
    assert.deepStrictEqual(dropped.truncated.map((t) => t.index), [3])
    assert.isTrue(dropped.fits)
  })

  it("never compresses protected messages, calls or summaries, and is off by default", () => {
    const protectedOnly: ReadonlyArray<Message> = [
      { role: "system", content: big },
      { role: "assistant", content: big, toolCalls: [{ id: "a", name: "x", arguments: big }] },
      { role: "tool", toolCallId: "a", content: "ok" },
      { role: "user", content: big, summary: true },
      { role: "user", content: big }
    ]
    const result = shiftContext(protectedOnly, count, 10, { ...canonical, compress: { threshold: 50 } })
    assert.deepStrictEqual(result.truncated, [])
    assert.deepStrictEqual(shiftContext(input, count, 600, canonical).truncated, [])
  })

  it("never splits a surrogate pair", () => {
    const rockets: ReadonlyArray<Message> = [
      { role: "user", content: "🚀".repeat(3_001) },
      { role: "user", content: "x🚀".repeat(2_001) },
      { role: "user", content: "go" }
    ]
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    for (let keep = 10; keep < 60; keep += 7) {
      const result = shiftContext(rockets, count, 200, { ...canonical, compress: { threshold: 60, keep } })
      assert.strictEqual(result.truncated.length, 2)
      for (const t of result.truncated) assert.notMatch(String((t.message as Message).content), lone)
    }
  })

  it("rewrites tool results through each format's lens, keeping call ids", () => {
    const chat = [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c9", type: "function", function: { name: "cat", arguments: "{}" } }]
      },
      { role: "tool", tool_call_id: "c9", content: big },
      { role: "user", content: "and?" }
    ]
    const result = shiftContext(chat, count, 150, { format: formats.openaiChat, compress: { threshold: 50 } })
    assert.strictEqual(result.truncated.length, 1)
    assert.strictEqual(formats.openaiChat.toolResults(result.kept[1] as never)[0]?.callId, "c9")
    const anthropic = [
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "cat", input: {} }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: big }, { type: "text", text: "note" }]
      },
      { role: "user", content: "and?" }
    ]
    const fitted = shiftContext(anthropic, count, 150, { format: formats.anthropic, compress: { threshold: 50 } })
    assert.strictEqual(fitted.truncated.length, 1)
    assert.deepStrictEqual(formats.anthropic.toolResults(fitted.kept[1] as never).map((r) => r.callId), ["t1"])
    assert.isTrue(fitted.fits)
  })
})

describe("shiftContext with the built-in approximate counter", () => {
  it("is frozen, so counting with it needs no guard", () => {
    assert.isTrue(Object.isFrozen(approximateCounter))
  })

  it("fits exactly as the same count through the guarded path, in every format", () => {
    // A copy of the counter is not the built-in one, so it is counted through a tally.
    const copy: TokenCounter = { id: "approximate-copy", approximate: true, count: approximateCounter.count }
    for (const name of formatNames) {
      const format = formatOf(name)
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true }), fc.nat(4000), (rendered, budget) => {
          const direct = shiftContext(rendered.messages, approximateCounter, budget, { format })
          const guarded = shiftContext(rendered.messages, copy, budget, { format })
          assert.deepStrictEqual(direct.kept, guarded.kept)
          assert.strictEqual(direct.tokens, guarded.tokens)
          assert.deepStrictEqual(direct.excluded, guarded.excluded)
          assert.deepStrictEqual(direct.diagnostics, guarded.diagnostics)
        }),
        { numRuns: runs.some }
      )
    }
  })
})
