import { approximateCounter, type TokenCounter } from "@ctxkit/budget"
import { CLEARED_NOTE, clearOldToolResults } from "@ctxkit/compaction"
import { formats, type MessageFormat } from "@ctxkit/core"
import { deepFreeze, type FormatName, formatNames, formatOf, render, type Scenario, scenario } from "@ctxkit/testing"
import type { ScenarioTurn } from "@ctxkit/testing/Scenario"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { ClearOptionAdjusted, ClearOptionInvalid, type ClearOptions } from "../src/ClearOldToolResults.ts"

const NOTE_TOKENS = 22 // ceil(86 / 4)

const call = (id: string, name = "read_file") => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }]
})
const result = (id: string, content: string) => ({ role: "tool", tool_call_id: id, content })
const body = (i: number) => `contents of file ${i}\n`.repeat(20) // 400+ characters

/** A chat with `n` calls, each answered right away with a large result. */
const chat = (n: number, name: (i: number) => string = () => "read_file") => {
  const messages: Array<Record<string, unknown>> = [{ role: "user", content: "go" }]
  for (let i = 0; i < n; i++) messages.push(call(`c${i}`, name(i)), result(`c${i}`, body(i)))
  return messages
}

const chatFormat = formats.openaiChat as MessageFormat<unknown>

describe("CLEARED_NOTE", () => {
  it("is the tutorial's note", () => {
    assert.strictEqual(
      CLEARED_NOTE,
      "[Old tool result cleared to save context. Run the tool again if you need this output.]"
    )
    assert.strictEqual(approximateCounter.count(CLEARED_NOTE), NOTE_TOKENS)
  })
})

describe("clearOldToolResults", () => {
  it("clears all but the 6 most recent results at once, keeping the calls", () => {
    const messages = deepFreeze(chat(9))
    const out = clearOldToolResults(messages, { format: chatFormat })
    assert.strictEqual(out.count, 3)
    assert.deepStrictEqual(out.cleared.map((c) => [c.index, c.callId, c.tool]), [
      [2, "c0", "read_file"],
      [4, "c1", "read_file"],
      [6, "c2", "read_file"]
    ])
    const expected = [0, 1, 2].map((i) => approximateCounter.count(body(i)) - NOTE_TOKENS)
    assert.deepStrictEqual(out.cleared.map((c) => c.tokens), expected)
    assert.strictEqual(out.freedTokens, expected[0]! + expected[1]! + expected[2]!)
    assert.isUndefined(out.skipped)
    for (let i = 0; i < messages.length; i++) {
      const cleared = i === 2 || i === 4 || i === 6
      if (cleared) {
        assert.deepStrictEqual(out.messages[i], {
          role: "tool",
          tool_call_id: `c${(i - 2) / 2}`,
          content: CLEARED_NOTE
        })
      } else assert.strictEqual(out.messages[i], messages[i])
    }
  })

  it("reports the freed tokens of a fixed example exactly", () => {
    const messages = [
      call("c1"),
      result("c1", "old file contents ".repeat(100)),
      call("c2"),
      result("c2", "new file contents ".repeat(100))
    ]
    const out = clearOldToolResults(messages, { keepToolResults: 1, format: chatFormat })
    assert.strictEqual(out.count, 1)
    assert.strictEqual(out.freedTokens, 428) // 1,800 characters = 450 tokens, minus 22 for the note
    assert.deepStrictEqual(out.cleared, [{ index: 1, callId: "c1", tool: "read_file", tokens: 428 }])
  })

  it("counts per result: a message answering several calls holds several results", () => {
    const messages = deepFreeze([
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "read_file", input: {} },
          { type: "tool_use", id: "t2", name: "read_file", input: {} },
          { type: "tool_use", id: "t3", name: "read_file", input: {} }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: body(1) },
          { type: "tool_result", tool_use_id: "t2", content: body(2) },
          { type: "tool_result", tool_use_id: "t3", content: body(3) }
        ]
      }
    ])
    const format = formatOf("anthropic")
    const out = clearOldToolResults(messages, { keepToolResults: 1, format })
    assert.strictEqual(out.count, 2)
    assert.deepStrictEqual(
      format.toolResults(out.messages[1]).map((r) => [r.callId, r.text]),
      [["t1", CLEARED_NOTE], ["t2", CLEARED_NOTE], ["t3", body(3)]]
    )
    assert.strictEqual(out.messages[0], messages[0])
  })

  it("returns the same array when there is nothing to clear", () => {
    const messages = chat(6)
    const none = clearOldToolResults(messages, { format: chatFormat })
    assert.strictEqual(none.messages, messages)
    assert.strictEqual(none.count, 0)
    assert.strictEqual(none.freedTokens, 0)
    assert.strictEqual(none.skipped, "nothing-to-clear")
    assert.strictEqual(clearOldToolResults([], {}).messages.length, 0)
    // Clearing twice changes nothing the second time: cleared results are left as they are and free nothing.
    const once = clearOldToolResults(chat(10), { format: chatFormat })
    const twice = clearOldToolResults(once.messages, { format: chatFormat })
    assert.strictEqual(twice.messages, once.messages)
    assert.strictEqual(twice.skipped, "nothing-to-clear")
    assert.strictEqual(twice.freedTokens, 0)
  })

  it("leaves results that cost no more than the note as they are", () => {
    const messages = [
      call("a"),
      result("a", "ok"),
      call("b"),
      result("b", "x".repeat(88)),
      call("c"),
      result("c", "x".repeat(89))
    ]
    const out = clearOldToolResults(messages, { keepToolResults: 0, format: chatFormat })
    assert.deepStrictEqual(out.cleared.map((c) => [c.callId, c.tokens]), [["c", 1]])
    assert.strictEqual(out.messages[1], messages[1])
    assert.strictEqual(out.messages[3], messages[3])
  })

  it("skips clearing that would free fewer than clearAtLeast tokens", () => {
    const messages = chat(8)
    const full = clearOldToolResults(messages, { format: chatFormat })
    assert.strictEqual(full.count, 2)
    const below = clearOldToolResults(messages, { format: chatFormat, clearAtLeast: full.freedTokens + 1 })
    assert.strictEqual(below.messages, messages)
    assert.strictEqual(below.count, 0)
    assert.strictEqual(below.freedTokens, 0)
    assert.strictEqual(below.skipped, "below-clear-at-least")
    assert.strictEqual(below.wouldFree, full.freedTokens)
    assert.deepStrictEqual(below.cleared, [])
    const enough = clearOldToolResults(messages, { format: chatFormat, clearAtLeast: full.freedTokens })
    assert.strictEqual(enough.count, 2)
  })

  it("never clears excluded tools, and does not count them among the most recent", () => {
    const messages = chat(8, (i) => (i % 2 === 0 ? "todo_read" : "read_file"))
    const out = clearOldToolResults(messages, { format: chatFormat, keepToolResults: 2, excludeTools: ["todo_read"] })
    // read_file results: c1, c3, c5, c7; the 2 most recent (c5, c7) stay; every todo_read result stays.
    assert.deepStrictEqual(out.cleared.map((c) => c.callId), ["c1", "c3"])
    // The tool name comes from the result when it records one (canonical), else from its call.
    const canonical = [
      { role: "assistant", content: "", toolCalls: [{ id: "k1", name: "read_file", arguments: "{}" }] },
      { role: "tool", toolCallId: "k1", toolName: "todo_read", content: body(1) },
      { role: "assistant", content: "", toolCalls: [{ id: "k2", name: "todo_read", arguments: "{}" }] },
      { role: "tool", toolCallId: "k2", content: body(2) },
      { role: "assistant", content: "", toolCalls: [{ id: "k3", name: "read_file", arguments: "{}" }] },
      { role: "tool", toolCallId: "k3", content: body(3) }
    ]
    const kept = clearOldToolResults(canonical, {
      format: formatOf("canonical"),
      keepToolResults: 0,
      excludeTools: ["todo_read"]
    })
    assert.deepStrictEqual(kept.cleared.map((c) => c.callId), ["k3"])
  })

  it("never clears results in pinned messages", () => {
    const messages = deepFreeze([
      { role: "assistant", content: "", toolCalls: [{ id: "p1", name: "read_file", arguments: "{}" }] },
      { role: "tool", toolCallId: "p1", content: body(1), meta: { pinned: true } },
      { role: "assistant", content: "", toolCalls: [{ id: "p2", name: "read_file", arguments: "{}" }] },
      { role: "tool", toolCallId: "p2", content: body(2) }
    ])
    const canonical = formatOf("canonical")
    assert.isTrue(canonical.isProtected(messages[1]))
    const out = clearOldToolResults(messages, { format: canonical, keepToolResults: 0 })
    assert.deepStrictEqual(out.cleared.map((c) => c.callId), ["p2"])
    assert.strictEqual(out.messages[1], messages[1])
    const anthropic = deepFreeze([
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read_file", input: {} }] },
      { role: "user", pinned: true, content: [{ type: "tool_result", tool_use_id: "t1", content: body(1) }] }
    ])
    const untouched = clearOldToolResults(anthropic, { format: formatOf("anthropic"), keepToolResults: 0 })
    assert.strictEqual(untouched.messages, anthropic)
  })

  it("counts with the counter given and reports a failing one", () => {
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length
    const out = clearOldToolResults(chat(7), { format: chatFormat, counter: words })
    assert.strictEqual(out.freedTokens, words(body(0)) - words(CLEARED_NOTE))
    const broken: TokenCounter = {
      id: "broken",
      approximate: false,
      count: () => {
        throw new Error("no vocabulary")
      }
    }
    const fallback = clearOldToolResults(chat(7), { format: chatFormat, counter: broken })
    assert.strictEqual(fallback.count, 1)
    assert.strictEqual(fallback.freedTokens, approximateCounter.count(body(0)) - NOTE_TOKENS)
    assert.strictEqual(fallback.diagnostics.length, 1)
    assert.strictEqual(fallback.diagnostics[0]?._tag, "CounterFailed")
    assert.include(fallback.diagnostics[0]?.message ?? "", "Token counter \"broken\" threw (no vocabulary) on 2 texts")
  })

  it("refuses options that are not an options object, without clearing anything", () => {
    const messages = chat(8)
    for (const options of [42, "keep", null]) {
      const out = clearOldToolResults(messages, options as never)
      assert.strictEqual(out.messages, messages)
      assert.strictEqual(out.skipped, "invalid-options")
      const diagnostic = out.diagnostics[0]
      assert.instanceOf(diagnostic, ClearOptionInvalid)
      if (diagnostic instanceof ClearOptionInvalid) assert.strictEqual(diagnostic.option, "options")
    }
    assert.strictEqual(
      clearOldToolResults(messages, 42 as never).diagnostics[0]?.message,
      "Option options = 42 cannot be used: it must be an options object; nothing was cleared."
    )
  })

  it("clears with the documented default, and says so, when an option cannot be used", () => {
    const messages = chat(8)
    const cases: ReadonlyArray<readonly [unknown, ClearOptions<unknown>, string]> = [
      [{ keepToolResults: -1 }, {}, "keepToolResults"],
      [{ keepToolResults: 1.5 }, {}, "keepToolResults"],
      [{ keepToolResults: Number.NaN }, {}, "keepToolResults"],
      [{ clearAtLeast: -5 }, {}, "clearAtLeast"],
      [{ clearAtLeast: Number.NaN }, {}, "clearAtLeast"],
      // A list that is not one of names keeps the names it holds, so what was meant to stay stays.
      [{ excludeTools: "read_file" }, { excludeTools: ["read_file"] }, "excludeTools"],
      [{ excludeTools: [1, "read_file"] }, { excludeTools: ["read_file"] }, "excludeTools"],
      [{ excludeTools: 7 }, {}, "excludeTools"]
    ]
    for (const [options, defaults, option] of cases) {
      const out = clearOldToolResults(messages, options as never)
      const expected = clearOldToolResults(messages, defaults as never)
      assert.deepStrictEqual(out.cleared, expected.cleared, option)
      assert.deepStrictEqual(out.messages, expected.messages, option)
      assert.strictEqual(out.diagnostics.length, 1, option)
      const diagnostic = out.diagnostics[0]
      assert.instanceOf(diagnostic, ClearOptionAdjusted)
      if (diagnostic instanceof ClearOptionAdjusted) assert.strictEqual(diagnostic.option, option)
    }
    assert.isAbove(clearOldToolResults(messages, { keepToolResults: -1 }).count, 0)
    assert.strictEqual(
      clearOldToolResults(messages, { keepToolResults: -1 }).diagnostics[0]?.message,
      "Option keepToolResults = -1 cannot be used; used 6 instead. Set it to a whole number of tool results, 0 or more."
    )
  })
})

// ————— Laws on generated conversations, in every wire format —————

const TOOLS = ["read_file", "edit_file", "run_command", "search", "list_dir", "web_fetch"]

/** Makes about half of the results large enough to be worth clearing. */
const inflate = (s: Scenario, flags: ReadonlyArray<boolean>): Scenario => {
  let k = 0
  const turns = s.turns.map((turn): ScenarioTurn =>
    turn.kind !== "results" ? turn : {
      kind: "results",
      results: turn.results.map((r) =>
        (flags[k++ % flags.length] ?? false) ? { ...r, text: `${r.text}\n${"output line\n".repeat(12)}` } : r
      )
    }
  )
  return { turns }
}

const generated = fc.tuple(
  scenario({ maxTurns: 30, huge: false }),
  fc.array(fc.boolean(), { minLength: 1, maxLength: 7 })
).map(([s, flags]) => inflate(s, flags))

interface Expected {
  readonly cleared: ReadonlyArray<string>
  readonly freed: number
}

/** What clearing must do, computed from the scenario's own results (not from the function under test). */
const expectedOf = (s: Scenario, keep: number, exclude: ReadonlySet<string>): Expected => {
  const names = new Map<string, string>()
  for (const turn of s.turns) if (turn.kind === "assistant") { for (const c of turn.calls) names.set(c.id, c.name) }
  const results = s.turns.flatMap((t) => (t.kind === "results" ? t.results : []))
  const eligible = results.filter((r) => !exclude.has(names.get(r.callId) ?? r.name))
  const old = eligible.slice(0, Math.max(0, eligible.length - keep))
  const cleared = old.filter((r) => r.text !== CLEARED_NOTE && Math.ceil(r.text.length / 4) > NOTE_TOKENS)
  return {
    cleared: cleared.map((r) => r.callId),
    freed: cleared.reduce((n, r) => n + Math.ceil(r.text.length / 4) - NOTE_TOKENS, 0)
  }
}

const lawsFor = (name: FormatName | "auto") => {
  const renderAs: FormatName = name === "auto" ? "anthropic" : name
  const format = formatOf(renderAs)
  it(`only result texts change; the newest N stay; count and freed tokens are exact (${name}, property)`, () => {
    const cases = fc.tuple(generated, fc.integer({ min: 0, max: 8 }), fc.subarray(TOOLS, { maxLength: 2 }))
    // The generator must exercise clearing, with and without exclusions: checked on a fixed sample (a random run
    // of 60 cases can hold a single clearing with exclusions), while the property itself runs on fresh cases.
    let clearedRuns = 0
    let excludedRuns = 0
    for (const [s, keep, excluded] of fc.sample(cases, { seed: 7, numRuns: runs.some })) {
      const out = clearOldToolResults(render(renderAs, s).messages, {
        keepToolResults: keep,
        excludeTools: excluded,
        ...(name === "auto" ? {} : { format })
      })
      if (out.count > 0) clearedRuns++
      if (out.count > 0 && excluded.length > 0) excludedRuns++
    }
    assert.isAtLeast(clearedRuns, 5)
    assert.isAtLeast(excludedRuns, 2)
    fc.assert(
      fc.property(
        cases,
        ([s, keep, excluded]) => {
          const rendered = render(renderAs, s)
          const input = deepFreeze(rendered.messages)
          const exclude = new Set(excluded)
          const options = {
            keepToolResults: keep,
            excludeTools: excluded,
            ...(name === "auto" ? {} : { format })
          }
          const out = clearOldToolResults(input, options)
          const expected = expectedOf(s, keep, exclude)
          // Purity: the same call twice gives equal results (and the frozen input did not throw).
          assert.deepStrictEqual(clearOldToolResults(input, options).messages, out.messages)
          assert.strictEqual(out.count, expected.cleared.length)
          assert.strictEqual(out.freedTokens, expected.freed)
          assert.deepStrictEqual(out.cleared.map((c) => c.callId).sort(), [...expected.cleared].sort())
          if (out.count === 0) assert.strictEqual(out.messages, input)
          assert.strictEqual(out.messages.length, input.length)
          const toClear = new Set(expected.cleared)
          for (let i = 0; i < input.length; i++) {
            const before = input[i]
            const after = out.messages[i]
            assert.strictEqual(format.role(after), format.role(before))
            assert.strictEqual(format.id(after), format.id(before))
            assert.deepStrictEqual(format.toolCalls(after), format.toolCalls(before))
            assert.deepStrictEqual(format.links(after), format.links(before))
            const was = format.toolResults(before)
            const now = format.toolResults(after)
            assert.strictEqual(now.length, was.length)
            if (!was.some((r) => toClear.has(r.callId))) assert.strictEqual(after, before)
            for (let k = 0; k < was.length; k++) {
              const w = was[k]
              const n = now[k]
              if (w === undefined || n === undefined) continue
              assert.strictEqual(n.callId, w.callId)
              assert.strictEqual(n.isError, w.isError)
              assert.strictEqual(n.text, toClear.has(w.callId) ? CLEARED_NOTE : w.text)
            }
          }
          // Clearing is all at once: a second call finds nothing more to clear.
          const again = clearOldToolResults(out.messages, options)
          assert.strictEqual(again.messages, out.messages)
          // clearAtLeast just above what clearing frees skips it; at exactly that, it clears.
          if (out.count > 0) {
            const skipped = clearOldToolResults(input, { ...options, clearAtLeast: out.freedTokens + 1 })
            assert.strictEqual(skipped.messages, input)
            assert.strictEqual(skipped.skipped, "below-clear-at-least")
            assert.strictEqual(
              clearOldToolResults(input, { ...options, clearAtLeast: out.freedTokens }).count,
              out.count
            )
          }
        }
      ),
      { numRuns: runs.some }
    )
  })
}

describe("clearOldToolResults laws", () => {
  for (const name of formatNames) lawsFor(name)
  lawsFor("auto")
})
