import { approximateCounter } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { ContextReport, contextReport, UsageSummary, usageSummary } from "@ctxkit/governor"
import type { ReportOptions } from "@ctxkit/governor/ContextReport"
import { deepFreeze, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"
// Not exported from the root: the report's type in shadow/on, its segment limit and the usage note.
import { type GovernedReport, MAX_REPORT_SEGMENTS } from "../src/ContextReport.ts"
import { HEURISTIC_NOTE as USAGE_HEURISTIC_NOTE } from "../src/internal/usage.ts"
import { body, call, calls, read, result, say, user } from "./helpers.ts"

const governed = (history: ReadonlyArray<Message>, options: ReportOptions<Message> = {}): GovernedReport => {
  const report = contextReport(deepFreeze(history), {
    mode: "shadow",
    epochMessages: 0,
    format: formats.canonical,
    ...options
  })
  assert.isTrue(Schema.is(ContextReport)(report))
  if (report.mode === "off") throw new Error("expected a governed report")
  return report
}

const SECRET = "SECRET-CONTENT-0451"

const history: ReadonlyArray<Message> = [
  { role: "system", content: `You are terse. ${SECRET}` },
  { role: "system", source: "instructions", content: `AGENTS.md ${SECRET}` },
  { role: "system", source: "memory", content: `memory ${SECRET}` },
  user(`fix a.ts ${SECRET}`),
  read("r1", "src/a.ts"),
  result("r1", body(SECRET)),
  call("e1", "edit_file", { path: "src/a.ts" }),
  result("e1", `ok ${SECRET}`),
  call("x1", "run_process", { command: "npm test" }),
  result("x1", `1 failing ${SECRET}`, { isError: true }),
  { role: "user", content: `Summary of the session ${SECRET}`, summary: true },
  { role: "user", content: `pinned note ${SECRET}`, pinned: true },
  say(`working ${SECRET}`),
  user(`thanks ${SECRET}`),
  say(`done ${SECRET}`)
]

describe("contextReport", () => {
  it("with the governor off, only says so", () => {
    assert.deepStrictEqual(contextReport(history), {
      mode: "off",
      note: "The context governor is off: nothing is measured."
    })
    assert.deepStrictEqual(contextReport(history, { mode: "off" }).mode, "off")
  })

  it("lists every segment with type, origin, tokens, criticality and the reason for it", () => {
    const report = governed(history)
    assert.deepStrictEqual(report.segments.map((s) => [s.index, s.type, s.origin, s.criticality, s.reason, s.elided]), [
      [0, "system", "system", "pinned", "system-prompt", undefined],
      [1, "instructions", "instructions", "pinned", "instructions", undefined],
      [2, "context-block", "memory", "normal", "context-block", undefined],
      [3, "user", "user", "high", "user-message", undefined],
      [4, "assistant", "assistant", "normal", "assistant-message", undefined],
      [5, "tool-result", "src/a.ts", "low", "would-be-elided", "superseded_read"],
      [6, "assistant", "assistant", "normal", "assistant-message", undefined],
      [7, "tool-result", "src/a.ts", "normal", "tool-result", undefined],
      [8, "assistant", "assistant", "normal", "assistant-message", undefined],
      [9, "tool-result", "run_process", "high", "error-result", undefined],
      [10, "checkpoint", "user", "pinned", "checkpoint", undefined],
      [11, "user", "user", "pinned", "pinned", undefined],
      [12, "assistant", "assistant", "normal", "assistant-message", undefined],
      [13, "user", "user", "high", "user-message", undefined],
      [14, "assistant", "assistant", "high", "last-turn", undefined]
    ])
    assert.deepStrictEqual(report.criticality, { pinned: 4, high: 4, normal: 6, low: 1 })
    assert.strictEqual(report.segmentsTotal, 15)
    assert.strictEqual(report.leftOut, 0)
    assert.isTrue(report.compacted)
    // Tokens: each segment carries its message's cost; the total is the conversation's.
    assert.strictEqual(report.segments.reduce((n, s) => n + s.tokens, 0), report.tokens.before)
    assert.strictEqual(report.segments[5]?.tokens, approximateCounter.count(body(SECRET)) + 4)
  })

  it("reports the elisions with reason, superseding call id and tokens saved; on says elided, shadow would be", () => {
    const shadow = governed(history)
    assert.deepStrictEqual(
      shadow.elisions.map((e) => [e.callId, e.supersededBy, e.reason, e.index, e.tool, e.origin]),
      [
        ["r1", "e1", "superseded_read", 5, "read_file", "src/a.ts"]
      ]
    )
    assert.isAbove(shadow.elisions[0]?.tokensSaved ?? 0, 100)
    assert.strictEqual(shadow.tokens.saved, shadow.tokens.before - shadow.tokens.after)
    assert.isAbove(shadow.tokens.saved, 100)
    const on = governed(history, { mode: "on" })
    assert.strictEqual(on.segments[5]?.reason, "elided")
    assert.deepStrictEqual(on.tokens, shadow.tokens)
  })

  it("never contains the text of a message, file, stub or invariant", () => {
    for (const mode of ["shadow", "on"] as const) {
      const json = JSON.stringify(governed(history, { mode, invariants: { instruction: 2 }, usage: true }))
      assert.notInclude(json, SECRET)
      assert.notInclude(json, "[elided:")
      assert.notInclude(json, "terse")
    }
  })

  it("counts the invariants the request carries, in total and by kind", () => {
    assert.deepStrictEqual(governed(history, { invariants: { instruction: 2, goal: 1, grant: 3 } }).invariants, {
      total: 6,
      instruction: 2,
      goal: 1,
      plan: 0,
      criterion: 0,
      grant: 3
    })
    assert.deepStrictEqual(governed(history).invariants.total, 0)
    const invariants: Message = { role: "user", content: "<invariants policy=\"1\">\n## Goal\n</invariants>" }
    assert.deepStrictEqual(
      governed([...history, invariants]).segments.at(-1)?.reason,
      "invariants"
    )
  })

  it("marks tool results past the clearing horizon (keepToolResults) low", () => {
    const report = governed(history, { keepToolResults: 1 })
    assert.deepStrictEqual(
      report.segments.filter((s) => s.type === "tool-result").map((s) => [s.callId, s.reason]),
      [["r1", "would-be-elided"], ["e1", "past-clearing-horizon"], ["x1", "error-result"]]
    )
    assert.match(governed(history, { keepToolResults: -1 }).diagnostics[0] ?? "", /keepToolResults/)
  })

  it("splits a message answering several calls into one segment per result", () => {
    const anthropic = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "read_file", input: { path: "a.ts" } },
          { type: "tool_use", id: "b", name: "run_process", input: { command: "ls" } }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: body("a") },
          { type: "tool_result", tool_use_id: "b", content: "x.ts" }
        ]
      }
    ]
    const report = contextReport(anthropic, { mode: "shadow", format: formats.anthropic })
    assert.strictEqual(report.mode, "shadow")
    if (report.mode === "off") return
    assert.deepStrictEqual(report.segments.map((s) => [s.index, s.callId, s.origin]), [
      [0, undefined, "user"],
      [1, undefined, "assistant"],
      [2, "a", "a.ts"],
      [2, "b", "run_process"]
    ])
    assert.strictEqual(report.segments.reduce((n, s) => n + s.tokens, 0), report.tokens.before)
  })

  it("lists at most 400 segments: pinned, low and elided always, the rest trimmed from the oldest", () => {
    const long: Array<Message> = [{ role: "system", content: "sys" }, user()]
    for (let k = 0; k < 300; k++) long.push(read(`r${k}`, `f${k}.ts`), result(`r${k}`, body(`v${k}`)))
    for (let k = 0; k < 50; k++) long.push(call(`e${k}`, "edit_file", { path: `f${k}.ts` }), result(`e${k}`, "ok"))
    long.push(say(), say(), user(), say())
    const report = governed(long)
    assert.strictEqual(report.segmentsTotal, long.length)
    assert.strictEqual(report.segments.length, MAX_REPORT_SEGMENTS)
    assert.strictEqual(report.leftOut, long.length - MAX_REPORT_SEGMENTS)
    assert.strictEqual(report.elisions.length, 50)
    const kept = new Set(report.segments.map((s) => `${s.index}:${s.callId ?? ""}`))
    // Every pinned and elided segment is kept; the others kept are the newest; order is the history's.
    assert.isTrue(kept.has("0:"))
    for (const e of report.elisions) assert.isTrue(kept.has(`${e.index}:${e.callId}`))
    const indices = report.segments.map((s) => s.index)
    assert.deepStrictEqual(indices, [...indices].sort((a, b) => a - b))
    const others = report.segments.filter((s) => s.criticality !== "pinned" && s.criticality !== "low")
    assert.strictEqual(others.at(-1)?.index, long.length - 1)
    assert.isAbove(others[0]?.index ?? 0, 100)
  })

  it("is pure and data-last too", () => {
    assert.deepStrictEqual(
      purityViolations((h: ReadonlyArray<Message>) => contextReport(h, { mode: "on" }), history),
      []
    )
    assert.deepStrictEqual(pipe(history, contextReport({ mode: "shadow" })), contextReport(history, { mode: "shadow" }))
  })
})

describe("usageSummary (a heuristic, labelled)", () => {
  it("counts a result as used when a later call names its path; a re-read is counted apart", () => {
    const h: Array<Message> = [
      user(),
      read("r1", "src/a.ts"),
      result("r1", body("a")),
      read("r2", "src/b.ts"),
      result("r2", body("b")),
      read("r3", "src/b.ts"),
      result("r3", body("b")),
      read("r4", "src/c.ts"),
      result("r4", body("c")),
      call("e1", "edit_file", { path: "src/a.ts" }),
      result("e1", "ok"),
      call("x1", "run_process", { command: "node src/c.ts --check" }),
      result("x1", "fine"),
      call("g1", "glob", { path: "src" }),
      result("g1", "src/a.ts\nsrc/d.ts"),
      call("s1", "search_text", { pattern: "TODO" }),
      result("s1", "src/e.ts:3: TODO\nsrc/f.ts:9: TODO"),
      read("r5", "src/d.ts"),
      result("r5", "not found", { isError: true }),
      call("e2", "edit_file", { path: "/repo/src/e.ts" }),
      result("e2", "ok")
    ]
    const usage = usageSummary(h, { mode: "shadow" })
    assert.isTrue(Schema.is(UsageSummary)(usage))
    assert.isTrue(usage.heuristic)
    assert.strictEqual(usage.note, USAGE_HEURISTIC_NOTE)
    assert.deepStrictEqual(usage.tools, [
      // The glob listed src/d.ts, which r5 then read (an error, but a call naming it).
      { tool: "glob", seen: 1, used: 1, reread: 0, ratio: "glob 1/1" },
      // r1 edited, r4 named by a command; r2 only re-read; r3 unused.
      { tool: "read_file", seen: 4, used: 2, reread: 1, ratio: "read_file 2/4" },
      // The search matched src/e.ts, which an edit named by its absolute path.
      { tool: "search_text", seen: 1, used: 1, reread: 0, ratio: "search_text 1/1" }
    ])
    assert.deepStrictEqual(usage.unattributable, [
      { tool: "edit_file", results: 2 },
      { tool: "read_file", results: 1 },
      { tool: "run_process", results: 1 }
    ])
    assert.deepStrictEqual([usage.seen, usage.used, usage.reread, usage.unattributableResults], [6, 4, 1, 4])
  })

  it("in on, elided results were not seen in full and are not counted", () => {
    const h: Array<Message> = [
      user(),
      read("r1", "a.ts"),
      result("r1", body("v1")),
      calls(["e1", "edit_file", { path: "a.ts" }]),
      result("e1", "ok"),
      say(),
      say(),
      user()
    ]
    assert.strictEqual(usageSummary(h, { mode: "shadow", epochMessages: 0 }).tools[0]?.ratio, "read_file 1/1")
    assert.deepStrictEqual(usageSummary(h, { mode: "on", epochMessages: 0 }).tools, [])
    assert.deepStrictEqual(pipe(h, usageSummary({ mode: "on", epochMessages: 0 })).tools, [])
  })
})

describe("bad input", () => {
  const junk = [
    null,
    7,
    "text",
    { role: 9 },
    { role: "assistant", toolCalls: "nope" },
    { role: "assistant", content: "", toolCalls: [{ id: "c", name: "read_file", arguments: "{\"path\":" }] },
    { role: "tool", toolCallId: "c", content: { nested: { deeper: [1, 2, 3] } } },
    { role: "tool", toolCallId: "ghost", content: "orphan" },
    { role: "user", content: "x".repeat(5_000_000) },
    { role: "user", content: "\u0000\ud83d e\u0301 \u202e" }
  ] as unknown as ReadonlyArray<Message>

  it("never throws, never mutates: junk messages, a 5 MB message, orphans, truncated arguments, NaN settings", () => {
    const frozen = deepFreeze(junk)
    for (const mode of ["off", "shadow", "on"] as const) {
      const report = contextReport(frozen, {
        mode,
        minAgeTurns: Number.NaN,
        epochMessages: -3,
        keepToolResults: Infinity
      })
      assert.isTrue(Schema.is(ContextReport)(report))
      if (report.mode !== "off") {
        assert.strictEqual(report.segmentsTotal, junk.length)
        assert.deepStrictEqual(report.diagnostics.length, 3)
      }
      assert.isTrue(Schema.is(UsageSummary)(usageSummary(frozen, { mode })))
    }
    assert.deepStrictEqual(contextReport("nope" as unknown as ReadonlyArray<Message>, { mode: "on" }).mode, "on")
    assert.deepStrictEqual(usageSummary(42 as unknown as ReadonlyArray<Message>, {}).tools, [])
    assert.deepStrictEqual(contextReport(junk, null as unknown as ReportOptions<Message>), contextReport(junk))
  })
})
