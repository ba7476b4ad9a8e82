/**
 * The compaction events and their versioned JSONL envelope: what a harness shows, logs or writes with
 * `--json` when compaction starts, completes, is skipped or fails, when the retained tail is reduced, and when
 * a plugin hook fails. Every event is an `effect/Schema` value `{ type, data }`; the envelope adds
 * `schemaVersion`, `runId`, `sessionId`, `seq` and `timestamp`.
 *
 * @since 0.1.0
 */
import { describeValue } from "@ctxkit/core/Describe"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { describeIssue } from "./internal/events.ts"

/** A count or a token estimate: an integer ≥ 0. */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Why a compaction ran: `manual` (the user asked, `/compact`), `auto` (a trigger fired before a model call) or
 * `budget` (the last chance after the hard limit was still exceeded).
 *
 * @example
 * ```ts
 * import { CompactionReason } from "@ctxkit/compaction/Events"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(CompactionReason)("budget") // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const CompactionReason = Schema.Literals(["manual", "auto", "budget"])

/**
 * @category models
 * @since 0.1.0
 */
export type CompactionReason = typeof CompactionReason.Type

/**
 * What one plugin's `afterCompact` hook reported: the plugin's name, a one-line summary a host may show, and
 * any JSON data.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PluginReport = Schema.Struct({
  /** The plugin's name. */
  name: Schema.String,
  /** A one-line summary for the user. */
  summary: Schema.optionalKey(Schema.String),
  /** Anything else the plugin wants recorded, as JSON. */
  data: Schema.optionalKey(Schema.Json)
})

/**
 * @category models
 * @since 0.1.0
 */
export type PluginReport = typeof PluginReport.Type

/**
 * `compaction_started`: a compaction begins. `before` is the estimated tokens of the history, `messages` its
 * length.
 *
 * @category events
 * @since 0.1.0
 */
export const CompactionStarted = Schema.Struct({
  type: Schema.tag("compaction_started"),
  data: Schema.Struct({
    /** Why the compaction runs. */
    reason: CompactionReason,
    /** Estimated tokens of the history before compaction. */
    before: Count,
    /** Number of messages in the history. */
    messages: Count
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type CompactionStarted = typeof CompactionStarted.Type

/**
 * `compaction_completed`: the checkpoint replaced the summarized span. `before`/`after` are token estimates of
 * the history before and after; `replaced` the number of messages the checkpoint replaced; `structured` whether
 * the checkpoint is the seven-section one (false: text-only); `summarizedTokens` and `checkpointTokens` the
 * estimated size of the summarized span and of the checkpoint; `plugins` the `afterCompact` reports; `partial`
 * is present (and true) only when the summary was cut by the output budget and kept; `attempt` is present only
 * when a lower rung of the retry ladder was sent (`reduced-tool-results` or `last-user-turns`).
 *
 * @category events
 * @since 0.1.0
 */
export const CompactionCompleted = Schema.Struct({
  type: Schema.tag("compaction_completed"),
  data: Schema.Struct({
    /** Why the compaction ran. */
    reason: CompactionReason,
    /** Estimated tokens of the history before compaction. */
    before: Count,
    /** Estimated tokens of the history after compaction. */
    after: Count,
    /** Number of messages the checkpoint replaced. */
    replaced: Count,
    /** Whether the checkpoint is structured (false: the raw reply was used as a text-only checkpoint). */
    structured: Schema.Boolean,
    /** Estimated tokens of the summarized span. */
    summarizedTokens: Count,
    /** Estimated tokens of the checkpoint message. */
    checkpointTokens: Count,
    /** The `afterCompact` reports, in plugin order. */
    plugins: Schema.Array(PluginReport),
    /** Present, and true, only when the summary was cut by the output budget and kept. */
    partial: Schema.optionalKey(Schema.Boolean),
    /**
     * Present only when the full span did not fit the summarizer's input budget and a lower rung of the retry
     * ladder was sent: the summarizer then read less than the checkpoint replaces (a degraded checkpoint).
     */
    attempt: Schema.optionalKey(Schema.Literals(["reduced-tool-results", "last-user-turns"]))
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type CompactionCompleted = typeof CompactionCompleted.Type

/**
 * `compaction_skipped`: there was nothing safe or worth summarizing (a call still open, the conversation a
 * single turn or too short); the history is unchanged. `detail` says why.
 *
 * @category events
 * @since 0.1.0
 */
export const CompactionSkipped = Schema.Struct({
  type: Schema.tag("compaction_skipped"),
  data: Schema.Struct({
    /** Why the compaction was asked for. */
    reason: CompactionReason,
    /** Estimated tokens of the history. */
    before: Count,
    /** Why nothing was compacted. */
    detail: Schema.String
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type CompactionSkipped = typeof CompactionSkipped.Type

/**
 * `compaction_failed`: the compaction could not produce a checkpoint (summarizer error, refused or unusable
 * summary, truncated request, a checkpoint that would not shrink the context); the history is unchanged.
 * Named `CompactionFailedEvent` so as not to collide with the `CompactionFailed` error of `@ctxkit/core`.
 *
 * @category events
 * @since 0.1.0
 */
export const CompactionFailedEvent = Schema.Struct({
  type: Schema.tag("compaction_failed"),
  data: Schema.Struct({
    /** Why the compaction ran. */
    reason: CompactionReason,
    /** What went wrong, without provider response bodies. */
    error: Schema.String
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type CompactionFailedEvent = typeof CompactionFailedEvent.Type

/**
 * `context_reduced`: retained messages were clipped toward the hard limit's character target. `messages` is the
 * number of distinct messages clipped; `reason` says which pass (`ensureWithinBudget` uses `"hard-limit"` and,
 * after the last-chance compaction, `"last-chance"`); `tokensSaved` the estimated tokens freed.
 *
 * @category events
 * @since 0.1.0
 */
export const ContextReduced = Schema.Struct({
  type: Schema.tag("context_reduced"),
  data: Schema.Struct({
    /** How many messages were clipped. */
    messages: Count,
    /** Which reduction pass, when the emitter says. */
    reason: Schema.optionalKey(Schema.String),
    /** Estimated tokens freed (≈ characters / 4), when the emitter says. */
    tokensSaved: Schema.optionalKey(Count)
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type ContextReduced = typeof ContextReduced.Type

/**
 * Which plugin hook: `beforeCompact` (adds instructions and output fields) or `afterCompact` (reads the
 * checkpoint, may inject context and report).
 *
 * @example
 * ```ts
 * import { PluginHookName } from "@ctxkit/compaction/Events"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(PluginHookName)("afterCompact") // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const PluginHookName = Schema.Literals(["beforeCompact", "afterCompact"])

/**
 * @category models
 * @since 0.1.0
 */
export type PluginHookName = typeof PluginHookName.Type

/**
 * `plugin_hook_failed`: a plugin hook failed, died, timed out or returned something unusable. `source` is the
 * plugin's name; `continued` is true when the compaction went on without it (always, for compaction hooks).
 *
 * @category events
 * @since 0.1.0
 */
export const PluginHookFailed = Schema.Struct({
  type: Schema.tag("plugin_hook_failed"),
  data: Schema.Struct({
    /** The plugin's name. */
    source: Schema.String,
    /** Which hook failed. */
    hook: PluginHookName,
    /** What went wrong. */
    error: Schema.String,
    /** Whether the operation went on without the plugin. */
    continued: Schema.Boolean
  })
})

/**
 * @category events
 * @since 0.1.0
 */
export type PluginHookFailed = typeof PluginHookFailed.Type

/**
 * Any compaction event, discriminated by `type`.
 *
 * @example
 * ```ts
 * import { CompactionEvent } from "@ctxkit/compaction"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(CompactionEvent)({ type: "compaction_failed", data: { reason: "auto", error: "timeout" } }) // true
 * ```
 *
 * @category events
 * @since 0.1.0
 */
export const CompactionEvent = Schema.Union([
  CompactionStarted,
  CompactionCompleted,
  CompactionSkipped,
  CompactionFailedEvent,
  ContextReduced,
  PluginHookFailed
])

/**
 * @category events
 * @since 0.1.0
 */
export type CompactionEvent = typeof CompactionEvent.Type

/**
 * The `type` of every compaction event.
 *
 * @category events
 * @since 0.1.0
 */
export type CompactionEventType = CompactionEvent["type"]

/**
 * The version of the event envelope this package writes and reads: 1.
 *
 * @example
 * ```ts
 * import { EVENT_SCHEMA_VERSION } from "@ctxkit/compaction/Events"
 *
 * EVENT_SCHEMA_VERSION // 1
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const EVENT_SCHEMA_VERSION = 1 as const

/** An ISO 8601 date-time with a time zone (`2026-05-01T10:00:00.000Z`, `2026-05-01T12:00:00+02:00`). */
const IsoTimestamp = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/)
)

const envelopeFields = {
  /** Always {@link EVENT_SCHEMA_VERSION}. */
  schemaVersion: Schema.Literal(EVENT_SCHEMA_VERSION),
  /** The run (one agent invocation) that emitted the event. */
  runId: Schema.String,
  /** The session whose history the event is about. */
  sessionId: Schema.String,
  /** Position of the event in its run: 0, 1, 2… */
  seq: Count,
  /** When the event happened, as an ISO 8601 date-time. */
  timestamp: IsoTimestamp
}

/**
 * One event as written to the JSONL stream: `{ schemaVersion: 1, runId, sessionId, seq, type, timestamp, data }`.
 *
 * @example
 * ```ts
 * import { EventEnvelope } from "@ctxkit/compaction"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(EventEnvelope)({
 *   schemaVersion: 1,
 *   runId: "run-1",
 *   sessionId: "s-1",
 *   seq: 0,
 *   type: "compaction_failed",
 *   timestamp: "2026-05-01T10:00:00.000Z",
 *   data: { reason: "auto", error: "timeout" }
 * }) // true
 * ```
 *
 * @category events
 * @since 0.1.0
 */
export const EventEnvelope = Schema.Union([
  Schema.Struct({ ...envelopeFields, ...CompactionStarted.fields }),
  Schema.Struct({ ...envelopeFields, ...CompactionCompleted.fields }),
  Schema.Struct({ ...envelopeFields, ...CompactionSkipped.fields }),
  Schema.Struct({ ...envelopeFields, ...CompactionFailedEvent.fields }),
  Schema.Struct({ ...envelopeFields, ...ContextReduced.fields }),
  Schema.Struct({ ...envelopeFields, ...PluginHookFailed.fields })
])

/**
 * @category events
 * @since 0.1.0
 */
export type EventEnvelope = typeof EventEnvelope.Type

/**
 * Where and when an event happened: what {@link envelope} adds to it. The timestamp is passed in (this package
 * never reads a clock).
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvelopeContext {
  /** The run that emitted the event. */
  readonly runId: string
  /** The session the event is about. */
  readonly sessionId: string
  /** Position of the event in its run. */
  readonly seq: number
  /** When it happened, as an ISO 8601 date-time (`new Date().toISOString()` at the edge). */
  readonly timestamp: string
}

/**
 * Wraps an event in the versioned envelope. Pure: the timestamp comes from the caller.
 *
 * @example
 * ```ts
 * import { envelope } from "@ctxkit/compaction"
 *
 * const line = envelope(
 *   { type: "context_reduced", data: { messages: 2 } },
 *   { runId: "run-1", sessionId: "s-1", seq: 7, timestamp: "2026-05-01T10:00:00.000Z" }
 * )
 * line.schemaVersion // 1
 * line.type // "context_reduced"
 * ```
 *
 * @category events
 * @since 0.1.0
 */
export const envelope = (event: CompactionEvent, context: EnvelopeContext): EventEnvelope =>
  ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    runId: context.runId,
    sessionId: context.sessionId,
    seq: context.seq,
    type: event.type,
    timestamp: context.timestamp,
    data: event.data
  }) as EventEnvelope

/**
 * Writes an envelope as one JSON line, keys in envelope order (`schemaVersion`, `runId`, `sessionId`, `seq`,
 * `type`, `timestamp`, `data`), WITHOUT a trailing newline: the writer adds `"\n"` between lines.
 *
 * @example
 * ```ts
 * import { encodeEventLine, envelope } from "@ctxkit/compaction"
 *
 * encodeEventLine(envelope(
 *   { type: "compaction_failed", data: { reason: "auto", error: "timeout" } },
 *   { runId: "r", sessionId: "s", seq: 0, timestamp: "2026-05-01T10:00:00.000Z" }
 * ))
 * // '{"schemaVersion":1,"runId":"r","sessionId":"s","seq":0,"type":"compaction_failed","timestamp":"2026-05-01T10:00:00.000Z","data":{"reason":"auto","error":"timeout"}}'
 * ```
 *
 * @category events
 * @since 0.1.0
 */
export const encodeEventLine = (event: EventEnvelope): string =>
  JSON.stringify({
    schemaVersion: event.schemaVersion,
    runId: event.runId,
    sessionId: event.sessionId,
    seq: event.seq,
    type: event.type,
    timestamp: event.timestamp,
    data: event.data
  })

/**
 * What was wrong with a JSONL event line: not JSON, not an object, an unsupported `schemaVersion`, or an
 * event that does not match its schema (unknown `type`, a missing or mistyped field).
 *
 * @example
 * ```ts
 * import { InvalidEventLine } from "@ctxkit/compaction/Events"
 *
 * new InvalidEventLine({ problem: "unsupported-version", detail: "schemaVersion is 2" }).message
 * // "Invalid compaction event line (unsupported-version): schemaVersion is 2."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidEventLine extends Schema.TaggedError<InvalidEventLine>()("InvalidEventLine", {
  /** Which kind of problem. */
  problem: Schema.Literals(["not-json", "not-an-object", "unsupported-version", "invalid-event"]),
  /** What exactly, and how to fix it. */
  detail: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_EVENT_LINE" as const
  override get message(): string {
    return `Invalid compaction event line (${this.problem}): ${this.detail}.`
  }
}

const parseJson = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Unknown))

/** One decoder per event type, so a mismatch is reported against that event's fields only. */
const decoders: ReadonlyMap<string, (input: unknown) => Result.Result<EventEnvelope, Schema.SchemaError>> = new Map(
  EventEnvelope.members.map((member) => [
    member.fields.type.schema.literal,
    Schema.decodeUnknownResult(member) as (input: unknown) => Result.Result<EventEnvelope, Schema.SchemaError>
  ])
)

/**
 * Reads one JSONL line back into an {@link EventEnvelope}. A trailing `"\n"` or `"\r\n"` is ignored. Fails with
 * an {@link InvalidEventLine} naming the problem: not JSON, not an object, a `schemaVersion` other than
 * {@link EVENT_SCHEMA_VERSION} (checked first, so a newer writer's line is reported as such), or a field that
 * does not match (with its path). Never throws.
 *
 * @example
 * ```ts
 * import { decodeEventLine } from "@ctxkit/compaction"
 * import * as Result from "effect/Result"
 *
 * const ok = decodeEventLine(
 *   '{"schemaVersion":1,"runId":"r","sessionId":"s","seq":0,"type":"context_reduced","timestamp":"2026-05-01T10:00:00Z","data":{"messages":2}}'
 * )
 * Result.isSuccess(ok) // true
 *
 * const newer = decodeEventLine('{"schemaVersion":2,"type":"context_reduced"}')
 * Result.isFailure(newer) && newer.failure.problem // "unsupported-version"
 * ```
 *
 * @category events
 * @since 0.1.0
 */
export const decodeEventLine = (line: string): Result.Result<EventEnvelope, InvalidEventLine> => {
  if (typeof line !== "string") {
    return Result.fail(
      new InvalidEventLine({ problem: "not-json", detail: `expected a string, got ${describeValue(line)}` })
    )
  }
  const parsed = parseJson(line.replace(/\r?\n$/, ""))
  if (Result.isFailure(parsed)) {
    return Result.fail(
      new InvalidEventLine({ problem: "not-json", detail: "the line is not valid JSON; write one event per line" })
    )
  }
  const value = parsed.success
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Result.fail(
      new InvalidEventLine({
        problem: "not-an-object",
        detail: `expected a JSON object, got ${describeValue(value)}`
      })
    )
  }
  const version = (value as Readonly<Record<string, unknown>>)["schemaVersion"]
  if (version !== EVENT_SCHEMA_VERSION) {
    return Result.fail(
      new InvalidEventLine({
        problem: "unsupported-version",
        detail: version === undefined
          ? `schemaVersion is missing; this reader understands only version ${EVENT_SCHEMA_VERSION}`
          : `schemaVersion is ${
            describeValue(version)
          }, but this reader understands only version ${EVENT_SCHEMA_VERSION}; upgrade @ctxkit/compaction to read it`
      })
    )
  }
  const type = (value as Readonly<Record<string, unknown>>)["type"]
  const decode = typeof type === "string" ? decoders.get(type) : undefined
  if (decode === undefined) {
    return Result.fail(
      new InvalidEventLine({
        problem: "invalid-event",
        detail: `type is ${describeValue(type)}; expected one of ${[...decoders.keys()].join(", ")}`
      })
    )
  }
  const decoded = decode(value)
  if (Result.isFailure(decoded)) {
    return Result.fail(new InvalidEventLine({ problem: "invalid-event", detail: describeIssue(decoded.failure) }))
  }
  return Result.succeed(decoded.success)
}
