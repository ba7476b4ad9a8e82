/**
 * The context report as one self-contained HTML page: the window drawn as a stacked bar (system, instructions,
 * history, tool results, elided, free, reserve — to scale, each with its tokens) above the segment table
 * (criticality, reason, elision). No script, no network, no external file: the CSS is inline and a
 * Content-Security-Policy forbids every fetch, so the page opens the same from disk, a mail attachment or a CI
 * artifact.
 *
 * @since 0.1.0
 */
import { reserve as reserveTokens } from "@ctxkit/budget"
import { ContextReport, type ReportSegment } from "@ctxkit/governor"
import type { GovernedReport } from "@ctxkit/governor/ContextReport"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * What the page says about where the report came from, and the window it is drawn against.
 *
 * @category models
 * @since 0.1.0
 */
export interface HtmlReportOptions {
  /** The page title; default "ctxkit context report". */
  readonly title?: string | undefined
  /** Where the conversation came from (a file path), shown under the title. */
  readonly source?: string | undefined
  /**
   * The model's context window in tokens: the bar is drawn to this scale, with the free space and the reply
   * reserve. Absent: the bar shows the history alone.
   */
  readonly window?: number | undefined
  /** The reply budget (`max_tokens`); the reserve drawn is `reserve(window, maxTokens)` of `@ctxkit/budget`. */
  readonly maxTokens?: number | undefined
}

/** The parts of the bar, in drawing order. */
const KINDS = ["system", "instructions", "history", "tool-results", "elided", "free", "reserve"] as const
type Kind = typeof KINDS[number]

const LABELS: Readonly<Record<Kind, string>> = {
  system: "system",
  instructions: "instructions",
  history: "history",
  "tool-results": "tool results",
  elided: "elided",
  free: "free",
  reserve: "reserve"
}

/** One part of the bar: its tokens, and what the legend says it holds. */
interface BarPart {
  readonly kind: Kind
  readonly tokens: number
  readonly note: string
}

/** The bar: its parts, the scale they add up to, and where the window ends when the request overflows it. */
interface Bar {
  readonly parts: ReadonlyArray<BarPart>
  readonly scale: number
  readonly window: number | undefined
  readonly reserve: number
  readonly used: number
  readonly over: number
}

const isWindow = (value: unknown): value is number =>
  Predicate.isNumber(value) && Number.isFinite(value) && value > 0 && value <= 2_000_000

const isReplyBudget = (value: unknown): value is number =>
  Predicate.isNumber(value) && Number.isFinite(value) && value > 0

const whole = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0)

/** Which part of the bar a segment's tokens go to. */
const kindOf = (segment: ReportSegment): Kind => {
  switch (segment.type) {
    case "system":
    case "context-block":
      return "system"
    case "instructions":
    case "invariants":
      return "instructions"
    case "tool-result":
      return "tool-results"
    default:
      return "history"
  }
}

/**
 * The bar of a governed report. Every segment's tokens go to its part; the tokens the governor elides (or would)
 * move from "tool results" to "elided"; tokens of segments the report did not list (over its 400-segment limit)
 * and any framing outside the segments count as history. With a window, free = window − reserve − history (never
 * below 0), so the parts add up to the window whenever the history fits; over it, they add up to history +
 * reserve and the window's end is marked.
 */
const barOf = (report: GovernedReport, window: number | undefined, maxTokens: number | undefined): Bar => {
  const sums: Record<Kind, number> = {
    system: 0,
    instructions: 0,
    history: 0,
    "tool-results": 0,
    elided: 0,
    free: 0,
    reserve: 0
  }
  let listed = 0
  for (const segment of report.segments) {
    const tokens = whole(segment.tokens)
    sums[kindOf(segment)] += tokens
    listed += tokens
  }
  const before = Math.max(listed, whole(report.tokens.before))
  sums.history += before - listed
  const saved = Math.min(whole(report.tokens.saved), sums["tool-results"])
  sums["tool-results"] -= saved
  sums.elided = saved
  const reserve = window === undefined ? 0 : reserveTokens(window, maxTokens)
  sums.reserve = reserve
  const room = window === undefined ? 0 : window - reserve
  sums.free = Math.max(0, room - before)
  const over = window === undefined ? 0 : Math.max(0, before - room)
  const elidedNote = report.mode === "on"
    ? "replaced by stubs: not sent, freed for the request"
    : "would be replaced by stubs (shadow: still sent)"
  const notes: Readonly<Record<Kind, string>> = {
    system: "the system prompt and system blocks (memory, lorebook)",
    instructions: "instructions files and the invariants block",
    history: report.leftOut > 0
      ? `user and assistant messages, checkpoints (and ${report.leftOut} segments not listed)`
      : "user and assistant messages, checkpoints",
    "tool-results": "tool results the request carries",
    elided: elidedNote,
    free: "room left for more history",
    reserve: "kept for the reply (max_tokens)"
  }
  const parts = KINDS.filter((kind) => window !== undefined || (kind !== "free" && kind !== "reserve")).map((kind) => ({
    kind,
    tokens: sums[kind],
    note: notes[kind]
  }))
  return { parts, scale: before + sums.free + reserve, window, reserve, used: before, over }
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\"": "&quot;",
  "'": "&#39;"
}

/** Text for HTML content and quoted attributes. */
const escape = (text: unknown): string => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

const number = (n: number): string => n.toLocaleString("en-US")

const percent = (part: number, whole_: number): string =>
  whole_ <= 0 ? "0%" : `${(Math.round((part / whole_) * 1000) / 10).toFixed(1)}%`

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:#1d2430;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:16px;margin:28px 0 10px}
.source{margin:0;color:#5b6472;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;word-break:break-all}
.summary{margin:10px 0 0;color:#323b48}
.verdict{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;font-size:12.5px}
.verdict.fits{background:#dff3e5;color:#1e6b3a}.verdict.over{background:#fbe1e1;color:#9b1c1c}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:16px 18px}
.bar{position:relative;display:flex;height:46px;border-radius:6px;overflow:hidden;border:1px solid #c9ced6;background:#fff}
.seg{flex-basis:0;flex-shrink:0;min-width:0;overflow:hidden;white-space:nowrap;color:#fff;font-size:12px;font-weight:600;line-height:44px;text-indent:6px}
.seg-system{background:#6d4fc7}.seg-instructions{background:#2d6fd6}.seg-history{background:#1f9d63}
.seg-tool-results{background:#e07b24}
.seg-elided{background:repeating-linear-gradient(135deg,#c0392b 0 6px,#e49a92 6px 12px)}
.seg-free{background:#eef1f4;color:#4b5563}
.seg-reserve{background:repeating-linear-gradient(135deg,#8a94a3 0 6px,#a9b2bf 6px 12px)}
.seg-elided,.seg-reserve{text-shadow:0 0 2px #000,0 0 4px #000}
.mark{position:absolute;top:-6px;bottom:-6px;width:0;border-left:2px dashed #9b1c1c}
.scale{display:flex;justify-content:space-between;color:#5b6472;font-size:12px;margin-top:4px}
.legend{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:6px 18px;margin:14px 0 0;padding:0;list-style:none}
.legend li{display:grid;grid-template-columns:14px 1fr auto;gap:0 8px;align-items:baseline}
.legend .sw{width:14px;height:14px;border-radius:3px;align-self:center}
.legend .name{font-weight:600}.legend .tok{font-variant-numeric:tabular-nums}
.legend .note{grid-column:2/4;color:#5b6472;font-size:12px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #dde1e7;border-radius:8px;font-size:13px}
th,td{text-align:left;padding:5px 9px;border-bottom:1px solid #edf0f3;vertical-align:top}
th{background:#f0f2f5;font-weight:600;position:sticky;top:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.kw{white-space:nowrap}
td.origin .muted{display:block;font-size:11px}
td.origin{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;word-break:break-all;max-width:420px}
.crit{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600}
.crit-pinned{background:#e9e3fb;color:#4b2fa3}.crit-high{background:#dcebfd;color:#1c4f9c}
.crit-normal{background:#eceff2;color:#3f4855}.crit-low{background:#fdebd9;color:#8a4510}
tr.elided td{background:#fff6f5}
.muted{color:#5b6472}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:10px}
.facts .card h3{margin:0 0 6px;font-size:13.5px}
.facts ul{margin:0;padding-left:18px}
`

const swatch = (kind: Kind): string => `<span class="sw seg-${kind}"></span>`

const renderBar = (bar: Bar): string => {
  const visible = bar.parts.filter((p) => p.tokens > 0)
  const segments = visible.map((p) => {
    const share = bar.scale > 0 ? p.tokens / bar.scale : 0
    const text = share >= 0.09 ? `${LABELS[p.kind]} ${number(p.tokens)}` : ""
    return `<div class="seg seg-${p.kind}" data-kind="${p.kind}" data-tokens="${p.tokens}" style="flex-grow:${p.tokens}" title="${
      escape(`${LABELS[p.kind]}: ${number(p.tokens)} tokens (${percent(p.tokens, bar.scale)})`)
    }">${escape(text)}</div>`
  }).join("")
  const mark = bar.over > 0 && bar.window !== undefined
    ? `<div class="mark" data-window="${bar.window}" style="left:${
      ((bar.window / bar.scale) * 100).toFixed(4)
    }%" title="${escape(`the window ends here: ${number(bar.window)} tokens`)}"></div>`
    : ""
  const scaleLabel = bar.window === undefined
    ? `${number(bar.scale)} tokens of history (no window given)`
    : bar.over > 0
    ? `${number(bar.scale)} tokens: over the ${number(bar.window)}-token window by ${number(bar.over)}`
    : `window ${number(bar.window)} tokens`
  const legend = bar.parts.map((p) =>
    `<li data-kind="${p.kind}" data-tokens="${p.tokens}">${swatch(p.kind)}<span class="name">${
      escape(LABELS[p.kind])
    }</span><span class="tok">${number(p.tokens)} tokens · ${percent(p.tokens, bar.scale)}</span><span class="note">${
      escape(p.note)
    }</span></li>`
  ).join("")
  return `<div class="bar" id="bar" role="img" data-scale="${bar.scale}" aria-label="${
    escape(bar.parts.map((p) => `${LABELS[p.kind]} ${p.tokens}`).join(", "))
  }">${segments}${mark}</div><div class="scale"><span>0</span><span>${escape(scaleLabel)}</span></div>` +
    `<ul class="legend" id="legend">${legend}</ul>`
}

const renderSegments = (report: GovernedReport): string => {
  const elisionOf = new Map(report.elisions.map((e) => [e.callId, e]))
  const rows = report.segments.map((s) => {
    const elision = s.callId === undefined ? undefined : elisionOf.get(s.callId)
    const elided = s.elided === undefined
      ? ""
      : `${escape(s.elided)}${
        elision === undefined
          ? ""
          : ` <span class="muted">saves ${number(elision.tokensSaved)}; superseded by ${
            escape(elision.supersededBy)
          }</span>`
      }`
    return `<tr${
      s.elided === undefined ? "" : " class=\"elided\""
    } data-index="${s.index}"><td class="num">${s.index}</td><td class="kw">${escape(s.type)}</td><td class="origin">${
      escape(s.origin)
    }${s.callId === undefined ? "" : ` <span class="muted">${escape(s.callId)}</span>`}</td><td class="num">${
      number(s.tokens)
    }</td><td><span class="crit crit-${escape(s.criticality)}">${escape(s.criticality)}</span></td><td class="kw">${
      escape(s.reason)
    }</td><td>${elided}</td></tr>`
  }).join("")
  const leftOut = report.leftOut > 0
    ? `<p class="muted" id="left-out">${
      number(report.leftOut)
    } more segments are not listed: a report lists at most 400 (pinned, low and elided ones always).</p>`
    : ""
  return `<table id="segments"><thead><tr><th class="num">message</th><th>type</th><th>origin</th>` +
    `<th class="num">tokens</th><th>criticality</th><th>reason</th><th>elided</th></tr></thead><tbody>${rows}` +
    `</tbody></table>${leftOut}`
}

const renderFacts = (report: GovernedReport, diagnostics: ReadonlyArray<string>): string => {
  const c = report.criticality
  const inv = report.invariants
  const usage = report.usage
  const tools = usage.tools.map((t) => `<li>${escape(t.tool)} ${t.used}/${t.seen}</li>`).join("")
  const unattributable = usage.unattributable.map((u) => `<li>${escape(u.tool)}: ${u.results}</li>`).join("")
  const notes = diagnostics.map((d) => `<li>${escape(d)}</li>`).join("")
  return `<div class="facts">` +
    `<div class="card"><h3>Criticality</h3><ul><li>pinned ${c.pinned}</li><li>high ${c.high}</li><li>normal ${c.normal}</li><li>low ${c.low}</li></ul></div>` +
    `<div class="card"><h3>Invariants ${
      report.compacted ? "(compacted)" : "(not compacted)"
    }</h3><ul><li>total ${inv.total}</li>` +
    `<li>instruction ${inv.instruction}</li><li>goal ${inv.goal}</li><li>plan ${inv.plan}</li><li>criterion ${inv.criterion}</li><li>grant ${inv.grant}</li></ul></div>` +
    `<div class="card"><h3>Usage (a heuristic)</h3><p class="muted">${escape(usage.note)}</p><ul>${tools}</ul>` +
    `${
      unattributable === "" ? "" : `<p class="muted">Unattributable:</p><ul>${unattributable}</ul>`
    }<p>${usage.used} of ${usage.seen} results used later; ${usage.reread} re-read</p></div>` +
    (notes === "" ? "" : `<div class="card" id="diagnostics"><h3>Diagnostics</h3><ul>${notes}</ul></div>`) +
    `</div>`
}

const page = (title: string, body: string): string =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
  `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>` +
  `<style>${STYLE}</style></head><body><main>${body}</main></body></html>\n`

const header = (title: string, source: string | undefined, summary: string): string =>
  `<header><h1>${escape(title)}</h1>${
    source === undefined ? "" : `<p class="source" id="source">${escape(source)}</p>`
  }<p class="summary" id="summary">${summary}</p></header>`

const isReport = Schema.is(ContextReport)

/**
 * Renders a context report as one self-contained HTML page: no script, no network, no external file (inline
 * CSS; a Content-Security-Policy that forbids every fetch). The window is drawn as a stacked bar of system,
 * instructions, history, tool results, elided, free and reserve — each part's width proportional to its tokens,
 * all of them adding up to the window when the history fits — with a legend giving each part's tokens, then the
 * segment table (message, type, origin, tokens, criticality, reason, elision), the criticality and invariant
 * counts, the usage summary and the diagnostics. Every text that comes from the conversation (origins, call
 * ids, the title and the source) is HTML-escaped.
 *
 * Pure and total: a bad `window` or `maxTokens` draws the bar without it (or with the default reserve) and the
 * page's diagnostics say which option, what it was and what was used; a value that is not a context report gives
 * a page that says so.
 *
 * @example
 * ```ts
 * import { renderReportHtml } from "@ctxkit/cli"
 * import { contextReport } from "@ctxkit/governor"
 * import { writeFileSync } from "node:fs"
 *
 * const history = [
 *   { role: "system" as const, content: "You are a coding agent." },
 *   { role: "user" as const, content: "Why does the build fail?" }
 * ]
 * const report = contextReport(history, { mode: "shadow" })
 * writeFileSync("report.html", renderReportHtml(report, { source: "session.json", window: 8_192, maxTokens: 1_024 }))
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const renderReportHtml = (report: ContextReport, options: HtmlReportOptions = {}): string => {
  const given: HtmlReportOptions = Predicate.isObject(options) ? options : {}
  const diagnostics: Array<string> = []
  const title = Predicate.isString(given.title) && given.title.length > 0 ? given.title : "ctxkit context report"
  const source = Predicate.isString(given.source) && given.source.length > 0 ? given.source : undefined
  let window: number | undefined
  if (given.window !== undefined) {
    if (isWindow(given.window)) window = Math.floor(given.window)
    else {
      diagnostics.push(
        `option window: got ${
          String(given.window)
        }; pass the model's context window in tokens (a number in 1–2,000,000); the bar was drawn without a window`
      )
    }
  }
  let maxTokens: number | undefined
  if (given.maxTokens !== undefined) {
    if (isReplyBudget(given.maxTokens)) maxTokens = given.maxTokens
    else {
      diagnostics.push(
        `option maxTokens: got ${
          String(given.maxTokens)
        }; pass the reply budget in tokens (> 0); the default reserve (a quarter of the window) was used`
      )
    }
  }
  if (!isReport(report)) {
    return page(
      title,
      header(title, source, "This value is not a context report, so there is nothing to draw.") +
        `<p id="not-a-report">Pass the value of <code>contextReport(history, { mode: "shadow" })</code> from ` +
        `@ctxkit/governor (or <code>ctxkit report --json</code> output, decoded with its ContextReport schema).</p>`
    )
  }
  if (report.mode === "off") {
    return page(
      title,
      header(title, source, escape(report.note)) +
        `<p id="governor-off">Run the report with the governor in <code>shadow</code> (nothing changes in the ` +
        `request) or <code>on</code> to see its segments.</p>`
    )
  }
  const bar = barOf(report, window, maxTokens)
  const fits = window === undefined ? undefined : bar.over === 0
  const verdict = fits === undefined
    ? ""
    : ` <span class="verdict ${fits ? "fits" : "over"}" id="verdict">${
      fits ? "fits" : `over by ${number(bar.over)}`
    }</span>`
  const summary = `${report.messages} messages, ${report.segmentsTotal} segments, ` +
    `${number(report.tokens.before)} tokens${
      report.tokens.approximate ?
        ` (estimated, ${escape(report.tokens.counter)})` :
        ` (${escape(report.tokens.counter)})`
    }; governor <b>${report.mode}</b>: ${report.elisions.length} ${
      report.mode === "on" ? "elided" : "would be elided"
    }, ${number(report.tokens.saved)} tokens ${report.mode === "on" ? "saved" : "would be saved"} → ${
      number(report.tokens.after)
    }${window === undefined ? "" : `; window ${number(window)}, reserve ${number(bar.reserve)}`}.${verdict}`
  return page(
    title,
    header(title, source, summary) +
      `<section><h2>The window</h2><div class="card">${renderBar(bar)}</div></section>` +
      `<section><h2>Segments</h2>${renderSegments(report)}</section>` +
      `<section><h2>More</h2>${renderFacts(report, [...diagnostics, ...report.diagnostics])}</section>`
  )
}
