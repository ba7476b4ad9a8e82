import { formats, type Message, type OpenAiChatMessage } from "@ctxkit/core"
import { bm25Scores, strategies } from "@ctxkit/fit"
import { conversation, deepFreeze, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { CallbackFailed, RelevanceIgnored, SummaryOmitted } from "../src/Diagnostics.ts"

const count = (text: string): number => Math.ceil(text.length / 4)
const canonical = { format: formats.canonical }
const HEADER = "[Summary of earlier context]"

/** The last user message that is not a summary, or -1. */
const currentRequest = (messages: ReadonlyArray<Message>): number => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m !== undefined && m.role === "user" && m.summary !== true) return i
  }
  return -1
}

describe("strategies", () => {
  it("are the four built-ins, by sorted id", () => {
    assert.deepStrictEqual(Object.keys(strategies), ["manual", "summarize", "truncate", "vector-recall"])
    for (const [id, strategy] of Object.entries(strategies)) assert.strictEqual(strategy.id, id)
    assert.isTrue(Object.isFrozen(strategies.truncate))
  })
})

describe("summarize", () => {
  const digits = "0123456789".repeat(20)
  // Costs: 5, 12, 54, 504, 6 — total 581.
  const messages: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    { role: "user", content: "first   question\n\nwith  spaces" },
    { role: "assistant", content: digits },
    { role: "user", content: "f".repeat(2_000) },
    { role: "user", content: "current" }
  ])

  it("inserts NeoTavern's summary shape before the current request", () => {
    const result = strategies.summarize.fit(messages, count, 400, canonical)
    const text = [
      HEADER,
      "user: first question with spaces",
      `assistant: ${digits.slice(0, 104)} … ${digits.slice(-40)}`,
      `user: ${"f".repeat(104)} … ${"f".repeat(40)}`
    ].join("\n")
    const note = { role: "user", content: text, summary: true }
    assert.deepStrictEqual(result.kept, [messages[0], note, messages[4]] as ReadonlyArray<Message>)
    assert.deepStrictEqual(result.inserted, [note] as ReadonlyArray<Message>)
    assert.deepStrictEqual(result.excluded.map((e) => [e.index, e.reason]), [
      [1, "context-shift"],
      [2, "context-shift"],
      [
        3,
        "context-shift"
      ]
    ])
    assert.isTrue(result.summaryCreated)
    assert.isTrue(result.fits)
    assert.strictEqual(result.tokens, 5 + (count(text) + 4) + 6)
  })

  it("shrinks the body to 72% until the summary costs at most max(8, min(128, floor(budget × 0.35)))", () => {
    // Budget 30: cap 10 tokens = 40 characters; the 345-character body is cut 10 times, to 11 characters.
    const result = strategies.summarize.fit(messages, count, 30, canonical)
    assert.deepStrictEqual(result.inserted, [{ role: "user", content: `${HEADER}\nuser: first`, summary: true }])
    assert.isTrue(result.fits)
  })

  it("is removed last: without room for it, no summary and a diagnostic", () => {
    const result = strategies.summarize.fit(messages, count, 12, canonical)
    assert.isFalse(result.summaryCreated)
    assert.deepStrictEqual(result.inserted, [])
    assert.isTrue(result.fits)
    assert.deepStrictEqual(result.diagnostics, [new SummaryOmitted({ reason: "no-room", cap: 8 })])
    const chars = strategies.summarize.fit(messages, (text) => text.length, 30, canonical)
    assert.deepStrictEqual(chars.diagnostics, [new SummaryOmitted({ reason: "too-small", cap: 10 })])
  })

  it("removes more history to make room for the summary, and summarizes it too", () => {
    // Budget 520: truncation alone removes messages 1 and 2 (515); the summary needs the 504-token message to go.
    const result = strategies.summarize.fit(messages, count, 520, canonical)
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [1, 2, 3])
    assert.isTrue(result.summaryCreated)
    assert.match(String((result.inserted[0] as Message).content), /\nuser: f{104} … f{40}$/)
  })

  it("counts the summary with the same guarded counter: one diagnostic for every text that fell back", () => {
    const result = strategies.summarize.fit(messages, () => Number.NaN, 400, canonical)
    assert.isTrue(result.summaryCreated)
    assert.deepStrictEqual(result.diagnostics.map((d) => d._tag), ["CounterFailed"])
    const failed = result.diagnostics[0]
    if (failed?._tag !== "CounterFailed") return assert.fail("no CounterFailed")
    // The 3 messages priced (the system prompt, the current request, and message 3, the cut: the older ones are
    // not priced), the summary text once, then the note.
    assert.strictEqual(failed.texts, 5)
    assert.deepStrictEqual(result.inserted, strategies.summarize.fit(messages, count, 400, canonical).inserted)
  })

  it("creates nothing when nothing was excluded", () => {
    const result = strategies.summarize.fit(messages, count, 1_000, canonical)
    assert.isFalse(result.summaryCreated)
    assert.deepStrictEqual(result.kept, messages)
  })

  it("makes the note with the format: a plain user message in OpenAI Chat", () => {
    const chat: ReadonlyArray<OpenAiChatMessage> = messages.map((m) =>
      ({ role: m.role, content: String(m.content) }) as OpenAiChatMessage
    )
    const result = strategies.summarize.fit(chat, count, 400, { format: formats.openaiChat })
    assert.deepStrictEqual(Object.keys(result.inserted[0] ?? {}), ["role", "content"])
    assert.strictEqual(result.kept[2], chat[4])
  })

  it("never exceeds its cap, starts with the header, and sits right before the current request", () => {
    fc.assert(
      fc.property(conversation("canonical"), fc.integer({ min: 1, max: 3_000 }), (rendered, budget) => {
        const input = rendered.messages as ReadonlyArray<Message>
        const result = strategies.summarize.fit(input, count, budget, canonical)
        if (result.summaryCreated !== true) return
        const note = result.inserted[0] as Message
        const text = String(note.content)
        assert.isAtMost(count(text), Math.max(8, Math.min(128, Math.floor(budget * 0.35))))
        assert.strictEqual(text.split("\n")[0], HEADER)
        const at = result.kept.indexOf(note)
        const request = currentRequest(input)
        if (request >= 0) assert.strictEqual(result.kept[at + 1], input[request])
      }),
      { numRuns: runs.many }
    )
  })
})

describe("vector-recall", () => {
  const block = (source: "memory" | "lorebook", letter: string, relevance?: unknown): Message =>
    ({
      role: "system",
      source,
      content: letter.repeat(40),
      ...(relevance === undefined ? {} : { meta: { relevance } })
    }) as Message
  // Costs: 5, 14 × 5, 6 — total 81.
  const messages: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    block("memory", "a", 0.9),
    block("lorebook", "b", 0.1),
    block("memory", "c", 0.5),
    { role: "user", content: "d".repeat(40) },
    { role: "assistant", content: "e".repeat(40) },
    { role: "user", content: "current" }
  ])

  it("drops memory and lorebook blocks first, lowest relevance first, then the oldest history", () => {
    assert.deepStrictEqual(
      strategies["vector-recall"].fit(messages, count, 60, canonical).excluded.map((e) => e.index),
      [
        2,
        3
      ]
    )
    assert.deepStrictEqual(
      strategies["vector-recall"].fit(messages, count, 30, canonical).excluded.map((e) => e.index),
      [
        2,
        3,
        1,
        4
      ]
    )
  })

  it("scores blocks without meta.relevance with BM25 over the current request", () => {
    const docs = [
      "The staging server is deployed with make deploy-staging.",
      "The user's favourite colour is blue.",
      "Server names: alpha, beta."
    ]
    const query = "How do I deploy the staging server?"
    const [deploy = 0, colour = 0, names = 0] = bm25Scores(query, docs)
    assert.isTrue(deploy > names && names > colour && colour > 0)
    const input: ReadonlyArray<Message> = [
      { role: "system", content: "sys" },
      { role: "system", source: "memory", content: docs[0] ?? "" },
      { role: "system", source: "memory", content: docs[1] ?? "" },
      { role: "system", source: "lorebook", content: docs[2] ?? "" },
      { role: "user", content: query }
    ]
    const result = strategies["vector-recall"].fit(input, count, 20, canonical)
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [2, 3, 1])
    assert.isTrue(result.fits)
    // Mixed: a block with meta.relevance 0 goes before every scored one; an invalid relevance is reported.
    const mixed = input.map((m, i) =>
      i === 1 ? { ...m, meta: { relevance: 0 } } : i === 2 ? { ...m, meta: { relevance: 7 } } : m
    ) as ReadonlyArray<Message>
    const fitted = strategies["vector-recall"].fit(mixed, count, 20, canonical)
    assert.deepStrictEqual(fitted.excluded.map((e) => e.index), [1, 2, 3])
    assert.deepStrictEqual(fitted.diagnostics, [new RelevanceIgnored({ index: 2, given: "7" })])
  })

  it("takes another relevance scorer; one that fails gives relevance 0 and a diagnostic", () => {
    const input: ReadonlyArray<Message> = [block("memory", "x"), block("memory", "y"), { role: "user", content: "q" }]
    const reversed = strategies["vector-recall"].fit(input, count, 20, {
      ...canonical,
      relevance: (_query, documents) => documents.map((_, i) => documents.length - i)
    })
    assert.deepStrictEqual(reversed.excluded.map((e) => e.index), [1])
    for (
      const relevance of [() => [1], () => [Number.NaN, 1], () => "no" as never, () => {
        throw new Error("offline")
      }]
    ) {
      const result = strategies["vector-recall"].fit(input, count, 20, { ...canonical, relevance })
      assert.deepStrictEqual(result.excluded.map((e) => e.index), [0])
      assert.instanceOf(result.diagnostics[0], CallbackFailed)
    }
  })

  it("keeps pinned blocks", () => {
    const input: ReadonlyArray<Message> = [
      { ...block("memory", "p", 0), pinned: true } as Message,
      block("memory", "q", 1),
      { role: "user", content: "q" }
    ]
    assert.deepStrictEqual(strategies["vector-recall"].fit(input, count, 20, canonical).excluded.map((e) => e.index), [
      1
    ])
  })
})

describe("manual", () => {
  const marked = { manualExcluded: true }
  const messages: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    { role: "user", content: "u".repeat(40), meta: marked },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", content: "t".repeat(40), meta: marked },
    { role: "user", content: "p".repeat(40), pinned: true, meta: marked },
    { role: "assistant", content: "a".repeat(40) },
    { role: "user", content: "current" }
  ])

  it("excludes marked messages with their groups even when everything fits; protected ones stay", () => {
    const result = strategies.manual.fit(messages, count, 1_000, canonical)
    assert.deepStrictEqual(result.excluded.map((e) => [e.index, e.reason]), [[1, "manual"], [2, "manual"], [
      3,
      "manual"
    ]])
    assert.deepStrictEqual(result.kept, [messages[0], messages[4], messages[5], messages[6]])
    assert.isFalse(result.manualFallback)
  })

  it("then truncates when more room is needed, and says so", () => {
    const result = strategies.manual.fit(messages, count, 30, canonical)
    assert.deepStrictEqual(result.excluded.map((e) => [e.index, e.reason]), [
      [1, "manual"],
      [2, "manual"],
      [3, "manual"],
      [5, "context-shift"]
    ])
    assert.isTrue(result.manualFallback)
    assert.isTrue(result.fits)
  })

  it("reads the marks through the format's meta", () => {
    const lc = [
      { type: "human", content: "old", additional_kwargs: { ctxkit: { manualExcluded: true } } },
      { type: "human", content: "now" }
    ]
    const result = strategies.manual.fit(lc, count, 1_000, { format: formatOf("langchain") })
    assert.deepStrictEqual(result.excluded.map((e) => e.index), [0])
  })
})
