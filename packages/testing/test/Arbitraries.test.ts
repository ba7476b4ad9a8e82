import { formats, toolGroups } from "@ctxkit/core"
import { conversation, formatNames, render, scenario, text, withDoubledUserTurns } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

describe("scenario arbitrary", () => {
  it("generates every feature the laws need, and unique ids", () => {
    const samples = fc.sample(scenario({ orphans: true, dangling: true }), { numRuns: 400, seed: 42 })
    let parallel = 0,
      far = 0,
      multi = 0,
      approvals = 0,
      reasoning = 0,
      pinned = 0,
      memory = 0,
      summaries = 0,
      orphans = 0,
      dangling = 0,
      huge = 0,
      empty = 0,
      nonAscii = 0
    for (const s of samples) {
      const ids = s.turns.flatMap((t) => t.kind === "assistant" ? t.calls.map((c) => c.id) : [])
      assert.strictEqual(new Set(ids).size, ids.length)
      const answered = new Set(s.turns.flatMap((t) => t.kind === "results" ? t.results.map((r) => r.callId) : []))
      s.turns.forEach((t, i) => {
        if (t.kind === "assistant") {
          if (t.calls.length > 1) parallel++
          if (t.reasoning !== undefined) reasoning++
          if (t.calls.some((c) => c.approvalId !== undefined)) approvals++
          dangling += t.calls.filter((c) => !answered.has(c.id)).length
          const next = s.turns.slice(i + 1).findIndex((u) =>
            u.kind === "results" && u.results.some((r) => t.calls.some((c) => c.id === r.callId))
          )
          if (next > 1) far++
        }
        if (t.kind === "results") {
          if (t.results.length > 1) multi++
          orphans += t.results.filter((r) => r.callId.startsWith("orphan_")).length
        }
        if ((t.kind === "user" || t.kind === "system") && t.pinned) pinned++
        if (t.kind === "system" && t.source !== "system") memory++
        if (t.kind === "user" && t.summary) summaries++
        if (t.kind === "user" || t.kind === "assistant") {
          if (t.text.length > 20_000) huge++
          if (t.text === "") empty++
          if ([...t.text].some((c) => (c.codePointAt(0) ?? 0) > 0x7f)) nonAscii++
        }
      })
    }
    const counts = {
      parallel,
      far,
      multi,
      approvals,
      reasoning,
      pinned,
      memory,
      summaries,
      orphans,
      dangling,
      huge,
      empty,
      nonAscii
    }
    for (const [feature, count] of Object.entries(counts)) assert.isAbove(count, 5, feature)
  })

  it("generates no orphan or dangling call unless asked", () => {
    fc.assert(
      fc.property(scenario(), (s) => {
        const calls = new Set(s.turns.flatMap((t) => t.kind === "assistant" ? t.calls.map((c) => c.id) : []))
        const results = s.turns.flatMap((t) => t.kind === "results" ? t.results.map((r) => r.callId) : [])
        return results.every((id) => calls.has(id)) && [...calls].every((id) => results.includes(id))
      }),
      { numRuns: runs.many }
    )
  })

  it("text covers empty, non-ASCII and huge strings", () => {
    const sample = fc.sample(text(), { numRuns: 600, seed: 7 })
    assert.isTrue(sample.includes(""))
    assert.isTrue(sample.some((t) => t.length > 20_000))
    assert.isTrue(sample.some((t) => /[\uD800-\uDFFF]/.test(t)))
    assert.isFalse(fc.sample(text({ huge: false }), { numRuns: 600, seed: 7 }).some((t) => t.length > 20_000))
  })
})

describe("doubled user turns (a slash command logged as two user messages)", () => {
  const isCommand = (t: { readonly kind: string; readonly text?: string }): boolean =>
    t.kind === "user" && /^<command-name>\/[a-z-]+<\/command-name>$/.test(t.text ?? "")

  it("scenario generates them by default, a command right before its expansion, and never when turned off", () => {
    let doubled = 0
    for (const s of fc.sample(scenario(), { numRuns: 300, seed: 11 })) {
      s.turns.forEach((t, i) => {
        if (!isCommand(t)) return
        doubled++
        const next = s.turns[i + 1]
        assert.isTrue(next !== undefined && next.kind === "user" && !next.summary && !next.pinned)
      })
    }
    assert.isAbove(doubled, 10)
    const off = fc.sample(scenario({ doubledUserTurns: false }), { numRuns: 300, seed: 11 })
    assert.isFalse(off.some((s) => s.turns.some(isCommand)))
  })

  it("withDoubledUserTurns only inserts commands, each before a plain user turn: removed, the base comes back", () => {
    fc.assert(
      fc.property(
        scenario({ doubledUserTurns: false }).chain((s) =>
          fc.tuple(fc.constant(s), withDoubledUserTurns(fc.constant(s)))
        ),
        ([plain, doubled]) => {
          assert.deepStrictEqual(doubled.turns.filter((t) => !isCommand(t)), [...plain.turns])
          doubled.turns.forEach((t, i) => {
            if (isCommand(t)) assert.strictEqual(doubled.turns[i + 1]?.kind, "user")
          })
        }
      ),
      { numRuns: 100 }
    )
  })

  it("every format renders the pair as two consecutive user messages", () => {
    const pair = {
      turns: [
        { kind: "user" as const, text: "<command-name>/review</command-name>", pinned: false, summary: false },
        { kind: "user" as const, text: "Review the staged changes.", pinned: false, summary: false }
      ]
    }
    for (const name of formatNames) {
      const format = formats[name]
      const { messages } = render(name, pair)
      const roles = (messages as ReadonlyArray<never>).map((m) => format.role(m))
      assert.deepStrictEqual(roles, ["user", "user"], name)
    }
  })
})

describe("renderers", () => {
  const example = {
    turns: [
      { kind: "system" as const, text: "sys", source: "system" as const, pinned: false },
      { kind: "user" as const, text: "go", pinned: false, summary: false },
      {
        kind: "assistant" as const,
        text: "",
        reasoning: "think",
        calls: [{ id: "c1", name: "ls", arguments: "{}" }, { id: "c2", name: "cat", arguments: "{}" }]
      },
      {
        kind: "results" as const,
        results: [
          { callId: "c1", name: "ls", text: "a", isError: false },
          { callId: "c2", name: "cat", text: "b", isError: true }
        ]
      }
    ]
  }

  for (const name of formatNames) {
    it(`${name}: renders calls and results its lens reads back`, () => {
      const { keys, messages } = render(name, example)
      const format = formats[name] as typeof formats.auto
      assert.strictEqual(keys.length, messages.length)
      const calls = messages.flatMap((m) => format.toolCalls(m).map((c) => c.id))
      const results = messages.flatMap((m) => format.toolResults(m).map((r) => r.callId))
      assert.deepStrictEqual(calls, ["c1", "c2"])
      assert.deepStrictEqual(results, ["c1", "c2"])
      assert.deepStrictEqual(toolGroups(messages, format).diagnostics, [])
    })

    it(`${name}: rendered conversations validate in their format`, () => {
      fc.assert(
        fc.property(conversation(name), (rendered) => {
          const format = formats[name] as typeof formats.auto
          rendered.messages.forEach((m, i) => assert.deepStrictEqual(format.validate(m, `messages[${i}]`), []))
        }),
        { numRuns: runs.standard }
      )
    })
  }
})
