/**
 * `ContextEvents`: the stream of every event the engine's steps emit — compaction's events (started, completed,
 * skipped, failed, `context_reduced`, plugin hook failures) and the engine's own (`context_capped`,
 * `context_governed`, `context_cleared`, `context_fitted`, `context_overflow`, `window_learned`,
 * `context_audit`). The default layer drops them; `ContextEvents.layerJsonl` writes one versioned JSON line per
 * event (`{ schemaVersion: 1, runId, sessionId, seq, type, timestamp, data }`, compaction.md's envelope).
 *
 * @since 0.1.0
 */
import type { CompactionEvent } from "@ctxkit/compaction"
import type { ContextGoverned } from "@ctxkit/governor"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"

/**
 * An event of the engine's own steps.
 *
 * @category models
 * @since 0.1.0
 */
export type EngineStepEvent =
  | {
    readonly type: "context_capped"
    readonly data: { readonly results: number; readonly omittedChars: number }
  }
  | { readonly type: "context_governed"; readonly data: Omit<ContextGoverned, "type"> }
  | {
    readonly type: "context_cleared"
    readonly data: { readonly results: number; readonly tokensFreed: number }
  }
  | {
    readonly type: "context_fitted"
    readonly data: {
      readonly strategy: string
      readonly kept: number
      readonly excluded: number
      readonly tokens: number
      readonly budget: number
    }
  }
  | {
    readonly type: "context_overflow"
    readonly data: {
      readonly kind: "turn" | "compaction"
      readonly rule: string
      readonly source: "truncation" | "provider-error"
      readonly window?: number | undefined
    }
  }
  | {
    readonly type: "window_learned"
    readonly data: {
      readonly tokens: number
      readonly source: string
      readonly configured?: number | undefined
      readonly warning?: string | undefined
    }
  }
  | {
    readonly type: "context_audit"
    readonly data: { readonly generationId: string; readonly status: string; readonly promptTokens: number }
  }

/**
 * Any event the engine emits: compaction's or the engine's own.
 *
 * @example
 * ```ts
 * import type { EngineEvent } from "@ctxkit/engine/ContextEvents"
 *
 * const event: EngineEvent = { type: "context_cleared", data: { results: 3, tokensFreed: 1200 } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type EngineEvent = CompactionEvent | EngineStepEvent

/**
 * The version of the JSONL envelope.
 *
 * @category constants
 * @since 0.1.0
 */
export const ENGINE_EVENT_SCHEMA_VERSION = 1 as const

/**
 * Where events go. `ContextEvents.layerNoop` (the default) drops them; `ContextEvents.layerJsonl({ path })`
 * appends JSON lines to a file (it needs a `FileSystem`, such as `NodeFileSystem.layer` from
 * `@effect/platform-node`); `ContextEvents.layerSink(write)` hands each line to your function. A failing sink
 * never fails a request.
 *
 * @example
 * ```ts
 * import { ContextEvents } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 *
 * const lines: Array<string> = []
 * const events = ContextEvents.layerSink((line) => Effect.sync(() => void lines.push(line)), { runId: "run-1" })
 * Effect.runSync(Effect.gen(function*() {
 *   const sink = yield* ContextEvents
 *   yield* sink.emit("s1", { type: "context_cleared", data: { results: 2, tokensFreed: 900 } })
 * }).pipe(Effect.provide(events)))
 * JSON.parse(lines[0] ?? "{}").type // "context_cleared"
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class ContextEvents extends Context.Service<ContextEvents, {
  /** Records one event of `session`. */
  readonly emit: (session: string, event: EngineEvent) => Effect.Effect<void>
}>()("@ctxkit/engine/ContextEvents") {
  /** Drops every event. */
  static readonly layerNoop: Layer.Layer<ContextEvents> = Layer.succeed(
    ContextEvents,
    ContextEvents.of({ emit: () => Effect.void })
  )

  /** One versioned JSON line per event, handed to `write` (a failing write is ignored). */
  static layerSink<E, R>(
    write: (line: string) => Effect.Effect<void, E, R>,
    options: { readonly runId?: string | undefined } = {}
  ): Layer.Layer<ContextEvents, never, R> {
    return Layer.effect(
      ContextEvents,
      Effect.gen(function*() {
        const context = yield* Effect.context<R>()
        let seq = 0
        const runId = typeof options.runId === "string" ? options.runId : "engine"
        return ContextEvents.of({
          emit: (session, event) =>
            Effect.gen(function*() {
              const millis = yield* Clock.clockWith((clock) => clock.currentTimeMillis)
              const line = JSON.stringify({
                schemaVersion: ENGINE_EVENT_SCHEMA_VERSION,
                runId,
                sessionId: session,
                seq: seq++,
                type: event.type,
                timestamp: new Date(millis).toISOString(),
                data: event.data
              })
              yield* write(line).pipe(Effect.ignore, Effect.provideContext(context))
            })
        })
      })
    )
  }

  /** Appends one versioned JSON line per event to the file at `path`. */
  static layerJsonl(
    options: { readonly path: string; readonly runId?: string | undefined }
  ): Layer.Layer<ContextEvents, never, FileSystem.FileSystem> {
    return ContextEvents.layerSink(
      (line) =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          yield* fs.writeFileString(options.path, `${line}\n`, { flag: "a" })
        }),
      { runId: options.runId }
    )
  }
}
