/**
 * Compaction plugin hooks: `beforeCompact` adds instructions and extra JSON output fields to the same summarizer
 * call; `afterCompact` reads the checkpoint and the plugin's own extracted fields, and may inject context after
 * the checkpoint and report. Each hook runs under a timeout; a hook that fails, dies, times out or returns
 * something unusable is reported as `plugin_hook_failed` and compaction goes on without it.
 *
 * @since 0.1.0
 */
import { describeValue } from "@ctxkit/core/Describe"
import { safeHead } from "@ctxkit/core/TextCut"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ParsedCheckpoint } from "./Checkpoint.ts"
import type { CompactionReason, PluginHookFailed, PluginHookName, PluginReport } from "./Events.ts"
import { describeIssue } from "./internal/events.ts"
import { DEFAULT_HOOK_TIMEOUT, hookTimeout, runHook, safeDecode } from "./internal/eventsHooks.ts"
import { INJECT_CONTEXT_MAX_CHARS } from "./SummaryMessage.ts"

/**
 * What `beforeCompact` is told: why the compaction runs and how many messages the history has.
 *
 * @category plugins
 * @since 0.1.0
 */
export interface BeforeCompactContext {
  /** Why the compaction runs. */
  readonly reason: CompactionReason
  /** Number of messages in the history. */
  readonly messages: number
}

/**
 * What `beforeCompact` may return: instructions appended to the summarizer's system text, and extra output
 * fields (name → what to put there) the summarizer is asked to add next to `checkpoint` in its JSON reply.
 *
 * @category plugins
 * @since 0.1.0
 */
export interface BeforeCompactResult {
  /** Extra instructions for the summarizer. */
  readonly instructions?: string | undefined
  /** Extra top-level JSON fields to request: name → description. */
  readonly outputFields?: Readonly<Record<string, string>> | undefined
}

/**
 * What `afterCompact` is told: why the compaction ran, the parsed checkpoint, and the values of the output fields
 * THIS plugin requested (only those; absent when the summarizer did not return them or the reply was not JSON).
 *
 * @category plugins
 * @since 0.1.0
 */
export interface AfterCompactContext {
  /** Why the compaction ran. */
  readonly reason: CompactionReason
  /** The parsed checkpoint. */
  readonly checkpoint: ParsedCheckpoint
  /** This plugin's own extracted fields. */
  readonly extracted: Readonly<Record<string, unknown>>
}

/**
 * What `afterCompact` may return: text to add after the checkpoint (cut to {@link INJECT_CONTEXT_MAX_CHARS}),
 * and a report (a one-line summary a host may show, and JSON data) that goes into `compaction_completed.plugins`.
 *
 * @category plugins
 * @since 0.1.0
 */
export interface AfterCompactResult {
  /** Text added after the checkpoint. */
  readonly injectContext?: string | undefined
  /** What to record in the completed event. */
  readonly report?: {
    /** A one-line summary for the user. */
    readonly summary?: string | undefined
    /** Anything else, as JSON. */
    readonly data?: Schema.Json | undefined
  } | undefined
}

/**
 * A compaction plugin: a name and either hook. Hooks return Effects that need no services (provide them when
 * building the plugin) and must not take long: each runs under the host's timeout.
 *
 * @example
 * ```ts
 * import type { CompactionPlugin } from "@ctxkit/compaction"
 * import * as Effect from "effect/Effect"
 *
 * const memory: CompactionPlugin = {
 *   name: "memory",
 *   beforeCompact: () => Effect.succeed({ outputFields: { memories: "string[]: durable facts about the user" } }),
 *   afterCompact: ({ extracted }) =>
 *     Effect.succeed({
 *       report: { summary: `${Array.isArray(extracted["memories"]) ? extracted["memories"].length : 0} memories` }
 *     })
 * }
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export interface CompactionPlugin {
  /** A stable name: the `source` of its failure events and the `name` of its report. */
  readonly name: string
  /** Adds instructions and output fields to the summarizer call. */
  readonly beforeCompact?:
    | ((context: BeforeCompactContext) => Effect.Effect<BeforeCompactResult, unknown>)
    | undefined
  /** Reads the checkpoint; may inject context and report. */
  readonly afterCompact?:
    | ((context: AfterCompactContext) => Effect.Effect<AfterCompactResult, unknown>)
    | undefined
}

/**
 * Options of {@link runBeforeCompact} and {@link runAfterCompact}.
 *
 * @example
 * ```ts
 * import { runBeforeCompact } from "@ctxkit/compaction/PluginHooks"
 * import * as Effect from "effect/Effect"
 *
 * const plugins = [{ name: "notes", beforeCompact: () => Effect.succeed({ instructions: "Keep the TODO list." }) }]
 * const run = Effect.runSync(runBeforeCompact(plugins, { reason: "auto", messages: 12 }, { timeout: "2 seconds" }))
 * run.instructions // ["Keep the TODO list."]
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export interface HookOptions {
  /**
   * How long each hook may run, as a `Duration.Input` (`"2 seconds"`, `Duration.millis(500)`, or a number of
   * milliseconds). Default 5 seconds (long enough for a local store write, short enough not to stall a turn).
   * `compact` refuses a value that is not a duration ≥ 0; here it means the default. A hook that blocks
   * synchronously cannot be interrupted.
   */
  readonly timeout?: Duration.Input | undefined
}

/**
 * What {@link runBeforeCompact} gathered: the instructions (in plugin order), the output fields (name →
 * description; a name requested twice goes to the first plugin), which fields each plugin was granted (aligned
 * with the plugins given), and a `plugin_hook_failed` event for every failure.
 *
 * @category plugins
 * @since 0.1.0
 */
export interface BeforeCompactRun {
  /** Instructions to add to the summarizer's system text, in plugin order. */
  readonly instructions: ReadonlyArray<string>
  /** Output fields to request, in plugin order. */
  readonly fields: Readonly<Record<string, string>>
  /** For each plugin given (same index), the field names it owns. */
  readonly granted: ReadonlyArray<ReadonlyArray<string>>
  /** One event per failed hook or refused field. */
  readonly events: ReadonlyArray<PluginHookFailed>
}

/**
 * What {@link runAfterCompact} gathered: the context to inject after the checkpoint (in plugin order, each cut to
 * 24,000 characters), the reports, and a `plugin_hook_failed` event for every failure.
 *
 * @category plugins
 * @since 0.1.0
 */
export interface AfterCompactRun {
  /** Texts to add after the checkpoint, in plugin order. */
  readonly injectContext: ReadonlyArray<string>
  /** The reports, in plugin order. */
  readonly reports: ReadonlyArray<PluginReport>
  /** One event per failed hook. */
  readonly events: ReadonlyArray<PluginHookFailed>
}

/** Output field names the summarizer reply already uses. */
const RESERVED_FIELDS: ReadonlySet<string> = new Set(["checkpoint"])

const BeforeResultSchema = Schema.Struct({
  instructions: Schema.optional(Schema.String),
  outputFields: Schema.optional(Schema.Record(Schema.String, Schema.String))
})
const decodeBefore = Schema.decodeUnknownResult(BeforeResultSchema)

const AfterResultSchema = Schema.Struct({
  injectContext: Schema.optional(Schema.String),
  report: Schema.optional(Schema.Struct({
    summary: Schema.optional(Schema.String),
    data: Schema.optional(Schema.Json)
  }))
})
const decodeAfter = Schema.decodeUnknownResult(AfterResultSchema)

const failed = (source: string, hook: PluginHookName, error: string): PluginHookFailed => ({
  type: "plugin_hook_failed",
  data: { source, hook, error, continued: true }
})

const nameOf = (plugin: CompactionPlugin, index: number): string =>
  typeof plugin === "object" && plugin !== null && typeof plugin.name === "string" && plugin.name !== ""
    ? plugin.name
    : `plugin #${index + 1}`

const listOf = (plugins: ReadonlyArray<CompactionPlugin> | undefined): ReadonlyArray<CompactionPlugin> =>
  Array.isArray(plugins) ? plugins : []

/** A hook's `undefined`/`void` answer means "nothing to add". */
const orEmpty = (value: unknown): unknown => value === undefined ? {} : value

/**
 * Runs every plugin's `beforeCompact`, one after the other in the order given, each under the timeout, and
 * merges what they ask for. A hook that throws, fails, dies, times out or returns something that is not
 * `{ instructions?: string, outputFields?: Record<string, string> }` is skipped with a `plugin_hook_failed`
 * event (`continued: true`). An output field already requested by an earlier plugin, or named `checkpoint`, is
 * refused for that plugin (its other fields and instructions are kept) with an event saying so. Blank
 * instructions are ignored. Never fails.
 *
 * @example
 * ```ts
 * import { type CompactionPlugin } from "@ctxkit/compaction"
 * import { runBeforeCompact } from "@ctxkit/compaction/PluginHooks"
 * import * as Effect from "effect/Effect"
 *
 * const plugins: ReadonlyArray<CompactionPlugin> = [
 *   { name: "memory", beforeCompact: () => Effect.succeed({ instructions: "Note user preferences.", outputFields: { memories: "string[]" } }) },
 *   { name: "broken", beforeCompact: () => Effect.fail("store offline") }
 * ]
 * const run = Effect.runSync(runBeforeCompact(plugins, { reason: "auto", messages: 40 }))
 * run.instructions // ["Note user preferences."]
 * run.fields // { memories: "string[]" }
 * run.events[0]?.data // { source: "broken", hook: "beforeCompact", error: "store offline", continued: true }
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const runBeforeCompact: (
  plugins: ReadonlyArray<CompactionPlugin> | undefined,
  context: BeforeCompactContext,
  options?: HookOptions | undefined
) => Effect.Effect<BeforeCompactRun> = Effect.fn("runBeforeCompact")(function*(
  plugins: ReadonlyArray<CompactionPlugin> | undefined,
  context: BeforeCompactContext,
  options?: HookOptions | undefined
) {
  const list = listOf(plugins)
  const timeout = hookTimeout(options?.timeout) ?? DEFAULT_HOOK_TIMEOUT
  const instructions: Array<string> = []
  const fields: Record<string, string> = {}
  const owners = new Map<string, string>()
  const granted: Array<ReadonlyArray<string>> = []
  const events: Array<PluginHookFailed> = []
  for (let index = 0; index < list.length; index++) {
    const plugin = list[index] as CompactionPlugin
    const name = nameOf(plugin, index)
    const hook = typeof plugin === "object" && plugin !== null ? plugin.beforeCompact : undefined
    if (typeof hook !== "function") {
      granted.push([])
      continue
    }
    const outcome = yield* runHook(() => hook({ reason: context.reason, messages: context.messages }), timeout)
    if (outcome._tag === "Failed") {
      events.push(failed(name, "beforeCompact", outcome.error))
      granted.push([])
      continue
    }
    const decoded = yield* safeDecode(decodeBefore, orEmpty(outcome.value))
    if (decoded === undefined || Result.isFailure(decoded)) {
      const detail = decoded === undefined ? "a value that cannot be read" : describeIssue(decoded.failure)
      events.push(failed(name, "beforeCompact", `returned an invalid result: ${detail}`))
      granted.push([])
      continue
    }
    const answer = decoded.success
    if (answer.instructions !== undefined && answer.instructions.trim() !== "") {
      instructions.push(answer.instructions.trim())
    }
    const mine: Array<string> = []
    for (const [field, description] of Object.entries(answer.outputFields ?? {})) {
      const owner = owners.get(field)
      if (RESERVED_FIELDS.has(field) || field.trim() === "") {
        events.push(
          failed(name, "beforeCompact", `output field ${describeValue(field)} is reserved or empty; it was ignored`)
        )
      } else if (owner !== undefined) {
        events.push(
          failed(
            name,
            "beforeCompact",
            `output field ${describeValue(field)} is already requested by plugin ${
              describeValue(owner)
            }; it was ignored`
          )
        )
      } else {
        owners.set(field, name)
        fields[field] = description
        mine.push(field)
      }
    }
    granted.push(mine)
  }
  return { instructions, fields, granted, events }
})

/**
 * Runs every plugin's `afterCompact`, one after the other in the order given, each under the timeout, giving each
 * the checkpoint and ONLY the extracted fields it was granted (`granted[i]`, from {@link runBeforeCompact}).
 * `injectContext` texts are kept in plugin order, each cut to 24,000 characters (blank ones ignored); each
 * plugin's report gets the plugin's name. A hook that throws, fails, dies, times out or returns something that
 * is not `{ injectContext?: string, report?: { summary?: string, data?: Json } }` is skipped with a
 * `plugin_hook_failed` event (`continued: true`). A plugin whose `beforeCompact` failed still runs its
 * `afterCompact`, with no fields. Never fails.
 *
 * @example
 * ```ts
 * import { type CompactionPlugin } from "@ctxkit/compaction"
 * import { runAfterCompact } from "@ctxkit/compaction/PluginHooks"
 * import * as Effect from "effect/Effect"
 *
 * const plugins: ReadonlyArray<CompactionPlugin> = [{
 *   name: "memory",
 *   afterCompact: ({ extracted }) =>
 *     Effect.succeed({ injectContext: `Remembered: ${String(extracted["memories"])}`, report: { summary: "saved" } })
 * }]
 * const checkpoint = { structured: false, extracted: { memories: "tabs" }, text: "…" }
 * const run = Effect.runSync(runAfterCompact(plugins, { reason: "auto", checkpoint, granted: [["memories"]] }))
 * run.injectContext // ["Remembered: tabs"]
 * run.reports // [{ name: "memory", summary: "saved" }]
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const runAfterCompact: (
  plugins: ReadonlyArray<CompactionPlugin> | undefined,
  context: {
    readonly reason: CompactionReason
    readonly checkpoint: ParsedCheckpoint
    readonly granted?: ReadonlyArray<ReadonlyArray<string>> | undefined
  },
  options?: HookOptions | undefined
) => Effect.Effect<AfterCompactRun> = Effect.fn("runAfterCompact")(function*(
  plugins: ReadonlyArray<CompactionPlugin> | undefined,
  context: {
    readonly reason: CompactionReason
    readonly checkpoint: ParsedCheckpoint
    readonly granted?: ReadonlyArray<ReadonlyArray<string>> | undefined
  },
  options?: HookOptions | undefined
) {
  const list = listOf(plugins)
  const timeout = hookTimeout(options?.timeout) ?? DEFAULT_HOOK_TIMEOUT
  const injectContext: Array<string> = []
  const reports: Array<PluginReport> = []
  const events: Array<PluginHookFailed> = []
  const all = context.checkpoint.extracted
  for (let index = 0; index < list.length; index++) {
    const plugin = list[index] as CompactionPlugin
    const name = nameOf(plugin, index)
    const hook = typeof plugin === "object" && plugin !== null ? plugin.afterCompact : undefined
    if (typeof hook !== "function") continue
    const extracted: Record<string, unknown> = {}
    for (const field of context.granted?.[index] ?? []) {
      if (Object.hasOwn(all, field)) extracted[field] = all[field]
    }
    const outcome = yield* runHook(
      () => hook({ reason: context.reason, checkpoint: context.checkpoint, extracted }),
      timeout
    )
    if (outcome._tag === "Failed") {
      events.push(failed(name, "afterCompact", outcome.error))
      continue
    }
    const decoded = yield* safeDecode(decodeAfter, orEmpty(outcome.value))
    if (decoded === undefined || Result.isFailure(decoded)) {
      const detail = decoded === undefined ? "a value that cannot be read" : describeIssue(decoded.failure)
      events.push(failed(name, "afterCompact", `returned an invalid result: ${detail}`))
      continue
    }
    const answer = decoded.success
    if (answer.injectContext !== undefined && answer.injectContext.trim() !== "") {
      injectContext.push(safeHead(answer.injectContext, INJECT_CONTEXT_MAX_CHARS))
    }
    if (answer.report !== undefined) {
      reports.push({
        name,
        ...(answer.report.summary === undefined ? {} : { summary: answer.report.summary }),
        ...(answer.report.data === undefined ? {} : { data: answer.report.data })
      })
    }
  }
  return { injectContext, reports, events }
})
