/**
 * The usage summary: of the tool results the model saw in full, how many the agent used later. A heuristic,
 * labelled as one; it never decides what is elided.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import type { GovernOptions } from "./Govern.ts"
import { analyze } from "./internal/analysis.ts"
import { settingsOf } from "./internal/settings.ts"
import { summarizeUsage } from "./internal/usage.ts"

/**
 * One tool's figures: results the model saw in full that name a path (`seen`), how many of them a later call
 * used (`used`), how many were only read again (`reread`), and the ratio as text (`"read_file 20/45"`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolUsage = Schema.Struct({
  tool: Schema.String,
  seen: Schema.Number,
  used: Schema.Number,
  reread: Schema.Number,
  ratio: Schema.String
})

/**
 * The type of `ToolUsage` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolUsage = typeof ToolUsage.Type

/**
 * Results that name no path (background output, web, process output, writes, errors), by tool.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UnattributableUsage = Schema.Struct({
  tool: Schema.String,
  results: Schema.Number
})

/**
 * The type of `UnattributableUsage` values.
 *
 * @category models
 * @since 0.1.0
 */
export type UnattributableUsage = typeof UnattributableUsage.Type

/**
 * The usage summary. `heuristic` is always true and `note` says why; per-tool figures are in `tools`, results
 * with no path in `unattributable`, and the totals alongside.
 *
 * @example
 * ```ts
 * import { UsageSummary, usageSummary } from "@ctxkit/governor"
 * import * as Schema from "effect/Schema"
 *
 * // The summary travels as JSON (in the event or the report) and is read back, checked.
 * const saved = JSON.stringify(usageSummary([], { mode: "shadow" }))
 * Schema.decodeUnknownSync(UsageSummary)(JSON.parse(saved)).heuristic // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const UsageSummary = Schema.Struct({
  heuristic: Schema.Literal(true),
  note: Schema.String,
  tools: Schema.Array(ToolUsage),
  unattributable: Schema.Array(UnattributableUsage),
  seen: Schema.Number,
  used: Schema.Number,
  reread: Schema.Number,
  unattributableResults: Schema.Number
})

/**
 * The type of {@link UsageSummary} values.
 *
 * @category models
 * @since 0.1.0
 */
export type UsageSummary = typeof UsageSummary.Type

const summary = <M>(history: ReadonlyArray<M>, options?: GovernOptions<M>): UsageSummary => {
  const settings = settingsOf(options)
  const list: ReadonlyArray<M> = Array.isArray(history) ? history : []
  const { analysis } = analyze(list, settings, settings.previous)
  const elided = settings.mode === "on"
    ? new Set(analysis.decisions.map((d) => d.fact.callId))
    : new Set<string>()
  return summarizeUsage(analysis, elided)
}

/**
 * The usage summary of a history: of the tool results the model saw in full (all of them in `off` and
 * `shadow`; in `on`, all but the elided ones), how many the agent used later. A result counts as used when a
 * later call names one of its paths — the file read, the files a listing showed, the files a search matched —
 * through a `path` argument, the path of a mapped tool, or a whole word of a shell command. Re-reading the same
 * path is not use and is counted apart (`reread`). Results with no path (background output, web, process
 * output, writes, errors) are counted as unattributable. Per tool, `ratio` reads like `read_file 20/45`.
 *
 * A heuristic, and labelled as one (`heuristic: true`, `note`): it can count a superseded read followed by an
 * edit of the same file, or a path in an unrelated command, and it does not see answers given in text, facts
 * reused in another file or symbols. It never decides what is elided. Data-first or data-last.
 *
 * @example
 * ```ts
 * import { usageSummary } from "@ctxkit/governor"
 *
 * const history = [
 *   { role: "user", content: "Fix a.ts" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "r1", name: "read_file", arguments: "{\"path\":\"a.ts\"}" }] },
 *   { role: "tool", toolCallId: "r1", content: "export const a = 1" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "e1", name: "edit_file", arguments: "{\"path\":\"a.ts\"}" }] },
 *   { role: "tool", toolCallId: "e1", content: "ok" }
 * ]
 * usageSummary(history, { mode: "shadow" }).tools
 * // [{ tool: "read_file", seen: 1, used: 1, reread: 0, ratio: "read_file 1/1" }]
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const usageSummary: {
  <M>(options?: GovernOptions<M>): (history: ReadonlyArray<M>) => UsageSummary
  <M>(history: ReadonlyArray<M>, options?: GovernOptions<M>): UsageSummary
} = dual(
  (args: IArguments) => args.length >= 2 || Array.isArray(args[0]),
  <M>(history: ReadonlyArray<M>, options?: GovernOptions<M>): UsageSummary => summary(history, options)
)
