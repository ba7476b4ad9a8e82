/**
 * A simulated harness for the engine's laws (L15–L17) and the corpus replay: a conversation replayed turn by turn
 * through `ContextEngine.prepare` / `observe` against a scripted provider that answers honestly, truncates like
 * Ollama (keeps the system messages and the latest message, drops from the front, reports the tokens it kept —
 * plateau — or a tiny count — collapse), or rejects like llama.cpp (HTTP 400 `exceed_context_size_error`).
 */
import { available, conversationCost, reserve } from "@ctxkit/budget"
import { Summarizer } from "@ctxkit/compaction"
import { type MessageFormat, toolGroups } from "@ctxkit/core"
import {
  ContextEngine,
  type EngineEvent,
  type EngineOptions,
  type PrepareResult,
  SessionStore,
  SessionStoreError
} from "@ctxkit/engine"
import type { SessionState } from "@ctxkit/engine/SessionStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

export type ProviderMode = "honest" | "plateau" | "collapse" | "llama"

/** Splits a conversation into the appends of a harness: everything up to each point where the model speaks next. */
export const appendsOf = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): Array<ReadonlyArray<M>> => {
  const out: Array<ReadonlyArray<M>> = []
  let current: Array<M> = []
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as M
    if (format.role(message) === "assistant" && current.length > 0 && i > 0) {
      out.push(current)
      current = []
    }
    current.push(message)
  }
  if (current.length > 0) out.push(current)
  return out
}

/** The deterministic offline summarizer of the tests: a structured checkpoint quoting the first user line. */
export const scriptedSummarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: (request) =>
      Effect.sync(() => {
        const user = /USER: ([^\n]{1,60})/.exec(request.prompt)?.[1]?.trim() ?? ""
        const checkpoint = {
          goal: `Continue the task (${request.prompt.length} characters summarized)`,
          instructions: user.length > 0 ? [user] : [],
          currentState: "mid-task"
        }
        return { text: JSON.stringify({ checkpoint }), finishReason: "stop" as const }
      })
  })
)

/** A memory store whose `apply` fails on the calls listed in `failAt` (1-based, counted over the layer's life). */
export const failingStore = (failAt: ReadonlySet<number>): Layer.Layer<SessionStore> =>
  Layer.effect(
    SessionStore,
    Effect.gen(function*() {
      const inner = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* SessionStore
        }),
        SessionStore.layerMemory
      )
      let calls = 0
      return SessionStore.of({
        load: inner.load,
        delete: inner.delete,
        apply: (session, patch) =>
          Effect.suspend(() => {
            calls++
            return failAt.has(calls)
              ? Effect.fail(new SessionStoreError({ session, operation: "apply", error: `injected failure #${calls}` }))
              : inner.apply(session, patch)
          })
      })
    })
  )

export interface Turn<M> {
  readonly append: ReadonlyArray<M>
  readonly result?: PrepareResult<M> | undefined
  /** The tag of the typed error prepare failed with. */
  readonly failed?: string | undefined
  readonly truncated?: boolean | undefined
  readonly overflow?: boolean | undefined
  readonly providerTokens?: number | undefined
  readonly state: SessionState
  readonly calibrationBefore: number
  readonly calibrationAfter: number
}

export interface SimOptions<M> {
  readonly format: MessageFormat<M>
  readonly engine: EngineOptions<M>
  readonly mode: ProviderMode
  /** The server's real window (tokens, by the approximate count); default: the engine's window. */
  readonly serverWindow?: number | undefined
  readonly store?: Layer.Layer<SessionStore> | undefined
  readonly session?: string | undefined
  /** Retry a prepare or observe that failed with a store error (once). */
  readonly retryStoreErrors?: boolean | undefined
}

const approx = { id: "approximate-chars-v1", approximate: true, count: (t: string) => Math.ceil(t.length / 4) }

/** The server's own count of a request: a fresh recount (no cache) with the approximate counter. */
export const serverCount = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): number =>
  conversationCost(messages, { counter: approx, format }).total

/** Ollama-like truncation: keep system messages and the last message, drop the others from the front. */
const ollamaKept = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>, window: number): number => {
  const costs = conversationCost(messages, { counter: approx, format }).costs
  let total = costs.reduce((a, b) => a + b, 0)
  for (let i = 0; i < messages.length - 1 && total > window; i++) {
    if (format.role(messages[i] as M) === "system") continue
    total -= costs[i] ?? 0
  }
  return total
}

/** Replays `appends` as one session; returns each turn with the stored state after it. */
export const simulate = <M>(appends: ReadonlyArray<ReadonlyArray<M>>, options: SimOptions<M>) => {
  const store = options.store ?? SessionStore.layerMemory
  const engineLayer = ContextEngine.layer(options.engine).pipe(Layer.provide([store, scriptedSummarizer]))
  const session = options.session ?? "sim"
  const format = options.format
  const program = Effect.gen(function*() {
    const engine = yield* ContextEngine
    const sessions = yield* SessionStore
    const turns: Array<Turn<M>> = []
    const events: Array<EngineEvent> = []
    const load = () => Effect.map(sessions.load(session), Option.getOrUndefined)
    const observe = (input: Parameters<typeof engine.observe>[0]) =>
      options.retryStoreErrors === true
        ? Effect.catchTag(engine.observe(input), "SessionStoreError", () => engine.observe(input))
        : engine.observe(input)
    for (const append of appends) {
      const before = yield* load()
      const calibrationBefore = before?.meta.calibration.scale ?? 1
      let exit = yield* Effect.exit(engine.prepare({ session, append }))
      if (
        options.retryStoreErrors === true && Exit.isFailure(exit) &&
        JSON.stringify(exit.cause).includes("SessionStoreError")
      ) {
        const afterFailure = yield* load()
        if (afterFailure?.revision !== before?.revision) throw new Error("L16: a failed apply changed the session")
        exit = yield* Effect.exit(engine.prepare({ session, append }))
      }
      if (Exit.isFailure(exit)) {
        const tag = /"_tag":"(\w+)"/.exec(
          JSON.stringify(exit.cause.reasons.map((r) => r._tag === "Fail" ? r.error : r))
        )?.[1]
        const state = yield* load()
        if (state === undefined) break
        turns.push({
          append,
          failed: tag ?? "defect",
          state,
          calibrationBefore,
          calibrationAfter: state.meta.calibration.scale
        })
        if (tag !== "SessionStoreError") break
        continue
      }
      const result = exit.value
      events.push(...result.events)
      const sent = result.messages
      const tokens = serverCount(sent, format)
      const serverWindow = options.serverWindow ?? result.window ?? Number.POSITIVE_INFINITY
      let observed
      let providerTokens = tokens
      if (tokens > serverWindow && options.mode === "llama") {
        observed = yield* observe({
          session,
          error: {
            status: 400,
            body: {
              error: {
                code: 400,
                message: "the request exceeds the available context size, try increasing it",
                type: "exceed_context_size_error",
                n_prompt_tokens: tokens,
                n_ctx: serverWindow
              }
            }
          }
        })
      } else if (tokens > serverWindow && (options.mode === "plateau" || options.mode === "collapse")) {
        providerTokens = options.mode === "plateau" ? ollamaKept(sent, format, serverWindow) : 63
        observed = yield* observe({ session, usage: { prompt_tokens: providerTokens, completion_tokens: 5 } })
      } else {
        observed = yield* observe({ session, usage: { prompt_tokens: tokens, completion_tokens: 5 } })
      }
      const state = yield* load()
      if (state === undefined) throw new Error("session vanished")
      turns.push({
        append,
        result,
        truncated: observed.truncated,
        overflow: observed.outcome?.reason === "context_overflow",
        providerTokens,
        state,
        calibrationBefore,
        calibrationAfter: state.meta.calibration.scale
      })
    }
    return { turns, events }
  })
  return Effect.runPromise(program.pipe(Effect.provide(Layer.merge(engineLayer, store))))
}

/** L15's checks on one prepared request; the violations found. */
export const requestViolations = <M>(
  turn: Turn<M>,
  format: MessageFormat<M>,
  maxTokens: number | undefined
): Array<string> => {
  const out: Array<string> = []
  const result = turn.result
  if (result === undefined) return out
  const sent = result.messages
  const diagnostics = toolGroups(sent, format).diagnostics
  for (const d of diagnostics) {
    if (d._tag === "OrphanResult" || d._tag === "OrphanApprovalResponse") out.push(`L15: orphan in request (${d._tag})`)
  }
  const texts = new Set(sent.map((m) => format.text(m)))
  const sentSet = new Set<unknown>(sent)
  const history = turn.state.active.map((e) => e.message as M)
  for (const m of history) {
    const protectedSystem = format.role(m) === "system" && format.isProtected(m)
    if ((protectedSystem || format.isPinned(m)) && !sentSet.has(m) && !texts.has(format.text(m))) {
      out.push(`L15: protected message dropped: ${format.text(m).slice(0, 40)}`)
    }
  }
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i] as M
    if (format.role(m) === "user" && !format.isSummary(m) && format.toolResults(m).length === 0) {
      if (!sentSet.has(m) && !texts.has(format.text(m))) out.push("L15: current request dropped")
      break
    }
  }
  // The newest checkpoint is the only copy of what it replaced: a request never goes without it.
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i] as M
    if (!format.isSummary(m)) continue
    if (!sentSet.has(m) && !texts.has(format.text(m))) out.push("L15: the newest checkpoint was dropped")
    break
  }
  const recount = serverCount(sent, format)
  const limit = available(result.window, maxTokens)
  if (result.window !== undefined && recount > limit) out.push(`L15: recount ${recount} > window − reserve ${limit}`)
  if (result.window !== undefined && result.maxTokens !== reserve(result.window, maxTokens)) {
    out.push(`L15: max_tokens ${result.maxTokens} ≠ reserve ${reserve(result.window, maxTokens)}`)
  }
  return out
}

/** L15/L16: the stored transcript is every appended message, in order, the very objects. */
export const transcriptViolations = <M>(
  appends: ReadonlyArray<ReadonlyArray<M>>,
  state: SessionState | undefined,
  turnsDone: number
): Array<string> => {
  if (state === undefined) return ["L15: no session stored"]
  const expected = appends.slice(0, turnsDone).flat()
  const stored = state.transcript.map((e) => e.message)
  if (stored.length !== expected.length) {
    return [`L15: transcript has ${stored.length} messages, ${expected.length} appended`]
  }
  for (let i = 0; i < expected.length; i++) {
    if (stored[i] !== expected[i]) return [`L15: transcript message ${i} is not the appended one`]
  }
  for (const entry of state.transcript) {
    if (entry.compactedBy !== undefined && !(entry.compactedBy >= 0 && entry.compactedBy < state.checkpoints.length)) {
      return ["L15: a compacted mark names no checkpoint"]
    }
  }
  return []
}
