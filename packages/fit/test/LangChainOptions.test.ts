/**
 * LangChain `trimMessages` options, under their own names, built from its documented behaviour:
 * - `strategy: "first"` keeps the first messages that fit, `"last"` (the default) the last ones;
 * - `allowPartial`: when only part of a message fits, with `"last"` its last part is kept, with `"first"` its
 *   first part; the default text splitter splits a text on its newlines;
 * - `startOn`: messages before the first one of the given type are dropped (after trimming; a system message at
 *   index 0 is kept); `endOn`: every message after the last one of the given type is dropped;
 * - types may be named as LangChain does (`"human"`, `"ai"`, `"system"`, `"tool"`), one or several.
 * ctxkit keeps its own guarantees with each: protection, whole tool-call groups, the budget.
 */
import { formats, type Message } from "@ctxkit/core"
import { type ContextStrategy, fitOrFail, shiftContext, strategies } from "@ctxkit/fit"
import { deepFreeze, fitLaws, formatNames } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import { OptionAdjusted } from "../src/Diagnostics.ts"

// Every message costs 10 tokens: 4 for its text (any non-empty text) and 6 of overhead.
const four = (text: string): number => (text.length === 0 ? 0 : 4)
const tens = { format: formats.canonical, perMessageOverhead: 6 }

const chat: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "This is a 4 token text. The full message is 10 tokens." },
  { role: "user", content: "first" },
  { role: "assistant", content: "second" },
  { role: "user", content: "third" },
  { role: "assistant", content: "fourth" }
])
const contents = (kept: ReadonlyArray<Message>): Array<unknown> => kept.map((m) => m.content)

describe("strategy", () => {
  it("\"first\" keeps the first messages that fit, \"last\" the last ones (the system prompt stays)", () => {
    const options = { ...tens, protectCurrentRequest: false }
    const first = shiftContext(chat, four, 30, { ...options, strategy: "first" })
    assert.deepStrictEqual(contents(first.kept), [chat[0]?.content, "first", "second"])
    assert.deepStrictEqual(first.excluded.map((e) => e.index), [4, 3])
    const last = shiftContext(chat, four, 30, { ...options, strategy: "last" })
    assert.deepStrictEqual(contents(last.kept), [chat[0]?.content, "third", "fourth"])
    assert.deepStrictEqual(last, shiftContext(chat, four, 30, options))
  })

  it("is the same as removalPriority by age, newest first, and works through fitOrFail", () => {
    const options = { ...tens, protectCurrentRequest: false }
    const byPriority = shiftContext(chat, four, 30, { ...options, removalPriority: (g) => -(g.indices[0] ?? 0) })
    assert.deepStrictEqual(shiftContext(chat, four, 30, { ...options, strategy: "first" }).kept, byPriority.kept)
    const result = Effect.runSync(fitOrFail(chat, four, 30, { ...options, strategy: "first" }))
    assert.deepStrictEqual(result.kept, byPriority.kept)
  })

  it("keeps the current request protected unless told otherwise", () => {
    const result = shiftContext(chat, four, 30, { ...tens, strategy: "first" })
    // The current request ("third") is protected: the oldest that still fit are kept around it.
    assert.deepStrictEqual(contents(result.kept), [chat[0]?.content, "first", "third"])
  })
})

describe("allowPartial", () => {
  const lines = "line 1\nline 2\nline 3\nline 4\n"
  // One token per line of text, 2 of overhead.
  const perLine = (text: string): number => text.split("\n").filter((l) => l.length > 0).length
  const input: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    { role: "user", content: lines },
    { role: "assistant", content: "ok" },
    { role: "user", content: "next" }
  ])
  const options = { format: formats.canonical, perMessageOverhead: 2, protectCurrentRequest: false }

  it("with \"last\", the message at the cut keeps its last lines (the default splitter splits on newlines)", () => {
    // Whole: 3 + 6 + 3 + 3 = 15 tokens. At 12, the 4-line message does not fit whole; 3 tokens are left for it.
    const whole = shiftContext(input, perLine, 12, options)
    assert.deepStrictEqual(whole.excluded.map((e) => e.index), [1])
    const partial = shiftContext(input, perLine, 12, { ...options, allowPartial: true })
    assert.deepStrictEqual(partial.excluded, [])
    assert.strictEqual((partial.kept[1] as Message).content, "line 4\n")
    assert.deepStrictEqual(partial.truncated.map((t) => [t.index, t.tokensBefore, t.tokensAfter]), [[1, 6, 3]])
    assert.strictEqual(partial.tokens, 12)
    assert.isTrue(partial.fits)
  })

  it("with \"first\", it keeps the first lines", () => {
    const partial = shiftContext(input, perLine, 13, { ...options, allowPartial: true, strategy: "first" })
    // The oldest that fit: sys (3), the 4-line message (6), "ok" (3); "next" (3) does not, and has one line only.
    assert.deepStrictEqual(contents(partial.kept), ["sys", lines, "ok"])
    // At 7, the 4-line message is the cut: 4 tokens are left, its first two lines.
    const tight = shiftContext(input, perLine, 7, { ...options, allowPartial: true, strategy: "first" })
    assert.deepStrictEqual(contents(tight.kept), ["sys", "line 1\nline 2\n"])
    assert.deepStrictEqual(tight.excluded.map((e) => e.index), [3, 2])
  })

  it("takes a text splitter, and never cuts a tool call or a tool result", () => {
    const words = (text: string): ReadonlyArray<string> => text.split(/(?<= )/)
    const sentence: ReadonlyArray<Message> = [
      { role: "user", content: "one two three four five six" },
      { role: "user", content: "go" }
    ]
    const count = (text: string): number => text.split(" ").filter((w) => w.length > 0).length
    const result = shiftContext(sentence, count, 4, {
      format: formats.canonical,
      perMessageOverhead: 0,
      allowPartial: true,
      textSplitter: words
    })
    assert.deepStrictEqual(contents(result.kept), ["four five six", "go"])
    const tools: ReadonlyArray<Message> = [
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "cat", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: lines },
      { role: "user", content: "go" }
    ]
    const cut = shiftContext(tools, perLine, 5, { ...options, protectCurrentRequest: true, allowPartial: true })
    assert.deepStrictEqual(cut.truncated, [])
    assert.deepStrictEqual(cut.excluded.map((e) => e.index), [0, 1])
  })

  it("never leaves half of a surrogate pair, whatever the splitter", () => {
    const rockets: ReadonlyArray<Message> = [{ role: "user", content: "🚀🚀🚀🚀🚀🚀" }, { role: "user", content: "go" }]
    const units = (text: string): ReadonlyArray<string> => text.split("")
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    for (let budget = 2; budget < 12; budget++) {
      for (const strategy of ["first", "last"] as const) {
        const result = shiftContext(rockets, (text) => text.length, budget, {
          format: formats.canonical,
          perMessageOverhead: 0,
          protectCurrentRequest: false,
          allowPartial: true,
          textSplitter: units,
          strategy
        })
        for (const m of result.kept) assert.notMatch(String(m.content), lone)
        assert.isAtMost(result.tokens, budget)
      }
    }
  })
})

describe("startOn and endOn", () => {
  const turns: ReadonlyArray<Message> = deepFreeze([
    { role: "system", content: "sys" },
    { role: "user", content: "u1" },
    { role: "assistant", content: "a1" },
    { role: "user", content: "u2" },
    { role: "assistant", content: "a2" },
    { role: "assistant", content: "", toolCalls: [{ id: "t", name: "ls", arguments: "{}" }] },
    { role: "tool", toolCallId: "t", content: "x" },
    { role: "user", content: "u3" },
    { role: "assistant", content: "a3" }
  ])

  it("startOn: \"human\" drops what precedes the first kept user message after the system prompt", () => {
    // 10 tokens each. 50: sys, u3 (protected), then a3, the call group (20) — a2 does not fit: the first kept
    // message after the system prompt is the call.
    const plain = shiftContext(turns, four, 50, tens)
    assert.deepStrictEqual(contents(plain.kept), ["sys", "", "x", "u3", "a3"])
    const started = shiftContext(turns, four, 50, { ...tens, startOn: "human" })
    assert.deepStrictEqual(contents(started.kept), ["sys", "u3", "a3"])
    // The call and its result go together.
    assert.deepStrictEqual(started.excluded.slice(-2).map((e) => e.index), [5, 6])
    assert.deepStrictEqual(shiftContext(turns, four, 50, { ...tens, startOn: "user" }).kept, started.kept)
  })

  it("endOn: what is sent ends with a message of the roles; later unprotected ones go", () => {
    const ended = shiftContext(turns, four, 1_000, { ...tens, endOn: "human" })
    assert.deepStrictEqual(ended.excluded.map((e) => e.index), [8])
    const either = shiftContext(turns, four, 1_000, { ...tens, endOn: ["human", "tool"] })
    assert.deepStrictEqual(either.excluded.map((e) => e.index), [8])
    // Ending on a tool message: the last user message is protected, so it stays after it.
    const onTool = shiftContext(turns, four, 1_000, { ...tens, endOn: "tool" })
    assert.deepStrictEqual(onTool.excluded.map((e) => e.index), [8])
    assert.deepStrictEqual(contents(onTool.kept).slice(-3), ["", "x", "u3"])
  })

  it("a bad value is reported and not used", () => {
    const result = shiftContext(turns, four, 1_000, {
      ...tens,
      startOn: "robot" as never,
      strategy: "middle" as never,
      textSplitter: 3 as never,
      allowPartial: true
    })
    assert.deepStrictEqual(
      result.diagnostics.filter((d): d is OptionAdjusted => d instanceof OptionAdjusted).map((d) => d.option).sort(),
      ["startOn", "strategy", "textSplitter"]
    )
    assert.deepStrictEqual(result.kept, turns)
  })
})

describe("the fitting laws hold with each LangChain option", () => {
  const truncate: ContextStrategy = strategies.truncate
  const cases: ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>, boolean]> = [
    // [name, options, minimality]: L6 is a law of plain truncation; the options below remove or cut more.
    ["strategy: first", { strategy: "first" }, true],
    ["allowPartial", { allowPartial: true }, false],
    ["allowPartial, strategy: first", { allowPartial: true, strategy: "first" }, false],
    ["startOn: human", { startOn: "human" }, false],
    ["endOn: [human, tool]", { endOn: ["human", "tool"] }, false],
    ["endOn: human, strategy: first", { endOn: "human", strategy: "first" }, false]
  ]
  for (const [name, fitOptions, minimality] of cases) {
    it(name, () => {
      for (const wire of formatNames) {
        fc.assert(fitLaws(truncate, { wireFormat: wire, fitOptions, minimality, monotonicity: true }), {
          numRuns: 25
        })
      }
    })
  }
})
