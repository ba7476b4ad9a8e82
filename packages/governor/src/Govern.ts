/**
 * `govern`: the request to send for a history, with the tool results a later result made redundant replaced by
 * one-line stubs (mode `on`), or only measured (`shadow`), or nothing at all (`off`). The stored history is never
 * touched: the projection exists only in the request.
 *
 * @since 0.1.0
 */
import type { BudgetDiagnostic, CostCache, Counter } from "@ctxkit/budget"
import type { FormatInput, MessageFormat } from "@ctxkit/core"
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import { type ContextGoverned, MAX_EVENT_CALL_IDS } from "./ContextGoverned.ts"
import type { GovernorSettingAdjusted } from "./Diagnostics.ts"
import { ElisionReason } from "./ElisionStub.ts"
import { analyze, keep } from "./internal/analysis.ts"
import { countsOf, elisionsOf, estimate, project, segmentCount } from "./internal/projection.ts"
import { settingsOf } from "./internal/settings.ts"
import { summarizeUsage } from "./internal/usage.ts"
import type { ToolKinds } from "./ToolKinds.ts"

/**
 * The governor's mode: `off` (the default) sends the history exactly as it is and measures nothing; `shadow`
 * sends it byte for byte as `off` does and measures what `on` would elide; `on` replaces the redundant results
 * by stubs in the request.
 *
 * @example
 * ```ts
 * import { govern, GovernMode } from "@ctxkit/governor"
 * import * as Schema from "effect/Schema"
 *
 * // A mode read from a configuration file: checked before use.
 * const configured: unknown = "shadow"
 * const mode = Schema.decodeUnknownSync(GovernMode)(configured)
 * govern([{ role: "user", content: "hi" }], { mode }).event?.mode // "shadow"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const GovernMode = Schema.Literals(["off", "shadow", "on"])

/**
 * The type of {@link GovernMode} values.
 *
 * @category models
 * @since 0.1.0
 */
export type GovernMode = typeof GovernMode.Type

/**
 * One replaced (in `on`) or replaceable (in `shadow`) tool result: why, the call id it answers, the call id of
 * the later result that made it redundant, the stub, the estimated tokens saved, and where it sits (message
 * index, tool name).
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 *
 * const history = [
 *   { role: "user", content: "Rename x to y in src/a.ts" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "r1", name: "read_file", arguments: "{\"path\":\"src/a.ts\"}" }] },
 *   { role: "tool", toolCallId: "r1", content: "export const x = 1\n".repeat(20) },
 *   { role: "assistant", content: "", toolCalls: [{ id: "e1", name: "edit_file", arguments: "{\"path\":\"src/a.ts\"}" }] },
 *   { role: "tool", toolCallId: "e1", content: "ok" },
 *   { role: "assistant", content: "Done." },
 *   { role: "user", content: "Thanks" }
 * ]
 * const [elision] = govern(history, { mode: "on", epochMessages: 0 }).elisions
 * elision?.callId // "r1": its result is now a stub
 * elision?.supersededBy // "e1": the edit that made it stale
 * elision && elision.tokensSaved > 0 // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Elision = Schema.Struct({
  reason: ElisionReason,
  /** The call id the elided result answers (it keeps it). */
  callId: Schema.String,
  /** The call id of the later result that made it redundant. */
  supersededBy: Schema.String,
  /** The text that replaces the result's text. */
  stub: Schema.String,
  /** Estimated tokens of the result's text minus those of the stub. */
  tokensSaved: Schema.Number,
  /** Index of the message carrying the result. */
  index: Schema.Number,
  /** The tool's name as called. */
  tool: Schema.String
})

/**
 * The type of {@link Elision} values.
 *
 * @category models
 * @since 0.1.0
 */
export type Elision = typeof Elision.Type

/**
 * What `govern`, `contextReport` and `usageSummary` take. Everything is optional; `mode` defaults to `off`.
 *
 * - `minAgeTurns` (default 2, 1–20): a result is eligible only when at least this many assistant messages came
 *   after it.
 * - `epochMessages` (default 32, 0–1000): only the first `floor(length / epochMessages) × epochMessages`
 *   messages are eligible, and the rules see only them, so the request only grows at its end between epochs; 0
 *   projects as early as possible.
 * - `policyVersion` (1): pins the rules of this version.
 * - `toolKinds` (default `seedToolKinds`): how your tools map onto the governor's kinds.
 * - `format` (default `formats.auto`): your messages' wire format; `counter` (default approximate) and `cache`
 *   (a `CostCache`, so a growing history is counted once) for the token estimates.
 * - `hashReads` (default false): hash full reads (up to 1 MiB) whose tool reports no sha256, so that a later full
 *   read with other content supersedes them.
 * - `request` (default 1) and `previouslyElided` (the call ids the previous request elided): the event's
 *   request number and its "elided for the first time" list.
 * - `usage` (default false): put the usage summary in the event.
 * - `analysis`: the {@link GovernorAnalysis} of the previous request (`result.analysis`), so that only the new
 *   messages are read. Used when the history starts with the same message objects and the format, tool mapping
 *   and `hashReads` are the same; otherwise the history is read anew. The result is the same either way.
 *
 * @example
 * ```ts
 * import { claudeCodeToolKinds, govern } from "@ctxkit/governor"
 * import type { GovernOptions } from "@ctxkit/governor/Govern"
 *
 * // A Claude Code harness measuring first: shadow mode, events with the usage summary.
 * const options: GovernOptions<unknown> = { mode: "shadow", toolKinds: claudeCodeToolKinds, usage: true }
 * govern([{ role: "user", content: "hi" }], options).event?.usage?.heuristic // true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface GovernOptions<M> {
  readonly mode?: GovernMode | undefined
  readonly minAgeTurns?: number | undefined
  readonly epochMessages?: number | undefined
  readonly policyVersion?: 1 | undefined
  readonly toolKinds?: ToolKinds | undefined
  readonly format?: MessageFormat<M> | undefined
  readonly counter?: Counter | undefined
  readonly cache?: CostCache | undefined
  readonly hashReads?: boolean | undefined
  readonly request?: number | undefined
  readonly previouslyElided?: Iterable<string> | undefined
  readonly usage?: boolean | undefined
  readonly analysis?: GovernorAnalysis<M> | undefined
}

/**
 * What the governor learned from a history (every call resolved, every result's digest, matches and offsets, the
 * elision decisions of its epoch window), kept between requests of one session: pass `result.analysis` back as
 * the `analysis` option with the grown history, and only the appended messages are read; between epochs even the
 * decisions are reused. Opaque; `messages` says how many messages it covers. Holding it keeps those messages'
 * records alive, so keep one per session (the latest).
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 *
 * const history = [{ role: "user", content: "Rename x to y in src/a.ts" }]
 * const first = govern(history, { mode: "on" })
 * const grown = [...history, { role: "assistant", content: "On it." }]
 * const next = govern(grown, { mode: "on", analysis: first.analysis })
 * next.analysis?.messages // 2: only the assistant message was read this time
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export interface GovernorAnalysis<M> {
  /** How many messages of the history it covers. */
  readonly messages: number
  /** The message type it was made for (never set: a type marker). */
  readonly _M?: ReadonlyArray<M>
}

/**
 * What the governor reports instead of failing: a setting replaced by a usable value, or a token counter that
 * failed (its texts were counted approximately).
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 *
 * // A bad setting is replaced and said so, never used silently.
 * govern([], { mode: "on", minAgeTurns: 0 }).diagnostics.map((d) => d._tag) // ["GovernorSettingAdjusted"]
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type GovernorDiagnostic = GovernorSettingAdjusted | BudgetDiagnostic

/**
 * The result of {@link govern}: the request to send (`messages`), the elisions (made in `on`, would-be in
 * `shadow`, none in `off`), the `context_governed` event (`undefined` in `off`) and any diagnostics.
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 * import type { GovernResult } from "@ctxkit/governor/Govern"
 *
 * const result: GovernResult<unknown> = govern([{ role: "user", content: "hi" }])
 * result.event // undefined: the governor is off
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface GovernResult<M> {
  /** The request to send: the history itself in `off` and `shadow`; in `on`, a new array in which only eligible results' texts changed. */
  readonly messages: ReadonlyArray<M>
  readonly elisions: ReadonlyArray<Elision>
  readonly event: ContextGoverned | undefined
  readonly diagnostics: ReadonlyArray<GovernorDiagnostic>
  /** What to pass as the `analysis` option of the next request (`undefined` in `off`: nothing is analysed). */
  readonly analysis: GovernorAnalysis<M> | undefined
}

/** The call ids elided now and not in the previous request. */
const newlyElided = (elisions: ReadonlyArray<Elision>, previously: ReadonlySet<string>): Array<string> =>
  elisions.filter((e) => !previously.has(e.callId)).map((e) => e.callId)

/** The request to send: in `on`, the history with the replaced messages; otherwise the history itself. */
const request = <M>(history: ReadonlyArray<M>, replaced: ReadonlyMap<number, M>, mode: GovernMode) => {
  if (mode !== "on" || replaced.size === 0) return history
  const out = history.slice()
  for (const [index, message] of replaced) out[index] = message
  return out
}

const run = <M>(history: ReadonlyArray<M>, options: GovernOptions<M> | undefined): GovernResult<M> => {
  const settings = settingsOf(options)
  // Not an array (a JavaScript caller's mistake): there is nothing to govern.
  const list: ReadonlyArray<M> = Array.isArray(history) ? history : []
  if (settings.mode === "off") {
    return { messages: list, elisions: [], event: undefined, diagnostics: settings.diagnostics, analysis: undefined }
  }
  const state = analyze(list, settings, settings.previous)
  const { analysis } = state
  const { applied, replaced } = project(list, analysis, settings.format)
  const elisions = elisionsOf(applied, settings)
  const tokens = estimate(list, replaced, settings)
  const fresh = newlyElided(elisions, settings.previouslyElided)
  // The usage summary counts what the model saw in full: in `on`, not the elided results.
  const unseen = new Set(settings.mode === "on" ? elisions.map((e) => e.callId) : [])
  const event: ContextGoverned = {
    type: "context_governed",
    mode: settings.mode,
    policyVersion: 1,
    request: settings.request,
    messages: list.length,
    segments: segmentCount(analysis),
    elided: countsOf(elisions),
    tokensBefore: tokens.before.total,
    tokensAfter: tokens.after,
    approximate: tokens.approximate,
    newlyElided: fresh.slice(0, MAX_EVENT_CALL_IDS),
    newlyElidedMore: Math.max(0, fresh.length - MAX_EVENT_CALL_IDS),
    ...(settings.usage ? { usage: summarizeUsage(analysis, unseen) } : {})
  }
  return {
    messages: request(list, replaced, settings.mode),
    elisions,
    event,
    diagnostics: [...settings.diagnostics, ...tokens.before.diagnostics],
    analysis: keep(state)
  }
}

/**
 * Projects a history for one model request (policy version 1). Only successful tool results are replaced, and
 * only when a LATER successful result makes them redundant:
 * - `superseded_read`: a later `write_file`/`edit_file` of the same path, or a later `read_file` of it that
 *   returned another sha256 (reads without one — over 1 MiB — only by a write or edit);
 * - `stale_bg_output`: a later `bg_output` of the same task with identical arguments (offset 0 and the default
 *   limit when absent), or this query returned empty text; a query continuing from an earlier `next_offset` is
 *   never elided;
 * - `duplicate_search`: a later `search_text` with the same arguments and the same matches.
 *
 * Never elided: the last result for a path (read, write or edit), anything in the last turn (from the last
 * normal user message on), error results, user and assistant messages, checkpoints, pinned messages, results
 * younger than `minAgeTurns` assistant messages, and anything past the epoch window. A result is never
 * replaced by a stub that is not shorter. Paths compare as written.
 *
 * Works on your own messages through `format`; never mutates them; in `on`, a new array in which only the
 * eligible results' texts changed (through `format.withResultText`: call ids, roles, order and provider data
 * stay) and every other message is the same object. `shadow` returns the history itself. Linear in the
 * history. Data-first or data-last.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 *
 * const read = (id: string) => ({ role: "assistant", content: "", toolCalls: [{ id, name: "read_file", arguments: "{\"path\":\"src/a.ts\"}" }] })
 * const history = [
 *   { role: "user", content: "Rename x to y in src/a.ts" },
 *   read("r1"),
 *   { role: "tool", toolCallId: "r1", content: "export const x = 1\n".repeat(20) },
 *   { role: "assistant", content: "", toolCalls: [{ id: "e1", name: "edit_file", arguments: "{\"path\":\"src/a.ts\"}" }] },
 *   { role: "tool", toolCallId: "e1", content: "ok" },
 *   read("r2"),
 *   { role: "tool", toolCallId: "r2", content: "export const y = 1\n".repeat(20) },
 *   { role: "assistant", content: "Done." },
 *   { role: "user", content: "Thanks" }
 * ]
 * const { elisions, messages } = govern(history, { mode: "on", epochMessages: 0 })
 * elisions.map((e) => [e.reason, e.callId, e.supersededBy]) // [["superseded_read", "r1", "e1"]]
 * messages[2] // { role: "tool", toolCallId: "r1", content: "[elided: read_file \"src/a.ts\"@unknown; re-read to view]" }
 * messages[0] === history[0] // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const govern: {
  <F>(
    options: Omit<GovernOptions<F>, "analysis"> & { readonly format: MessageFormat<F>; readonly analysis?: undefined }
  ): <M extends FormatInput<F>>(history: ReadonlyArray<M>) => GovernResult<M>
  <M>(options?: GovernOptions<M>): (history: ReadonlyArray<M>) => GovernResult<M>
  <M extends FormatInput<F>, F>(
    history: ReadonlyArray<M>,
    options:
      & Omit<GovernOptions<F>, "analysis">
      & { readonly format: MessageFormat<F>; readonly analysis?: GovernorAnalysis<NoInfer<M>> | undefined }
  ): GovernResult<M>
  <M>(history: ReadonlyArray<M>, options?: GovernOptions<NoInfer<M>> | GovernOptions<unknown>): GovernResult<M>
} = dual(
  (args: IArguments) => args.length >= 2 || Array.isArray(args[0]),
  <M>(history: ReadonlyArray<M>, options?: GovernOptions<M>): GovernResult<M> => run(history, options)
)
