/**
 * `reduceToBudget` and `transcriptChars`: the spec's "After compaction: the hard limit and the oversized tail",
 * with the exact marker, the exact clip texts, the rounds of caps, the order of the clips, what is never cut, and
 * the documented decisions (bad targets, clips that save nothing end a round, the final sweep, what the lens cannot rewrite).
 */
import { BUDGET_TRUNCATION_MARKER, reduceToBudget } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { deepEqual, deepFreeze, reductionViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { TEXT_CAP_ROUNDS, TOOL_RESULT_CAP_ROUNDS, transcriptChars } from "../src/ReduceToBudget.ts"

const MARKER = "… [truncated by context budget]"
const cut = (text: string, cap: number): string => text.slice(0, cap) + "\n" + MARKER

const user = (content: string): Message => ({ role: "user", content })
const calls = (...ids: ReadonlyArray<string>): Message => ({
  role: "assistant",
  content: "",
  toolCalls: ids.map((id) => ({ id, name: "grep", arguments: "{}" }))
})
const tool = (id: string, content: string, extra: Record<string, unknown> = {}): Message =>
  ({ role: "tool", toolCallId: id, content, ...extra }) as Message
const contentOf = (m: unknown): string => (m as { readonly content: string }).content
const size = (messages: ReadonlyArray<unknown>): number => JSON.stringify(messages).length
const canonical = { format: formats.canonical }

describe("the marker and the caps", () => {
  it("is exactly `… [truncated by context budget]`: 31 UTF-16 units, the first U+2026", () => {
    assert.strictEqual(BUDGET_TRUNCATION_MARKER, MARKER)
    assert.strictEqual(BUDGET_TRUNCATION_MARKER.length, 31)
    assert.strictEqual(BUDGET_TRUNCATION_MARKER.charCodeAt(0), 0x2026)
  })

  it("the default rounds are 8,000 → 512 for tool results and 16,000 → 1,024 for texts", () => {
    assert.deepStrictEqual(TOOL_RESULT_CAP_ROUNDS, [8_000, 4_096, 2_048, 1_024, 512])
    assert.deepStrictEqual(TEXT_CAP_ROUNDS, [16_000, 8_192, 4_096, 2_048, 1_024])
  })
})

describe("clipping texts", () => {
  const long = "abcdefghij".repeat(2_000) // 20,000 characters

  it("a text over the cap becomes its first C characters, a newline and the marker", () => {
    const input = deepFreeze([user(long)])
    const reduced = reduceToBudget(input, 17_000, canonical)
    assert.strictEqual(contentOf(reduced.messages[0]), cut(long, 16_000))
    assert.strictEqual(contentOf(reduced.messages[0]).length, 16_032)
    assert.deepStrictEqual([reduced.truncated, reduced.clipped, reduced.withinTarget], [1, [0], true])
    assert.strictEqual(reduced.charsBefore, size(input))
    assert.strictEqual(reduced.chars, size(reduced.messages))
    assert.deepStrictEqual(reductionViolations(input, reduced, 17_000, formats.canonical), [])
  })

  it("never splits a surrogate pair: when the C-th character is a high surrogate, the cut is one earlier", () => {
    const rockets = "a" + "🚀".repeat(10_000) // high surrogates at odd indices: 15,999 is one
    const reduced = reduceToBudget([user(rockets)], 17_000, canonical)
    const text = contentOf(reduced.messages[0])
    assert.strictEqual(text, rockets.slice(0, 15_999) + "\n" + MARKER)
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    assert.isFalse(lone.test(text))
    // The same in a tool result at 8,000.
    const result = "x" + "🚀".repeat(6_000)
    const clipped = reduceToBudget([calls("c"), tool("c", result)], 9_000, canonical)
    assert.strictEqual(contentOf(clipped.messages[1]), result.slice(0, 7_999) + "\n" + MARKER)
    // A pair that ends right at the cap is kept whole.
    const even = "🚀".repeat(6_000)
    const whole = reduceToBudget([calls("c"), tool("c", even)], 9_000, canonical)
    assert.strictEqual(contentOf(whole.messages[1]), even.slice(0, 8_000) + "\n" + MARKER)
  })

  it("the own text of an assistant message is clipped; its calls, ids and role stay", () => {
    const assistant: Message = {
      role: "assistant",
      content: long,
      id: "msg_1",
      toolCalls: [{ id: "c1", name: "grep", arguments: "{\"pattern\":\"TODO\"}" }]
    }
    const input = deepFreeze([user("go"), assistant, tool("c1", "ok")])
    const reduced = reduceToBudget(input, 17_000, canonical)
    assert.deepStrictEqual(reduced.messages[1], { ...assistant, content: cut(long, 16_000) })
    assert.strictEqual(reduced.messages[0], input[0])
    assert.strictEqual(reduced.messages[2], input[2])
  })
})

describe("clipping tool results", () => {
  const anthropicResults = (texts: ReadonlyArray<string>) => {
    const ids = texts.map((_, i) => `toolu_${i}`)
    return deepFreeze([
      { role: "user", content: "Read the three files." },
      { role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "read", input: {} })) },
      {
        role: "user",
        content: texts.map((text, i) => ({ type: "tool_result", tool_use_id: ids[i], content: text }))
      }
    ])
  }
  const resultTexts = (m: unknown): ReadonlyArray<string> =>
    formats.anthropic.toolResults(m as never).map((r) => r.text)

  it("the first result that does not fit the room left is cut to it, later ones become the marker", () => {
    const [a, b, c] = ["a".repeat(5_000), "b".repeat(5_000), "c".repeat(5_000)]
    const input = anthropicResults([a, b, c])
    const reduced = reduceToBudget(input, 9_000, { format: formats.anthropic })
    assert.deepStrictEqual(resultTexts(reduced.messages[2]), [a, cut(b, 3_000), MARKER])
    assert.deepStrictEqual(reduced.clipped, [2])
    assert.deepStrictEqual(
      formats.anthropic.toolResults(reduced.messages[2] as never).map((r) => r.callId),
      ["toolu_0", "toolu_1", "toolu_2"]
    )
    assert.deepStrictEqual(reductionViolations(input, reduced, 9_000, formats.anthropic), [])
  })

  it("a first result over the cap is cut; a later one no longer than the marker stays as it is", () => {
    const input = anthropicResults(["a".repeat(9_000), "b".repeat(100), "ok"])
    const reduced = reduceToBudget(input, 9_000, { format: formats.anthropic })
    assert.deepStrictEqual(resultTexts(reduced.messages[2]), [cut("a".repeat(9_000), 8_000), MARKER, "ok"])
  })

  it("when the results before it fill the cap exactly, the first that does not fit becomes the marker alone", () => {
    const input = anthropicResults(["a".repeat(8_000), "b".repeat(500)])
    const reduced = reduceToBudget(input, 8_400, { format: formats.anthropic })
    assert.deepStrictEqual(resultTexts(reduced.messages[2]), ["a".repeat(8_000), MARKER])
  })

  it("a user message with results and its own text is clipped as a tool message: its text stays", () => {
    const note = "n".repeat(20_000)
    const input = deepFreeze([
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: {} }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "r".repeat(10_000) }, { type: "text", text: note }]
      }
    ])
    const reduced = reduceToBudget(input, 30_000, { format: formats.anthropic })
    assert.deepStrictEqual(reduced.messages[1], {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: cut("r".repeat(10_000), 8_000) }, {
        type: "text",
        text: note
      }]
    })
  })

  it("200 tool results of 50,000 characters are reduced within an 800,000-character target", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `call_${String(i).padStart(3, "0")}`)
    const body = "line of grep output\n".repeat(2_500) // 50,000 characters
    const input = deepFreeze([user("Search everything."), calls(...ids), ...ids.map((id) => tool(id, body))])
    assert.isAbove(size(input), 10_000_000)
    const reduced = reduceToBudget(input, 800_000, canonical)
    assert.isTrue(reduced.withinTarget)
    assert.isAtMost(reduced.chars, 800_000)
    assert.strictEqual(reduced.chars, size(reduced.messages))
    assert.strictEqual(reduced.truncated, 200)
    const lengths = reduced.messages.slice(2).map((m) => contentOf(m).length)
    // Round 2 (4,096) is not enough; round 3 (2,048) clips the earliest of the equal-sized ones until it fits.
    const at2048 = lengths.filter((n) => n === 2_048 + 32).length
    assert.isAbove(at2048, 0)
    assert.deepStrictEqual(lengths, [...Array(at2048).fill(2_080), ...Array(200 - at2048).fill(4_128)])
    // It stopped as soon as it fitted: without the last clip, it would not.
    const undone = [...reduced.messages]
    undone[1 + at2048] = tool(ids[at2048 - 1] ?? "", cut(body, 4_096))
    assert.isAbove(size(undone), 800_000)
    assert.deepStrictEqual(reductionViolations(input, reduced, 800_000, formats.canonical), [])
  })
})

describe("the order of the clips", () => {
  it("the largest current message first; the reduction stops as soon as the transcript fits", () => {
    const input = deepFreeze([
      calls("a", "b", "c"),
      tool("a", "a".repeat(9_000)),
      tool("b", "b".repeat(30_000)),
      tool("c", "c".repeat(20_000))
    ])
    const oneClip = size(input) - (30_000 - 8_032) + 5
    const reduced = reduceToBudget(input, oneClip, canonical)
    assert.deepStrictEqual(reduced.clipped, [2])
    const twoClips = reduceToBudget(input, oneClip - 1_000, canonical)
    assert.deepStrictEqual(twoClips.clipped, [2, 3])
  })

  it("ties go to the earliest message", () => {
    const input = deepFreeze([calls("c1", "c2"), tool("c1", "x".repeat(10_000)), tool("c2", "x".repeat(10_000))])
    const clip = tool("c1", cut("x".repeat(10_000), 8_000))
    const target = size(input) - (JSON.stringify(input[1]).length - JSON.stringify(clip).length)
    const reduced = reduceToBudget(input, target, canonical)
    assert.deepStrictEqual(reduced.clipped, [1])
    assert.strictEqual(reduced.chars, target)
    assert.strictEqual(reduced.messages[2], input[2])
  })

  it("texts and tool results compete by size in the same round", () => {
    const input = deepFreeze([user("u".repeat(20_000)), calls("c"), tool("c", "t".repeat(12_000))])
    const reduced = reduceToBudget(input, size(input) - 3_000, canonical)
    assert.deepStrictEqual(reduced.clipped, [0])
  })

  it("a clip that saves nothing ends the round; the next round's smaller cap goes on", () => {
    // A is the largest (its metadata is big) but its result is only 10 characters over the cap: cutting it would
    // add the marker and save nothing, so round 1 (8,000) ends there and B is not clipped at 8,000 even though
    // that alone would have met the target. Round 2 (4,096) clips A, the largest, and that fits.
    const a = tool("a", "y".repeat(8_010), { meta: { note: "z".repeat(5_000) } })
    const b = tool("b", "x".repeat(9_000))
    const input = deepFreeze([calls("a", "b"), a, b])
    const reduced = reduceToBudget(input, size(input) - 967, canonical)
    assert.deepStrictEqual(reduced.clipped, [1])
    assert.strictEqual(contentOf(reduced.messages[1]), cut("y".repeat(8_010), 4_096))
    assert.strictEqual(reduced.messages[2], b)
    assert.isTrue(reduced.withinTarget)
  })

  it("a message the round already clipped is the largest again: the round ends", () => {
    // Round 1 clips A (30,000 → 8,000); with its metadata A is still larger than B, whose clip would save 568
    // characters. Clipping A again from the original gives the same text and saves nothing, so the round ends and
    // B waits for round 2.
    const meta = { meta: { note: "m".repeat(1_000) } }
    const a = tool("a", "a".repeat(30_000), meta)
    const b = tool("b", "b".repeat(8_600))
    const input = deepFreeze([calls("a", "b"), a, b])
    const afterA = size([calls("a", "b"), tool("a", cut("a".repeat(30_000), 8_000), meta), b])
    const reduced = reduceToBudget(input, afterA - 100, canonical)
    // Round 2 (4,096): A first (still the largest), which fits.
    assert.deepStrictEqual(reduced.clipped, [1])
    assert.strictEqual(contentOf(reduced.messages[1]), cut("a".repeat(30_000), 4_096))
    assert.strictEqual(reduced.messages[2], b)
  })

  it("after the last round a final sweep at the smallest caps clips what the round left, so a reachable target is met", () => {
    // In the last round (512) A, the largest, is only 8 characters over the cap: its clip saves nothing and ends
    // the round before B. The sweep skips A and clips B to 512.
    const a = tool("a", "y".repeat(520), { meta: { note: "z".repeat(5_000) } })
    const b = tool("b", "x".repeat(2_000))
    const input = deepFreeze([calls("a", "b"), a, b])
    const expected = [input[0], a, tool("b", cut("x".repeat(2_000), 512))]
    const reduced = reduceToBudget(input, size(expected), canonical)
    assert.isTrue(reduced.withinTarget)
    assert.deepStrictEqual(reduced.clipped, [2])
    assert.strictEqual(reduced.messages[1], a)
    assert.strictEqual(contentOf(reduced.messages[2]), cut("x".repeat(2_000), 512))
    assert.strictEqual(reduced.chars, size(expected))
    // Out of reach: everything clippable ends at the smallest caps, A (whose clip never saves) untouched.
    const far = reduceToBudget(input, 1, canonical)
    assert.isFalse(far.withinTarget)
    assert.strictEqual(far.messages[1], a)
    assert.strictEqual(contentOf(far.messages[2]), cut("x".repeat(2_000), 512))
  })

  it("what the lens cannot rewrite (a server tool's structured result) is left alone and does not stop the round", () => {
    const search = {
      role: "user",
      content: [{
        type: "web_search_tool_result",
        tool_use_id: "s1",
        content: [{ type: "web_search_result", title: "T".repeat(20_000), url: "https://example.test" }]
      }]
    }
    const input = deepFreeze([
      { role: "assistant", content: [{ type: "server_tool_use", id: "s1", name: "web_search", input: {} }] },
      search,
      { role: "assistant", content: "r".repeat(17_000) }
    ])
    const reduced = reduceToBudget(input, size(input) - 500, { format: formats.anthropic })
    assert.strictEqual(reduced.messages[1], input[1])
    assert.deepStrictEqual(reduced.clipped, [2])
  })
})

describe("what is never cut", () => {
  it("checkpoints, the system prompt and pinned messages stay; memory blocks are not clipped either", () => {
    const input = deepFreeze([
      { role: "system", content: "S".repeat(50_000) },
      { role: "user", content: "C".repeat(50_000), summary: true },
      { role: "user", content: "P".repeat(50_000), pinned: true },
      { role: "system", content: "M".repeat(50_000), source: "memory" },
      { role: "user", content: "U".repeat(50_000) }
    ] as ReadonlyArray<Message>)
    const reduced = reduceToBudget(input, 4_000, canonical)
    assert.deepStrictEqual(reduced.clipped, [4])
    assert.isFalse(reduced.withinTarget)
    for (const i of [0, 1, 2, 3]) assert.strictEqual(reduced.messages[i], input[i])
    assert.strictEqual(contentOf(reduced.messages[4]), cut("U".repeat(50_000), 1_024))
    assert.deepStrictEqual(reductionViolations(input, reduced, 4_000, formats.canonical), [])
  })

  it("only contents change: roles, ids, call ids, order and count stay", () => {
    const input = deepFreeze([
      { role: "user", content: "q".repeat(30_000), id: "u1" },
      {
        role: "assistant",
        content: "a".repeat(30_000),
        id: "a1",
        toolCalls: [{ id: "c1", name: "x", arguments: "{}" }]
      },
      { role: "tool", toolCallId: "c1", toolName: "x", content: "t".repeat(30_000), id: "t1", isError: true }
    ] as ReadonlyArray<Message>)
    const reduced = reduceToBudget(input, 1, canonical)
    assert.deepStrictEqual(
      reduced.messages.map((m) => ({ ...m, content: undefined })),
      input.map((m) => ({ ...m, content: undefined }))
    )
    assert.deepStrictEqual(reduced.messages.map(contentOf), [
      cut("q".repeat(30_000), 1_024),
      cut("a".repeat(30_000), 1_024),
      cut("t".repeat(30_000), 512)
    ])
  })
})

describe("custom first caps", () => {
  const body = "r".repeat(10_000)
  const input = deepFreeze([calls("c"), tool("c", body)])
  const at = (cap: number): number => size([input[0], tool("c", cut(body, cap))])

  it("a custom tool cap below the default is followed by the smaller defaults only (3,000 → 2,048, not 4,096)", () => {
    const first = reduceToBudget(input, at(3_000), { ...canonical, maxToolResultChars: 3_000 })
    assert.strictEqual(contentOf(first.messages[1]), cut(body, 3_000))
    const second = reduceToBudget(input, at(3_000) - 1, { ...canonical, maxToolResultChars: 3_000 })
    assert.strictEqual(contentOf(second.messages[1]), cut(body, 2_048))
  })

  it("a custom cap above the default comes first, then every default (20,000 → 8,000)", () => {
    const big = "r".repeat(30_000)
    const messages = [calls("c"), tool("c", big)]
    const target = size([messages[0], tool("c", cut(big, 20_000))])
    assert.strictEqual(
      contentOf(reduceToBudget(messages, target, { ...canonical, maxToolResultChars: 20_000 }).messages[1]),
      cut(big, 20_000)
    )
    assert.strictEqual(
      contentOf(reduceToBudget(messages, target - 1, { ...canonical, maxToolResultChars: 20_000 }).messages[1]),
      cut(big, 8_000)
    )
  })

  it("a custom text cap: 5,000 → 4,096", () => {
    const text = "w".repeat(9_000)
    const target = size([user(cut(text, 5_000))])
    assert.strictEqual(
      contentOf(reduceToBudget([user(text)], target, { ...canonical, maxTextChars: 5_000 }).messages[0]),
      cut(text, 5_000)
    )
    assert.strictEqual(
      contentOf(reduceToBudget([user(text)], target - 1, { ...canonical, maxTextChars: 5_000 }).messages[0]),
      cut(text, 4_096)
    )
  })

  it("a custom cap that is not a number ≥ 0 is ignored: the default rounds apply", () => {
    for (const maxToolResultChars of [Number.NaN, -5]) {
      const reduced = reduceToBudget(input, at(8_000), { ...canonical, maxToolResultChars })
      assert.strictEqual(contentOf(reduced.messages[1]), cut(body, 8_000))
    }
    const zero = reduceToBudget(input, 100, { ...canonical, maxToolResultChars: 0 })
    assert.strictEqual(contentOf(zero.messages[1]), MARKER)
  })
})

describe("the same array, and bad targets", () => {
  const input = deepFreeze([user("hello"), { role: "assistant", content: "x".repeat(20_000) } as Message])

  it("an input already within target is returned as the same array", () => {
    for (const target of [size(input), size(input) + 1, Number.POSITIVE_INFINITY]) {
      const reduced = reduceToBudget(input, target, canonical)
      assert.strictEqual(reduced.messages, input)
      assert.deepStrictEqual([reduced.truncated, reduced.clipped, reduced.withinTarget], [0, [], true])
      assert.strictEqual(reduced.chars, reduced.charsBefore)
    }
  })

  it("nothing clippable: the same array, not within target", () => {
    const system: ReadonlyArray<Message> = deepFreeze([{ role: "system", content: "s".repeat(10_000) }])
    const reduced = reduceToBudget(system, 4_000, canonical)
    assert.strictEqual(reduced.messages, system)
    assert.isFalse(reduced.withinTarget)
  })

  it("NaN (or not a number) clips nothing and is never met; a negative target clips everything to the smallest caps", () => {
    for (const target of [Number.NaN, "100" as never]) {
      const reduced = reduceToBudget(input, target, canonical)
      assert.strictEqual(reduced.messages, input)
      assert.isFalse(reduced.withinTarget)
    }
    const negative = reduceToBudget(input, -1, canonical)
    assert.strictEqual(contentOf(negative.messages[1]), cut("x".repeat(20_000), 1_024))
    assert.isFalse(negative.withinTarget)
  })

  it("is deterministic", () => {
    const twice = [reduceToBudget(input, 5_000, canonical), reduceToBudget(input, 5_000, canonical)]
    assert.isTrue(deepEqual(twice[0], twice[1]))
  })

  it("a non-array input is returned as it is; null options are no options", () => {
    assert.deepStrictEqual(reduceToBudget(input, 5_000, null as never).clipped, [1])
    const reduced = reduceToBudget(undefined as never, 10)
    assert.strictEqual(reduced.messages, undefined)
    assert.strictEqual(reduced.truncated, 0)
  })
})

describe("transcriptChars", () => {
  it("is the length of JSON.stringify of the whole array", () => {
    const messages = [user("hi \"there\"\n"), { role: "assistant", content: "é🚀\u0000" }, undefined]
    assert.strictEqual(transcriptChars(messages), JSON.stringify(messages).length)
    assert.strictEqual(transcriptChars([]), 2)
  })

  it("counts what JSON.stringify cannot serialize as its text plus 2, and never throws", () => {
    const cyclic: Record<string, unknown> = { role: "user", content: "hi" }
    cyclic["self"] = cyclic
    assert.strictEqual(transcriptChars([cyclic], formats.canonical as never), 2 + 2 + 2)
    const big = { role: "user", content: "abc", n: 1n }
    assert.strictEqual(
      transcriptChars([big, user("x")], formats.canonical as never),
      5 + 1 + JSON.stringify(user("x")).length + 2
    )
    const reduced = reduceToBudget([cyclic, user("y".repeat(20_000))], 10, { format: formats.canonical as never })
    assert.deepStrictEqual(reduced.clipped, [1])
  })
})
