/**
 * `ctxkit report <file> --window N [--governor shadow|on] [--html out.html]`: the context report — what fills the
 * window, segment by segment, and what the governor elides or would elide. Exit 1 when the request does not fit
 * the window less the reply reserve.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import { loadConversation } from "../internal/conversation.ts"
import { BadInput, Verdict } from "../internal/errors.ts"
import {
  checkCount,
  count,
  file,
  format,
  json,
  loadCounter,
  tokenizer,
  TOOL_KINDS,
  tools
} from "../internal/options.ts"
import { n, printJson, printLines, progressFor } from "../internal/output.ts"

const writeHtml = Effect.fnUntraced(function*(path: string, page: string) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* Effect.option(fs.stat(path))
  if (Option.isSome(info) && info.value.type === "Directory") {
    return yield* new BadInput({
      message: `--html ${path} is a directory; pass a file path such as ${path}/report.html`
    })
  }
  yield* fs.writeFileString(path, page).pipe(
    Effect.mapError((error) =>
      new BadInput({
        message:
          `--html ${path} could not be written (${error.reason._tag}); pass a path in a directory that exists and is writable`
      })
    )
  )
})

/** The `report` subcommand. */
export const reportCommand = Command.make("report", {
  file,
  json,
  format,
  tokenizer,
  tools,
  window: count("window", "The model's context window in tokens"),
  maxTokens: count("max-tokens", "The reply's max_tokens (default: a quarter of the window)"),
  governor: Flag.Literals("governor", ["shadow", "on"] as const).pipe(
    Flag.withDescription("shadow: report what the governor would elide; on: the request with the elisions applied"),
    Flag.withDefault("shadow" as "shadow" | "on")
  ),
  html: Flag.String("html").pipe(
    Flag.withDescription("Also write the report as one self-contained HTML page to this path"),
    Flag.withMetavar("out.html"),
    Flag.optional
  )
}, (flags) =>
  Effect.gen(function*() {
    const window = yield* checkCount("window", flags.window, { unit: "tokens", example: 8192 })
    const maxTokens = yield* checkCount("max-tokens", flags.maxTokens, { unit: "tokens", example: 1024 })
    if (Option.isNone(window)) {
      return yield* new BadInput({
        message: "missing --window N: the model's context window in tokens, e.g. --window 8192"
      })
    }
    if (window.value > 2_000_000) {
      return yield* new BadInput({
        message:
          `--window ${window.value} is over 2,000,000 tokens, which no model has; pass the model's real context window`
      })
    }
    const [{ available, reserve }, { contextReport }, { renderReportHtml }] = yield* Effect.promise(() =>
      Promise.all([import("@ctxkit/budget"), import("@ctxkit/governor"), import("../HtmlReport.ts")])
    )
    const counter = yield* loadCounter(flags.tokenizer)
    const toolKinds = yield* Effect.promise(() => TOOL_KINDS[flags.tools]())
    const conversation = yield* loadConversation(flags.file, flags.format)
    const progress = yield* progressFor(conversation.bytes)
    yield* progress.step(`analysing ${n(conversation.messages.length)} messages`)
    const report = contextReport(conversation.messages, {
      mode: flags.governor,
      format: conversation.format,
      counter,
      toolKinds
    })
    yield* progress.done
    if (Option.isSome(flags.html)) {
      yield* writeHtml(
        flags.html.value,
        renderReportHtml(report, {
          source: conversation.source,
          window: window.value,
          maxTokens: Option.getOrUndefined(maxTokens)
        })
      )
    }
    const max = Option.getOrUndefined(maxTokens)
    const budget = available(window.value, max)
    const reply = reserve(window.value, max)
    // The governor is never off here. In shadow the request is the history as it is; in on, the elided one.
    const tokens = report.mode === "off" ? 0 : report.mode === "on" ? report.tokens.after : report.tokens.before
    if (flags.json) yield* printJson(report)
    else if (report.mode !== "off") {
      const byType = new Map<string, number>()
      for (const s of report.segments) byType.set(s.type, (byType.get(s.type) ?? 0) + s.tokens)
      const largest = [...report.segments].sort((a, b) => b.tokens - a.tokens).slice(0, 5)
      yield* printLines([
        `${conversation.source}: ${n(report.messages)} messages, ${conversation.formatName}${
          conversation.detected ? " (detected)" : ""
        }, counted with ${report.tokens.counter}${report.tokens.approximate ? " (approximate)" : ""}`,
        `window ${n(window.value)}: ${n(tokens)} tokens used (${Math.round((tokens / window.value) * 100)}%), ${
          n(Math.max(0, budget - tokens))
        } free, ${n(reply)} reserved for the reply`,
        `governor ${report.mode}: ${n(report.elisions.length)} ${
          report.mode === "on" ? "elided" : "would be elided"
        }, ${n(report.tokens.saved)} tokens saved (${n(report.tokens.before)} → ${n(report.tokens.after)})`,
        `by type: ${[...byType].map(([type, t]) => `${type} ${n(t)}`).join(", ")}`,
        `criticality: pinned ${report.criticality.pinned}, high ${report.criticality.high}, normal ${report.criticality.normal}, low ${report.criticality.low}`,
        "largest segments:",
        ...largest.map((s) =>
          `  #${s.index} ${s.type} ${s.origin}: ${n(s.tokens)} tokens, ${s.criticality} (${s.reason})${
            s.elided === undefined ? "" : `, elided: ${s.elided}`
          }`
        ),
        ...(report.leftOut > 0 ? [`(${n(report.leftOut)} segments left out of the report, over its 400 limit)`] : []),
        ...(Option.isSome(flags.html) ? [`HTML report written to ${flags.html.value}`] : []),
        ...report.diagnostics.map((d) => `note: ${d}`)
      ])
    }
    if (tokens > budget) {
      return yield* new Verdict({
        message: `the request (${n(tokens)} tokens) does not fit the window of ${n(window.value)} less ${
          n(reply)
        } reserved for the reply; run \`ctxkit fit\` to see what to drop, or use a larger window`
      })
    }
  })).pipe(
    Command.withDescription("The context report: what fills the window and what the governor would elide"),
    Command.withExamples([
      { command: "ctxkit report chat.json --window 32768", description: "The report, human-readable" },
      { command: "ctxkit report chat.json --window 32768 --html report.html", description: "Also as an HTML page" }
    ])
  )
