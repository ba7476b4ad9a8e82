/**
 * The HTML context report in a real browser: Debian's headless Chromium driven by playwright-core (no browser
 * download; `CHROMIUM_PATH`, else `/usr/bin/chromium`; `.ci/run` installs it). The page of a real corpus
 * conversation's report (a generated one when the corpus is absent) is loaded from a file:// URL with every
 * request routed: the bar's rendered segments must add up to the window and each be as wide as its tokens, the
 * table must read back as the report's segments, and nothing may leave the page. A screenshot goes to a temp
 * dir; `CTXKIT_REPORT_SCREENSHOT=docs/images/context-report.png` also writes the one the docs show.
 */
import { reserve } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { canonicalToolKinds, contextReport } from "@ctxkit/governor"
import type { GovernedReport } from "@ctxkit/governor/ContextReport"
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium } from "playwright-core"
import { loadCorpus } from "../../../tests/corpus.ts"
import { renderReportHtml } from "../src/HtmlReport.ts"

const executablePath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
const absent = !existsSync(executablePath)
const ROOT = resolve(import.meta.dirname, "../../..")

/** wave2.md §6: root needs --no-sandbox; the rest keep Chromium off the network. */
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** The corpus conversation the docs show (the largest with elisions when it is missing), or a generated one. */
const subject = (): { readonly messages: ReadonlyArray<Message>; readonly source: string; readonly window: number } => {
  const corpus = loadCorpus()
  const chosen = corpus.find((c) => c.id === "4d5611e5-241a-462a-8d15-5122611a9569") ??
    corpus.find((c) => c.messages.length > 200)
  if (chosen !== undefined) {
    return {
      messages: chosen.messages as unknown as ReadonlyArray<Message>,
      source: `corpus/normalized/${chosen.source}/${chosen.id}.json`,
      window: 200_000
    }
  }
  const messages: Array<Message> = [{ role: "system", content: "You are a coding agent." }]
  for (let i = 0; i < 12; i++) {
    const path = `src/file${i % 4}.ts`
    messages.push({ role: "user", content: `Look at ${path} again (${i}).` })
    messages.push({
      role: "assistant",
      content: "",
      toolCalls: [{ id: `r${i}`, name: "read_file", arguments: JSON.stringify({ path }) }]
    })
    messages.push({ role: "tool", toolCallId: `r${i}`, content: `// ${path} v${i}\n${"code();\n".repeat(80)}` })
    messages.push({ role: "assistant", content: `Read ${path}.` })
  }
  return { messages, source: "generated: 12 turns re-reading four files", window: 16_384 }
}

/** What the bar must show, computed from the report alone. */
const expectedParts = (report: GovernedReport, window: number, maxTokens: number): Record<string, number> => {
  const of = (types: ReadonlyArray<string>) =>
    report.segments.filter((s) => types.includes(s.type)).reduce((a, s) => a + s.tokens, 0)
  const listed = report.segments.reduce((a, s) => a + s.tokens, 0)
  const reserved = reserve(window, maxTokens)
  return {
    system: of(["system", "context-block"]),
    instructions: of(["instructions", "invariants"]),
    history: of(["user", "assistant", "checkpoint"]) + report.tokens.before - listed,
    "tool-results": of(["tool-result"]) - report.tokens.saved,
    elided: report.tokens.saved,
    free: window - reserved - report.tokens.before,
    reserve: reserved
  }
}

describe("the HTML report in headless Chromium", () => {
  it.skipIf(absent)(
    `draws the window to scale, reads back as the report, and loads nothing${
      absent ? ` (skipped: no Chromium at ${executablePath}; set CHROMIUM_PATH or run .ci/run)` : ""
    }`,
    async () => {
      const { messages, source, window } = subject()
      const maxTokens = 32_000
      const report = contextReport(messages, {
        mode: "on",
        format: formats.canonical,
        toolKinds: canonicalToolKinds,
        keepToolResults: 6
      })
      if (report.mode === "off") throw new Error("expected a governed report")
      const dir = mkdtempSync(join(tmpdir(), "ctxkit-report-"))
      const file = join(dir, "report.html")
      writeFileSync(file, renderReportHtml(report, { source, window, maxTokens }))

      const browser = await chromium.launch({ executablePath, headless: true, args: ARGS })
      try {
        const context = await browser.newContext({ viewport: { width: 1240, height: 900 } })
        const outside: Array<string> = []
        await context.route("**/*", (route) => {
          const url = route.request().url()
          if (url.startsWith("file:")) return route.continue()
          outside.push(url)
          return route.abort()
        })
        const page = await context.newPage()
        const files: Array<string> = []
        page.on("request", (request) => void files.push(request.url()))
        await page.goto(pathToFileURL(file).href)

        // The bar: its rendered segments fill it, each as wide as its share of the window.
        const drawn = await page.locator("#bar .seg").evaluateAll((nodes) =>
          nodes.map((n) => ({
            kind: n.getAttribute("data-kind") ?? "",
            tokens: Number(n.getAttribute("data-tokens")),
            width: n.getBoundingClientRect().width
          }))
        )
        const barWidth = await page.locator("#bar").evaluate((n) => n.clientWidth)
        const expected = expectedParts(report, window, maxTokens)
        assert.deepStrictEqual(
          Object.fromEntries(drawn.map((d) => [d.kind, d.tokens])),
          Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0))
        )
        assert.strictEqual(drawn.reduce((a, d) => a + d.tokens, 0), window)
        assert.closeTo(drawn.reduce((a, d) => a + d.width, 0), barWidth, 1)
        for (const d of drawn) assert.closeTo(d.width, (d.tokens / window) * barWidth, 1, d.kind)
        const legend = await page.locator("#legend li").evaluateAll((nodes) =>
          nodes.map((n) => [n.getAttribute("data-kind"), n.querySelector(".tok")?.textContent ?? ""])
        )
        for (const [kind, text] of legend) {
          assert.match(text ?? "", new RegExp(`^${(expected[kind ?? ""] ?? -1).toLocaleString("en-US")} tokens`))
        }

        // The table, row by row.
        const rows = await page.locator("#segments tbody tr").evaluateAll((nodes) =>
          nodes.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""))
        )
        assert.strictEqual(rows.length, report.segments.length)
        rows.forEach((cells, k) => {
          const s = report.segments[k]
          if (s === undefined) throw new Error("a row without a segment")
          assert.deepStrictEqual(
            [cells[0], cells[1], cells[3], cells[4], cells[5]],
            [String(s.index), s.type, s.tokens.toLocaleString("en-US"), s.criticality, s.reason]
          )
          assert.isTrue(cells[2]?.startsWith(s.origin), `row ${k} origin`)
          if (s.elided === undefined) assert.strictEqual(cells[6], "")
          else assert.isTrue(cells[6]?.startsWith(s.elided), `row ${k} elision`)
        })

        assert.deepStrictEqual(outside, [])
        assert.deepStrictEqual(files.filter((u) => !u.startsWith("file:")), [])
        assert.strictEqual(files.length, 1, "the page itself, and nothing else")

        const shot = join(dir, "context-report.png")
        await page.screenshot({ path: shot })
        assert.deepStrictEqual([...readFileSync(shot).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47])
        const docs = process.env["CTXKIT_REPORT_SCREENSHOT"]
        if (docs !== undefined && docs !== "") {
          await page.screenshot({ path: resolve(ROOT, docs) })
          process.stderr.write(`screenshot: ${relative(ROOT, resolve(ROOT, docs))}\n`)
        }
      } finally {
        await browser.close()
      }
    },
    120_000
  )
})
