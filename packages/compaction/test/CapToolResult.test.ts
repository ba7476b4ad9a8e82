import { approximateCounter, type TokenCounter } from "@ctxkit/budget"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { capToolResult, capToolResults, ingestCharCap } from "@ctxkit/compaction"
import type { CappedResult } from "@ctxkit/compaction/CapToolResult"
import type { MessageFormat } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames, formatOf, text as textArbitrary } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import {
  CapLimitTooSmall,
  CapOptionAdjusted,
  CapOptionInvalid,
  type CharCapOptions,
  type TokenCapOptions
} from "../src/CapToolResult.ts"

const ROCKET = "\uD83D\uDE80"
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const MARKER_LINE = /\[… [\d,]+ characters? \([\d,]+ lines?\) left out: tool result capped at [\d,]+ tokens …\]/

const lines = (n: number, make: (i: number) => string = (i) => `line ${i}: ok`): string =>
  Array.from({ length: n }, (_, i) => make(i)).join("\n")

/** The kept head and tail are a prefix and a suffix of the input, and the accounting adds up. */
const assertShape = (input: string, result: CappedResult): void => {
  assert.isTrue(result.text.startsWith(input.slice(0, result.keptHead)), "head is a prefix")
  assert.isTrue(result.text.endsWith(input.slice(input.length - result.keptTail)), "tail is a suffix")
  if (result.capped) {
    assert.strictEqual(result.omittedChars, input.length - result.keptHead - result.keptTail)
    const omitted = input.slice(result.keptHead, input.length - result.keptTail)
    assert.strictEqual(result.omittedLines, omitted.split("\n").length - 1)
  } else {
    assert.strictEqual(result.text, input)
    assert.strictEqual(result.omittedChars, 0)
  }
}

describe("capToolResult — token cap", () => {
  it("returns the same string when the result is within the limit", () => {
    const input = "a".repeat(2_456) // 614 tokens: exactly the limit of available 3,072
    const result = capToolResult(input, { available: 3_072 })
    assert.strictEqual(result.text, input)
    assert.isFalse(result.capped)
    assert.strictEqual(result.limitTokens, 614)
    assert.strictEqual(result.tokensBefore, 614)
    assert.isUndefined(result.tokensAfter)
    assert.deepStrictEqual(result.diagnostics, [])
    assert.isTrue(capToolResult("a".repeat(2_457), { available: 3_072 }).capped)
  })

  it("limits a result to 20% of available or maxToolResultTokens, whichever is smaller", () => {
    const big = "x".repeat(400_000)
    assert.strictEqual(capToolResult(big, { available: 3_072 }).limitTokens, 614)
    assert.strictEqual(capToolResult(big, { available: 100_000 }).limitTokens, 20_000)
    assert.strictEqual(capToolResult(big, { available: 125_000 }).limitTokens, 25_000)
    assert.strictEqual(capToolResult(big, { available: 1_000_000 }).limitTokens, 25_000)
    assert.strictEqual(capToolResult(big, { available: 1_000_000, maxToolResultTokens: 50_000 }).limitTokens, 50_000)
    assert.strictEqual(capToolResult(big, { available: 3_072, maxToolResultTokens: 100 }).limitTokens, 100)
    assert.strictEqual(capToolResult(big, { available: 3_072, share: 0.5 }).limitTokens, 1_536)
    // 0.29 × 100 is 28.999999999999996 in floating point: still 29 tokens.
    assert.strictEqual(capToolResult(big, { available: 100, share: 0.29 }).limitTokens, 29)
  })

  it("writes an exact marker for a fixed example", () => {
    // Limit 100; the marker costs 20 tokens with its line breaks, so 320 characters are kept: 214 + 106.
    const result = capToolResult("a".repeat(1_000), { available: 500 })
    assert.strictEqual(
      result.text,
      "a".repeat(214) +
        "\n[… 680 characters (0 lines) left out: tool result capped at 100 tokens …]\n" +
        "a".repeat(106)
    )
    assert.deepStrictEqual({ ...result, text: "" }, {
      text: "",
      capped: true,
      omittedChars: 680,
      omittedLines: 0,
      keptHead: 214,
      keptTail: 106,
      limitTokens: 100,
      tokensBefore: 250,
      tokensAfter: 99,
      diagnostics: []
    })
  })

  it("cuts on line boundaries, keeping about two thirds at the head and one third at the tail", () => {
    const input = lines(2_000)
    const result = capToolResult(input, { available: 3_072 })
    assert.isTrue(result.capped)
    assert.isAtMost(result.tokensAfter ?? Infinity, 614)
    assertShape(input, result)
    assert.isTrue(result.text.startsWith("line 0: ok\nline 1: ok\n"))
    assert.isTrue(result.text.endsWith("line 1998: ok\nline 1999: ok"))
    const inputLines = new Set(input.split("\n"))
    const out = result.text.split("\n")
    const markers = out.filter((l) => MARKER_LINE.test(l))
    assert.strictEqual(markers.length, 1)
    // Every other line is a whole line of the input: the cuts fell on line boundaries.
    for (const l of out) if (!MARKER_LINE.test(l)) assert.isTrue(inputLines.has(l), l)
    assert.strictEqual(out.length - 1 + result.omittedLines, 2_000)
    assert.strictEqual(
      markers[0],
      `[… ${result.omittedChars.toLocaleString("en-US")} characters (${
        result.omittedLines.toLocaleString("en-US")
      } lines) left out: tool result capped at 614 tokens …]`
    )
    const headShare = result.keptHead / (result.keptHead + result.keptTail)
    assert.isAbove(headShare, 0.6)
    assert.isBelow(headShare, 0.72)
    // The limit is used well, not just respected.
    assert.isAtLeast(result.tokensAfter ?? 0, 560)
  })

  it("cuts mid-line when the nearest line break would give up more than 20% of a side", () => {
    const input = `${"h".repeat(5_000)}\n${"t".repeat(5_000)}`
    const result = capToolResult(input, { available: 1_000 }) // limit 200
    assertShape(input, result)
    assert.isTrue(result.text.startsWith("hhh"))
    assert.isTrue(result.text.endsWith("ttt"))
    assert.strictEqual(result.omittedLines, 1)
    assert.include(result.text, "(1 line) left out")
  })

  it("counts within the limit with an exact counter (o200k)", () => {
    const json = JSON.stringify(
      Array.from({ length: 3_000 }, (_, i) => ({ id: i, name: `item ${i}`, ok: i % 2 === 0 }))
    )
    for (const input of [lines(5_000), json, "données 数据 — 🚀 ".repeat(5_000)]) {
      for (const available of [500, 3_072, 20_000]) {
        const result = capToolResult(input, { available, counter: o200kCounter })
        assert.isTrue(result.capped)
        assert.isAtMost(o200kCounter.count(result.text), result.limitTokens ?? 0)
        assert.strictEqual(result.tokensAfter, o200kCounter.count(result.text))
        assert.match(result.text, MARKER_LINE)
        assertShape(input, result)
        assert.isAtLeast(result.tokensAfter ?? 0, (result.limitTokens ?? 0) * 0.75)
      }
    }
  })

  it("never splits a surrogate pair, wherever the emoji is", () => {
    for (let position = 0; position < 140; position++) {
      const input = "a".repeat(position) + ROCKET + "b".repeat(140 - position)
      for (const available of [60, 80, 100, 120, 140, 160]) {
        const result = capToolResult(input, { available, share: 1 })
        assert.notMatch(result.text, LONE_SURROGATE, `emoji at ${position}, available ${available}`)
        assertShape(input, result)
      }
    }
    const rockets = ROCKET.repeat(5_000)
    for (let available = 50; available < 400; available += 7) {
      const result = capToolResult(rockets, { available, share: 1 })
      assert.notMatch(result.text, LONE_SURROGATE)
      assert.strictEqual(result.keptHead % 2, 0)
      assert.strictEqual(result.keptTail % 2, 0)
    }
  })

  it("keeps the longest start that fits, with no marker and a diagnostic, when even the marker does not fit", () => {
    const result = capToolResult("x".repeat(400), { available: 15 }) // limit 3
    assert.strictEqual(result.text, "x".repeat(12))
    assert.isTrue(result.capped)
    assert.strictEqual(result.keptHead, 12)
    assert.strictEqual(result.keptTail, 0)
    assert.strictEqual(result.omittedChars, 388)
    assert.strictEqual(result.tokensAfter, 3)
    assert.strictEqual(result.diagnostics.length, 1)
    const diagnostic = result.diagnostics[0]
    assert.instanceOf(diagnostic, CapLimitTooSmall)
    assert.strictEqual(
      diagnostic?.message,
      "A tool result cap of 3 tokens cannot hold even the marker that says what was left out (18 tokens): the result was cut to the longest start that fits, with no marker. Raise available, share or maxToolResultTokens."
    )
    // Limit 0 (available 1): nothing fits but the empty string.
    const zero = capToolResult("abc", { available: 1 })
    assert.strictEqual(zero.limitTokens, 0)
    assert.strictEqual(zero.text, "")
    assert.strictEqual(zero.omittedChars, 3)
  })

  it("sends the marker alone when it fits but no head and tail do", () => {
    // A counter that makes every character but the marker's expensive.
    const costly: TokenCounter = {
      id: "costly",
      approximate: false,
      count: (text) => text.replace(/\[…[^\]]*\]/g, "").replace(/\n/g, "").length * 200 + 1
    }
    const input = "abcdef".repeat(100)
    const result = capToolResult(input, { available: 100, share: 1, counter: costly })
    assert.strictEqual(result.text, "[… 600 characters (0 lines) left out: tool result capped at 100 tokens …]")
    assert.strictEqual(result.keptHead, 0)
    assert.strictEqual(result.keptTail, 0)
    assert.strictEqual(result.tokensAfter, 1)
  })

  it("leaves the text as it is with a diagnostic when available or the options themselves cannot be used", () => {
    const input = "x".repeat(10_000)
    const cases: ReadonlyArray<readonly [TokenCapOptions | CharCapOptions, string, string]> = [
      [{ available: 0 }, "available", "0"],
      [{ available: -1 }, "available", "-1"],
      [{ available: Number.NaN }, "available", "NaN"],
      [{ available: Infinity }, "available", "Infinity"],
      [{ available: "3072" as unknown as number }, "available", "\"3072\""],
      [null as unknown as TokenCapOptions, "options", "null"]
    ]
    for (const [options, option, given] of cases) {
      const result = capToolResult(input, options)
      assert.strictEqual(result.text, input)
      assert.isFalse(result.capped)
      assert.strictEqual(result.diagnostics.length, 1)
      const diagnostic = result.diagnostics[0]
      assert.instanceOf(diagnostic, CapOptionInvalid)
      assert.strictEqual(diagnostic?._tag, "CapOptionInvalid")
      if (diagnostic?._tag !== "CapOptionInvalid") continue
      assert.strictEqual(diagnostic.option, option)
      assert.strictEqual(diagnostic.given, given)
      assert.include(diagnostic.message, "nothing was capped")
    }
    assert.strictEqual(
      capToolResult(input, { available: Number.NaN }).diagnostics[0]?.message,
      "Option available = NaN cannot be used: it must be a finite number of tokens greater than 0 (available(window, maxTokens) from @ctxkit/budget); nothing was capped."
    )
    // maxToolResultTokens may be Infinity: only the share of available limits then.
    assert.strictEqual(capToolResult(input, { available: 3_072, maxToolResultTokens: Infinity }).limitTokens, 614)
  })

  it("caps with the documented default, and says so, when an option that has one cannot be used", () => {
    const input = lines(2_000)
    const cases: ReadonlyArray<readonly [TokenCapOptions | CharCapOptions, TokenCapOptions | CharCapOptions, string]> =
      [
        [{ available: 3_072, share: 0 }, { available: 3_072 }, "share"],
        [{ available: 3_072, share: 1.5 }, { available: 3_072 }, "share"],
        [{ available: 3_072, share: Number.NaN }, { available: 3_072 }, "share"],
        [{ available: 3_072, maxToolResultTokens: 0 }, { available: 3_072 }, "maxToolResultTokens"],
        [{ available: 3_072, maxToolResultTokens: Number.NaN }, { available: 3_072 }, "maxToolResultTokens"],
        [{ ...ingestCharCap, overChars: -1 }, ingestCharCap, "overChars"],
        [{ ...ingestCharCap, keepChars: Number.NaN }, ingestCharCap, "keepChars"],
        [{ ...ingestCharCap, marker: 3 as unknown as string }, ingestCharCap, "marker"],
        [{ ...ingestCharCap, measure: "bytes" as "json" }, { ...ingestCharCap, measure: "text" }, "measure"]
      ]
    const big = "y".repeat(60_000)
    for (const [options, defaults, option] of cases) {
      const text = "overChars" in options ? big : input
      const result = capToolResult(text, options)
      const expected = capToolResult(text, defaults)
      assert.isTrue(result.capped, option)
      assert.strictEqual(result.text, expected.text, option)
      assert.strictEqual(result.diagnostics.length, 1, option)
      const diagnostic = result.diagnostics[0]
      assert.instanceOf(diagnostic, CapOptionAdjusted)
      if (!(diagnostic instanceof CapOptionAdjusted)) continue
      assert.strictEqual(diagnostic.option, option)
    }
    assert.strictEqual(
      capToolResult(input, { available: 3_072, share: 1.5 }).diagnostics[0]?.message,
      "Option share = 1.5 cannot be used; used 0.2 instead. Set it to a fraction greater than 0 and at most 1."
    )
    const messages = [{ role: "tool", toolCallId: "a", content: input }]
    const many = capToolResults(messages, { available: 3_072, maxToolResultTokens: -1, format: formatOf("canonical") })
    assert.strictEqual(many.capped.length, 1)
    assert.strictEqual(many.diagnostics[0]?._tag, "CapOptionAdjusted")
  })

  it("falls back to the approximate count, with one diagnostic, when the counter throws or returns NaN", () => {
    const input = lines(1_000)
    const throwing: TokenCounter = {
      id: "broken",
      approximate: false,
      count: () => {
        throw new Error("vocabulary not loaded")
      }
    }
    const thrown = capToolResult(input, { available: 3_072, counter: throwing })
    const plain = capToolResult(input, { available: 3_072 })
    assert.strictEqual(thrown.text, plain.text)
    assert.strictEqual(thrown.diagnostics.length, 1)
    const failed = thrown.diagnostics[0]
    assert.strictEqual(failed?._tag, "CounterFailed")
    if (failed?._tag === "CounterFailed") {
      assert.strictEqual(failed.counter, "broken")
      assert.strictEqual(failed.failure, "threw")
      assert.strictEqual(failed.detail, "vocabulary not loaded")
      assert.isAtLeast(failed.texts, 2)
    }
    const nan = capToolResult(input, { available: 3_072, counter: () => Number.NaN })
    assert.strictEqual(nan.text, plain.text)
    assert.strictEqual(nan.diagnostics[0]?._tag, "CounterFailed")
  })

  it("accepts a plain (text) => number counter", () => {
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length
    const input = lines(2_000)
    const result = capToolResult(input, { available: 1_000, counter: words }) // limit 200 words
    assert.isTrue(result.capped)
    assert.isAtMost(words(result.text), 200)
    assert.strictEqual(result.tokensBefore, 6_000)
    assert.deepStrictEqual(result.diagnostics, [])
  })

  it("terminates with a bounded number of counts whatever the counter does", () => {
    const input = lines(20_000)
    const behaviours: ReadonlyArray<(text: string, call: number) => number> = [
      () => 1e9, // everything is over any limit
      (text, call) => (call % 2 === 0 ? 1e6 : text.length / 4), // alternating
      (text) => (text.length * 7919) % 1_000_003, // not monotonic
      () => 0.5 // everything fits
    ]
    for (const behave of behaviours) {
      let calls = 0
      const counter: TokenCounter = { id: "odd", approximate: true, count: (text) => behave(text, calls++) }
      const result = capToolResult(input, { available: 3_072, counter })
      assert.isAtMost(calls, 40)
      assert.isString(result.text)
      assertShape(input, result)
    }
  })

  it("caps a 50 MB result to the limit", () => {
    const huge = "0123456789abcdef\n".repeat(3_000_000) // 51 MB
    const result = capToolResult(huge, { available: 200_000 })
    assert.strictEqual(result.limitTokens, 25_000)
    assert.isAtMost(approximateCounter.count(result.text), 25_000)
    assert.strictEqual(result.omittedLines, result.omittedChars / 17)
    const preset = capToolResult(huge, ingestCharCap)
    assert.strictEqual(preset.text.length, 40_000 + ingestCharCap.marker.length)
  })

  it("never throws; the capped text counts within the limit; head and tail are a prefix and a suffix (property)", () => {
    const input = fc.oneof(
      textArbitrary(),
      fc.array(fc.string({ unit: "grapheme", maxLength: 30 }), { maxLength: 400 }).map((ls) => ls.join("\n")),
      fc.string({ unit: "grapheme", minLength: 500, maxLength: 3_000 })
    )
    fc.assert(
      fc.property(
        input,
        fc.integer({ min: 1, max: 4_000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (text, available, share) => {
          const result = capToolResult(text, { available, share })
          assert.isAtMost(approximateCounter.count(result.text), result.limitTokens ?? -1)
          assertShape(text, result)
          if (result.capped && result.diagnostics.length === 0) assert.match(result.text, MARKER_LINE)
          if (!result.capped) assert.strictEqual(result.text, text)
        }
      ),
      { numRuns: runs.many }
    )
  })

  it("counts within the limit with o200k on generated texts (property)", () => {
    const input = fc.oneof(
      textArbitrary(),
      fc.array(fc.string({ unit: "grapheme", maxLength: 40 }), { minLength: 50, maxLength: 300 }).map((ls) =>
        ls.join("\n")
      )
    )
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 5_000 }), (text, available) => {
        const result = capToolResult(text, { available, counter: o200kCounter })
        assert.isAtMost(o200kCounter.count(result.text), result.limitTokens ?? -1)
        assertShape(text, result)
      }),
      { numRuns: runs.standard }
    )
  })

  it("keeps surrogate pairs whole on well-formed text (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 2_000 }),
        fc.integer({ min: 20, max: 600 }),
        (text, available) => {
          fc.pre(!LONE_SURROGATE.test(text))
          assert.notMatch(capToolResult(text, { available, share: 1 }).text, LONE_SURROGATE)
        }
      ),
      { numRuns: runs.many }
    )
  })
})

describe("capToolResult — character cap (ingestCharCap)", () => {
  it("is Alisio's ingest cap", () => {
    assert.deepStrictEqual(ingestCharCap, {
      overChars: 48_000,
      keepChars: 40_000,
      marker: "\n[tool output truncated]",
      measure: "json"
    })
  })

  it("caps over 48,000 JSON characters to the first 40,000 and the marker", () => {
    const at = "x".repeat(47_998) // JSON.stringify adds the two quotes: 48,000
    const kept = capToolResult(at, ingestCharCap)
    assert.strictEqual(kept.text, at)
    assert.isFalse(kept.capped)
    assert.strictEqual(kept.measuredChars, 48_000)
    const over = "x".repeat(47_999) // 48,001
    const cut = capToolResult(over, ingestCharCap)
    assert.isTrue(cut.capped)
    assert.strictEqual(cut.measuredChars, 48_001)
    assert.strictEqual(cut.text, "x".repeat(40_000) + "\n[tool output truncated]")
    assert.strictEqual(cut.omittedChars, 7_999)
    assert.strictEqual(cut.keptHead, 40_000)
    assert.strictEqual(cut.keptTail, 0)
  })

  it("measures escapes: quotes and line breaks count twice in JSON", () => {
    assert.isFalse(capToolResult("\"".repeat(23_999), ingestCharCap).capped) // 2 + 47,998
    const quotes = capToolResult("\"".repeat(40_500), ingestCharCap)
    assert.isTrue(quotes.capped)
    assert.strictEqual(quotes.text, "\"".repeat(40_000) + "\n[tool output truncated]")
    const text = `${"a\n".repeat(20_000)}${"b".repeat(5_000)}` // 45,000 characters, 65,002 in JSON
    const cut = capToolResult(text, ingestCharCap)
    assert.strictEqual(cut.text, "a\n".repeat(20_000) + "\n[tool output truncated]")
    assert.strictEqual(cut.omittedLines, 0)
    // 30,000 line breaks are 60,002 JSON characters but only 30,000 characters: nothing would be left out.
    const short = "\n".repeat(30_000)
    const untouched = capToolResult(short, ingestCharCap)
    assert.strictEqual(untouched.text, short)
    assert.isFalse(untouched.capped)
  })

  it("measures text length with measure \"text\" and never splits a surrogate pair", () => {
    const options: CharCapOptions = { overChars: 10, keepChars: 5, marker: "…" }
    assert.strictEqual(capToolResult("0123456789", options).text, "0123456789")
    assert.strictEqual(capToolResult("0123456789A", options).text, "01234…")
    assert.strictEqual(capToolResult(`0123${ROCKET}56789`, options).text, "0123…")
    assert.strictEqual(capToolResult(`01234${ROCKET}6789`, options).text, "01234…")
  })
})

describe("capToolResults", () => {
  const big = lines(3_000)

  it("caps each result of a message answering several calls, through the lens", () => {
    const messages = [
      { role: "user", content: "read both" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "read_file", input: {} },
          { type: "tool_use", id: "t2", name: "read_file", input: {} }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: big },
          { type: "tool_result", tool_use_id: "t2", content: "short" }
        ]
      }
    ]
    const format = formatOf("anthropic")
    const result = capToolResults(deepFreeze(messages), { available: 3_072, format })
    assert.notStrictEqual(result.messages, messages)
    assert.strictEqual(result.messages[0], messages[0])
    assert.strictEqual(result.messages[1], messages[1])
    assert.strictEqual(result.capped.length, 1)
    const entry = result.capped[0]
    assert.strictEqual(entry?.index, 2)
    assert.strictEqual(entry?.callId, "t1")
    const texts = format.toolResults(result.messages[2])
    assert.strictEqual(texts[0]?.text, capToolResult(big, { available: 3_072 }).text)
    assert.strictEqual(texts[1]?.text, "short")
    assert.strictEqual(entry?.omittedChars, capToolResult(big, { available: 3_072 }).omittedChars)
  })

  it("returns the same array when nothing is over the cap, and looks only at messages from `from`", () => {
    const messages = [
      { role: "tool", toolCallId: "a", content: big },
      { role: "tool", toolCallId: "b", content: "ok" }
    ]
    const format = formatOf("canonical")
    assert.strictEqual(capToolResults(messages, { available: 3_072, format, from: 1 }).messages, messages)
    assert.strictEqual(capToolResults(messages, { available: 1_000_000, format }).messages, messages)
    const all = capToolResults(messages, { available: 3_072, format, from: 0 })
    assert.deepStrictEqual(all.capped.map((c) => c.index), [0])
    const bad = capToolResults(messages, { available: 3_072, format, from: -1 })
    assert.deepStrictEqual(bad.capped.map((c) => c.index), [0])
    assert.strictEqual(bad.diagnostics[0]?._tag, "CapOptionInvalid")
    const invalid = capToolResults(messages, { available: 0, format })
    assert.strictEqual(invalid.messages, messages)
    assert.strictEqual(invalid.diagnostics[0]?._tag, "CapOptionInvalid")
  })

  it("applies the character cap preset", () => {
    const messages = [{ role: "tool", toolCallId: "a", content: "y".repeat(50_000) }]
    const result = capToolResults(messages, { ...ingestCharCap, format: formatOf("canonical") })
    assert.strictEqual(
      formatOf("canonical").toolResults(result.messages[0])[0]?.text,
      "y".repeat(40_000) + "\n[tool output truncated]"
    )
  })

  for (const name of [...formatNames, "auto" as const]) {
    it(`only result texts change, each within the limit (${name}, property)`, () => {
      const renderAs = name === "auto" ? "openaiChat" : name
      const format: MessageFormat<unknown> = name === "auto" ? formatOf("openaiChat") : formatOf(name)
      const lens: MessageFormat<unknown> | undefined = name === "auto" ? undefined : format
      fc.assert(
        fc.property(
          conversation(renderAs, { maxTurns: 16 }),
          fc.integer({ min: 50, max: 20_000 }),
          fc.nat(20),
          (rendered, room, from) => {
            const input = deepFreeze(rendered.messages)
            const options = { available: room, from, ...(lens === undefined ? {} : { format: lens }) }
            const result = capToolResults(input, options)
            const again = capToolResults(input, options)
            assert.deepStrictEqual(again.messages, result.messages)
            assert.strictEqual(result.messages.length, input.length)
            if (result.capped.length === 0) assert.strictEqual(result.messages, input)
            const limit = Math.floor(room * 0.2)
            const cappedAt = new Set(result.capped.map((c) => c.index))
            for (let i = 0; i < input.length; i++) {
              const before = input[i]
              const after = result.messages[i]
              if (!cappedAt.has(i)) {
                assert.strictEqual(after, before)
                continue
              }
              assert.isAtLeast(i, from)
              assert.strictEqual(format.role(after), format.role(before))
              assert.strictEqual(format.id(after), format.id(before))
              assert.deepStrictEqual(format.toolCalls(after), format.toolCalls(before))
              const was = format.toolResults(before)
              const now = format.toolResults(after)
              assert.deepStrictEqual(now.map((r) => r.callId), was.map((r) => r.callId))
              for (let k = 0; k < now.length; k++) {
                const w = was[k]
                const n = now[k]
                if (w === undefined || n === undefined) continue
                if (n.text !== w.text) {
                  assert.isAtMost(approximateCounter.count(n.text), limit)
                  assert.isTrue(n.text.startsWith(w.text.slice(0, 1)))
                } else assert.isAtMost(approximateCounter.count(w.text), limit)
              }
            }
          }
        ),
        { numRuns: runs.few }
      )
    })
  }
})
