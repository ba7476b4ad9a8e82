import { reserve } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { contextReport } from "@ctxkit/governor"
import type { GovernedReport } from "@ctxkit/governor/ContextReport"
import { deepFreeze, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { renderReportHtml } from "../src/HtmlReport.ts"

/** The bar's drawn parts, `[kind, tokens]` in order (only parts with tokens are drawn). */
const barParts = (html: string): Array<[string, number]> =>
  [...html.matchAll(/<div class="seg seg-[a-z-]+" data-kind="([a-z-]+)" data-tokens="(\d+)"/g)].map((m) => [
    m[1] ?? "",
    Number(m[2])
  ])

/** The legend's parts, `[kind, tokens]`, all seven (or five without a window). */
const legend = (html: string): Record<string, number> =>
  Object.fromEntries(
    [...html.matchAll(/<li data-kind="([a-z-]+)" data-tokens="(\d+)">/g)].map((m) => [m[1] ?? "", Number(m[2])])
  )

const sum = (parts: ReadonlyArray<[string, number]>): number => parts.reduce((a, [, n]) => a + n, 0)

/** Every tag the page uses: anything else would be markup smuggled in by the transcript. */
const TAGS = new Set([
  "!doctype",
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "main",
  "header",
  "h1",
  "h2",
  "h3",
  "p",
  "section",
  "div",
  "span",
  "ul",
  "li",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "b",
  "code"
])
const strayTags = (html: string): Array<string> =>
  [...html.matchAll(/<\/?([!a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => (m[1] ?? "").toLowerCase()).filter((t) => !TAGS.has(t))

const readCall = (id: string, path: string): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name: "read_file", arguments: JSON.stringify({ path }) }]
})
const result = (id: string, content: string): Message => ({
  role: "tool",
  toolCallId: id,
  toolName: "read_file",
  content
})

const HOSTILE = `src/<script>alert("x")</script>&'.ts`

const history: ReadonlyArray<Message> = [
  { role: "system", content: "You are a coding agent." },
  { role: "system", source: "instructions", content: "AGENTS.md: run npm test before you answer." },
  { role: "system", source: "memory", content: "Memory: the user likes short answers." },
  { role: "user", content: "Why does the build fail?" },
  readCall("r1", HOSTILE),
  result("r1", "export const a = 1\n".repeat(60)),
  {
    role: "assistant",
    content: "Fixing the constant.",
    toolCalls: [{ id: "e1", name: "edit_file", arguments: JSON.stringify({ path: HOSTILE }) }]
  },
  { role: "tool", toolCallId: "e1", toolName: "edit_file", content: "edited" },
  { role: "assistant", content: "It reads a stale constant." },
  { role: "user", content: "Fix it." },
  { role: "assistant", content: "Done." }
]

const governed = (mode: "shadow" | "on", messages: ReadonlyArray<Message> = history): GovernedReport => {
  const report = contextReport(deepFreeze(messages), {
    mode,
    format: formats.canonical,
    epochMessages: 0,
    minAgeTurns: 1
  })
  if (report.mode === "off") throw new Error("expected a governed report")
  return report
}

describe("renderReportHtml", () => {
  it("draws every token of the report into the bar, and the bar adds up to the window", () => {
    const report = governed("on")
    assert.isAbove(report.elisions.length, 0, "the first read is superseded by the second")
    const html = renderReportHtml(report, { window: 4_096, maxTokens: 512 })
    const byType = (types: ReadonlyArray<string>) =>
      report.segments.filter((s) => types.includes(s.type)).reduce((a, s) => a + s.tokens, 0)
    const parts = legend(html)
    assert.strictEqual(parts["system"], byType(["system", "context-block"]))
    assert.strictEqual(parts["instructions"], byType(["instructions", "invariants"]))
    assert.strictEqual(parts["history"], byType(["user", "assistant", "checkpoint"]))
    assert.strictEqual(parts["elided"], report.tokens.saved)
    assert.strictEqual(parts["tool-results"], byType(["tool-result"]) - report.tokens.saved)
    assert.strictEqual(parts["reserve"], reserve(4_096, 512))
    assert.strictEqual(parts["free"], 4_096 - 512 - report.tokens.before)
    assert.strictEqual(sum(barParts(html)), 4_096)
    assert.deepStrictEqual(barParts(html).map(([k]) => k), [
      "system",
      "instructions",
      "history",
      "tool-results",
      "elided",
      "free",
      "reserve"
    ])
    assert.include(html, `id="verdict">fits<`)
    assert.include(html, "replaced by stubs: not sent, freed for the request")
  })

  it("lists each segment with its criticality, reason and elision", () => {
    const report = governed("shadow")
    const html = renderReportHtml(report, { window: 4_096 })
    const rows = [...html.matchAll(/<tr( class="elided")? data-index="(\d+)">(.*?)<\/tr>/g)]
    assert.strictEqual(rows.length, report.segments.length)
    rows.forEach((row, k) => {
      const segment = report.segments[k]
      if (segment === undefined) throw new Error("a row without a segment")
      assert.strictEqual(Number(row[2]), segment.index)
      const cells = [...(row[3] ?? "").matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) =>
        (c[1] ?? "").replace(/<[^>]+>/g, "")
      )
      assert.strictEqual(cells[1], segment.type)
      assert.strictEqual(cells[3], segment.tokens.toLocaleString("en-US"))
      assert.strictEqual(cells[4], segment.criticality)
      assert.strictEqual(cells[5], segment.reason)
      assert.strictEqual(row[1] !== undefined, segment.elided !== undefined)
      if (segment.elided !== undefined) assert.match(cells[6] ?? "", new RegExp(`^${segment.elided} saves \\d`))
    })
    assert.include(html, "would be replaced by stubs (shadow: still sent)")
  })

  it("escapes what comes from the transcript and loads nothing", () => {
    const html = renderReportHtml(governed("on"), { title: "<b>t</b>", source: "a\"b<c>.json" })
    assert.deepStrictEqual(strayTags(html), [])
    assert.notInclude(html, "<script")
    assert.include(html, "src/&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;.ts")
    assert.include(html, "<title>&lt;b&gt;t&lt;/b&gt;</title>")
    assert.include(html, "a&quot;b&lt;c&gt;.json")
    assert.notMatch(html, /\b(src|href)=/)
    assert.include(html, "default-src 'none'")
  })

  it("over the window: the bar holds history and reserve, and marks where the window ends", () => {
    const report = governed("shadow")
    const window = 300
    const html = renderReportHtml(report, { window, maxTokens: 50 })
    assert.strictEqual(legend(html)["free"], 0)
    assert.strictEqual(sum(barParts(html)), report.tokens.before + 50)
    assert.include(html, `data-window="${window}"`)
    assert.include(html, `over by ${(report.tokens.before - 250).toLocaleString("en-US")}`)
  })

  it("without a window the bar is the history alone; a bad window or reply budget is named, not used", () => {
    const report = governed("on")
    const bare = renderReportHtml(report)
    assert.deepStrictEqual(Object.keys(legend(bare)), ["system", "instructions", "history", "tool-results", "elided"])
    assert.strictEqual(sum(barParts(bare)), report.tokens.before)
    assert.notInclude(bare, `id="verdict"`)
    const bad = renderReportHtml(report, { window: Number.NaN, maxTokens: -3 })
    assert.strictEqual(sum(barParts(bad)), report.tokens.before)
    assert.include(bad, "option window: got NaN; pass the model&#39;s context window in tokens")
    assert.include(bad, "option maxTokens: got -3; pass the reply budget in tokens (&gt; 0)")
  })

  it("says so for a report with the governor off, and for a value that is not a report", () => {
    const off = renderReportHtml(contextReport(history, { mode: "off" }))
    assert.include(off, "The context governor is off: nothing is measured.")
    assert.include(off, `id="governor-off"`)
    assert.notInclude(off, `id="bar"`)
    const junk = renderReportHtml({ mode: "on" } as unknown as GovernedReport)
    assert.include(junk, `id="not-a-report"`)
    assert.notInclude(junk, `id="bar"`)
  })

  it("is pure: the report is not changed and the same report gives the same page", () => {
    const report = governed("on")
    assert.deepStrictEqual(purityViolations((r: GovernedReport) => renderReportHtml(r, { window: 8_192 }), report), [])
  })

  it("property: for any report the bar adds up to the window (or to what overflows it) and every text is escaped", () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom("<img src=x onerror=alert(1)>", "\"><b>", "&amp;", "</td></tr><tr>", "'", "<!--"),
      fc.string({ unit: "binary" })
    )
    const segment = fc.record({
      index: fc.nat(500),
      callId: fc.option(hostile, { nil: undefined }),
      type: fc.constantFrom(
        "system",
        "instructions",
        "context-block",
        "checkpoint",
        "invariants",
        "user",
        "assistant",
        "tool-result"
      ),
      origin: hostile,
      tokens: fc.nat(50_000),
      criticality: fc.constantFrom("pinned", "high", "normal", "low"),
      reason: fc.constantFrom("pinned", "user-message", "tool-result", "elided", "would-be-elided"),
      elided: fc.option(fc.constantFrom("superseded_read", "stale_bg_output", "duplicate_search"), { nil: undefined })
    })
    const report = fc.record({
      mode: fc.constantFrom("shadow", "on"),
      segments: fc.array(segment, { maxLength: 30 }),
      extra: fc.nat(2_000),
      savedShare: fc.double({ min: 0, max: 1, noNaN: true }),
      leftOut: fc.nat(5),
      counter: hostile,
      diagnostics: fc.array(hostile, { maxLength: 3 }),
      tool: hostile
    }).map((r): GovernedReport => {
      const segments = r.segments.map((s) => {
        const { callId, elided, ...rest } = s
        return { ...rest, ...(callId === undefined ? {} : { callId }), ...(elided === undefined ? {} : { elided }) }
      })
      const results = segments.filter((s) => s.type === "tool-result").reduce((a, s) => a + s.tokens, 0)
      const before = segments.reduce((a, s) => a + s.tokens, 0) + r.extra
      const saved = Math.floor(results * r.savedShare)
      return {
        mode: r.mode,
        policyVersion: 1,
        messages: segments.length,
        segmentsTotal: segments.length + r.leftOut,
        leftOut: r.leftOut,
        segments,
        tokens: { before, after: before - saved, saved, approximate: true, counter: r.counter },
        elisions: segments.flatMap((s) =>
          s.elided === undefined || s.callId === undefined ? [] : [{
            callId: s.callId,
            supersededBy: r.tool,
            reason: s.elided,
            index: s.index,
            tool: r.tool,
            origin: s.origin,
            tokensSaved: 1
          }]
        ),
        criticality: { pinned: 0, high: 0, normal: 0, low: 0 },
        compacted: false,
        invariants: { total: 0, instruction: 0, goal: 0, plan: 0, criterion: 0, grant: 0 },
        usage: {
          heuristic: true,
          note: r.tool,
          tools: [{ tool: r.tool, seen: 1, used: 0, reread: 0, ratio: "0/1" }],
          unattributable: [{ tool: r.tool, results: 1 }],
          seen: 1,
          used: 0,
          reread: 0,
          unattributableResults: 1
        },
        diagnostics: r.diagnostics
      } as unknown as GovernedReport
    })
    const window = fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: undefined })
    fc.assert(
      fc.property(report, window, fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }), (r, w, max) => {
        const html = renderReportHtml(r, { window: w, maxTokens: max, title: r.tokens.counter, source: r.usage.note })
        assert.notInclude(html, "not-a-report")
        const total = sum(barParts(html))
        const before = r.tokens.before
        if (w === undefined) assert.strictEqual(total, before)
        else {
          const reserved = reserve(w, max)
          assert.strictEqual(total, before + reserved <= w ? w : before + reserved)
        }
        assert.strictEqual(legend(html)["elided"], r.tokens.saved)
        assert.deepStrictEqual(strayTags(html), [])
        // No quote from the transcript closes an attribute: attribute values hold no raw quote or angle bracket.
        for (const s of r.segments) assert.include(html, `<td class="origin">${escapeOracle(s.origin)}`)
      }),
      { numRuns: runs.standard }
    )
  })
})

/** An independent HTML escape, for the property's oracle. */
const escapeOracle = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll(
    "'",
    "&#39;"
  )
