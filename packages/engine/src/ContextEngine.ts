/**
 * `ContextEngine`: what a harness calls before (`prepare`) and after (`observe`) every model request. It runs the
 * pure steps of the other packages in order on the session kept in the {@link SessionStore}, with every effect
 * (the store, the summarizer, the counter, the window source, the event sink) behind a service.
 *
 * @since 0.1.0
 */
import {
  applyCalibration,
  available as availableTokens,
  calibrate,
  charRuleFires,
  clearUsageLedger,
  type ConversationCost,
  conversationCost,
  type CostCache,
  effectiveBudget,
  makeCostCache,
  makeUsageLedger,
  messageCost,
  promptTokens,
  recordUsage,
  reserve as reserveTokens,
  type TokenCounter as BudgetTokenCounter,
  toolCatalogCost,
  uncalibrated
} from "@ctxkit/budget"
import { DEFAULT_MAX_CONTEXT_CHARS } from "@ctxkit/budget/EffectiveBudget"
import type { ToolCatalog } from "@ctxkit/budget/ToolCatalog"
import {
  capToolResults,
  clearOldToolResults,
  compact,
  type CompactionEvent,
  type CompactionOutcome,
  decideContextAction,
  reduceToBudget,
  type SummarizeFn,
  Summarizer,
  SummarizerError
} from "@ctxkit/compaction"
import { budgetExceeded, type LastChanceOutcome } from "@ctxkit/compaction/BudgetExceeded"
import { hardLimitTarget } from "@ctxkit/compaction/EnsureWithinBudget"
import {
  type ContextBudgetExceeded,
  detectFormat,
  formats,
  isMessageFormat,
  type MessageFormat,
  TokenBudgetExceeded,
  type UnknownStrategy
} from "@ctxkit/core"
import { ContextStrategyRegistry, strategies as builtinStrategies } from "@ctxkit/fit"
import { govern, type GovernorAnalysis } from "@ctxkit/governor"
import { acceptQuotes, buildInvariants, withInvariants } from "@ctxkit/invariants"
import {
  type ContextOverflow,
  contextOverflow,
  OVERFLOW_MIN_GROWTH,
  OverflowDetector,
  type OverflowVerdict
} from "@ctxkit/overflow"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import { ContextEvents, type EngineEvent } from "./ContextEvents.ts"
import {
  InvalidAppend,
  InvalidEngineOptions,
  type SessionConflict,
  type SessionStoreError,
  TokenCounterFailed,
  UnknownSession
} from "./Errors.ts"
import { ContextStrategies, finalizeAudit, fitPrompt, type PromptContextAudit } from "./internal/hostImports.ts"
import { PositionalMemo } from "./internal/positional.ts"
import { wholeRequestAudit } from "./internal/wholeRequestAudit.ts"
import { enginePresets, type EngineSettings } from "./Presets.ts"
import { readProviderError } from "./ProviderError.ts"
import {
  type ActiveEntry,
  type CheckpointRecord,
  type PreparedRequest,
  type SessionMeta,
  type SessionPatch,
  type SessionState,
  SessionStore
} from "./SessionStore.ts"
import { TokenCounter } from "./TokenCounter.ts"
import { WindowSource } from "./WindowSource.ts"

/**
 * Overrides of one preset's step settings: each step you name replaces the preset's, field by field.
 *
 * @category models
 * @since 0.1.0
 */
export interface StepOverrides {
  readonly cap?: EngineSettings["cap"] | undefined
  readonly governor?: Partial<EngineSettings["governor"]> | undefined
  readonly clearing?: EngineSettings["clearing"] | undefined
  readonly compaction?: Partial<EngineSettings["compaction"]> | undefined
  readonly hardLimit?: EngineSettings["hardLimit"] | undefined
  readonly strategy?: string | undefined
  readonly invariants?: EngineSettings["invariants"] | undefined
  readonly assumedWindow?: number | undefined
}

/**
 * Options of `ContextEngine.layer`.
 *
 * @category models
 * @since 0.1.0
 */
export interface EngineOptions<M = unknown> extends StepOverrides {
  /** The caller's wire format. Default `formats.auto` (each session's format is detected from its first messages). */
  readonly format?: MessageFormat<M> | undefined
  /** The model's context window in tokens; wins over discovery (not over a window the server proved smaller). */
  readonly window?: number | undefined
  /** The reply budget; the reserve sent as `max_tokens` is `reserve(window, maxTokens)`. */
  readonly maxTokens?: number | undefined
  /** A preset's name or a complete settings value. Default `recommended`. */
  readonly preset?: keyof typeof enginePresets | EngineSettings | undefined
  /** The provider's and the model's names, for the audit. */
  readonly provider?: string | undefined
  readonly model?: string | undefined
}

/**
 * What `prepare` takes: the session, every message new since the last call (in order), and optionally the system
 * text kept outside the transcript and the tool catalog (counted, never clipped).
 *
 * @category models
 * @since 0.1.0
 */
export interface PrepareInput<M> {
  readonly session: string
  readonly append: ReadonlyArray<M>
  readonly instructions?: string | undefined
  readonly tools?: ToolCatalog | undefined
}

/**
 * What `prepare` returns: the request to send in the caller's format (the caller's own objects where untouched),
 * `maxTokens` to send as `max_tokens`, the request's tokens, the input budget, the window (`undefined` when
 * unknown), the events of this call and the audit (pending until `observe`).
 *
 * @category models
 * @since 0.1.0
 */
export interface PrepareResult<M> {
  readonly messages: ReadonlyArray<M>
  readonly maxTokens: number
  readonly tokens: number
  readonly budget: number
  readonly window: number | undefined
  readonly events: ReadonlyArray<EngineEvent>
  readonly audit: PromptContextAudit
}

/**
 * What `observe` takes: the provider's usage in any shape, its finish reason, or the error the call failed with
 * (an `effect/ai` `AiError`, `{ status, body }`, or the parsed body).
 *
 * @category models
 * @since 0.1.0
 */
export interface ObserveInput {
  readonly session: string
  readonly usage?: unknown
  readonly finishReason?: string | undefined
  readonly error?: unknown
  /** The model that answered (a different model resets calibration and the ledger). */
  readonly model?: string | undefined
  /** The response's id (a second report of it is ignored by the ledger). */
  readonly responseId?: string | undefined
}

/**
 * What `observe` returns: whether the server silently dropped part of the prompt, and the named end when the
 * response must be discarded (`context_overflow`, for a truncation or an over-window error).
 *
 * @category models
 * @since 0.1.0
 */
export interface ObserveResult {
  readonly truncated: boolean
  readonly outcome?: ContextOverflow | undefined
}

/**
 * The errors `prepare` fails with.
 *
 * @category models
 * @since 0.1.0
 */
export type PrepareError =
  | TokenBudgetExceeded
  | ContextBudgetExceeded
  | UnknownSession
  | InvalidAppend
  | TokenCounterFailed
  | UnknownStrategy
  | SessionStoreError
  | SessionConflict

/**
 * The engine as a service: `ContextEngine.layer(options)` builds it from a `SessionStore` and a `Summarizer`
 * (required), and optionally a `TokenCounter` (default approximate), a `WindowSource` (default none),
 * `ContextEvents` (default no-op) and `ContextStrategies` (default the built-ins).
 *
 * `prepare` runs, in order: cap new tool results → governor projection → clearing → trigger check →
 * compaction when due → oversized-tail reduction and last chance → fitting with the chosen strategy → invariants
 * block → final independent recount and budget check → audit. `observe` runs truncation detection, calibration
 * (never from a truncated or usage-less response) and the ledger, and classifies provider errors. Each session's
 * calls run one at a time; sessions run concurrently.
 *
 * @example
 * ```ts
 * import { Summarizer } from "@ctxkit/compaction"
 * import { ContextEngine, SessionStore } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const summarizer = Layer.succeed(Summarizer, Summarizer.of({
 *   summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"answer\"}}", finishReason: "stop" })
 * }))
 * const engine = ContextEngine.layer({ window: 8192, maxTokens: 1024 }).pipe(
 *   Layer.provide([SessionStore.layerMemory, summarizer])
 * )
 * const request = Effect.gen(function*() {
 *   const context = yield* ContextEngine
 *   const prepared = yield* context.prepare({
 *     session: "s1",
 *     append: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }]
 *   })
 *   yield* context.observe({ session: "s1", usage: { prompt_tokens: 12, completion_tokens: 3 } })
 *   return prepared.maxTokens
 * })
 * Effect.runPromise(request.pipe(Effect.provide(engine))) // resolves to 1024
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class ContextEngine extends Context.Service<ContextEngine, {
  readonly prepare: <M>(input: PrepareInput<M>) => Effect.Effect<PrepareResult<M>, PrepareError>
  readonly observe: (
    input: ObserveInput
  ) => Effect.Effect<ObserveResult, UnknownSession | SessionStoreError | SessionConflict>
}>()("@ctxkit/engine/ContextEngine") {
  /** The engine, from its options and the services around it. */
  static layer<M = unknown>(
    options: EngineOptions<M> = {}
  ): Layer.Layer<ContextEngine, InvalidEngineOptions, SessionStore | Summarizer> {
    return Layer.effect(ContextEngine, make(options as EngineOptions<unknown>))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Options

const isPositive = (value: unknown): value is number => Predicate.isNumber(value) && Number.isFinite(value) && value > 0

const settingsOf = (options: EngineOptions<unknown>): Result.Result<EngineSettings, InvalidEngineOptions> => {
  const bad = (option: string, problem: string) => Result.fail(new InvalidEngineOptions({ option, problem }))
  const given: EngineOptions<unknown> = Predicate.isObject(options) ? options : {}
  const presetOption: unknown = given.preset ?? "recommended"
  const base: EngineSettings | undefined = Predicate.isString(presetOption)
    ? (enginePresets as Readonly<Record<string, EngineSettings>>)[presetOption]
    : Predicate.isObject(presetOption)
    ? presetOption as unknown as EngineSettings
    : undefined
  if (base === undefined) {
    return bad("preset", `got ${JSON.stringify(presetOption)}; use one of ${Object.keys(enginePresets).join(", ")}`)
  }
  if (given.window !== undefined && !isPositive(given.window)) {
    return bad("window", `got ${String(given.window)}; pass the model's context window in tokens, or leave it out`)
  }
  if (given.maxTokens !== undefined && !isPositive(given.maxTokens)) {
    return bad("maxTokens", `got ${String(given.maxTokens)}; pass the reply budget in tokens, or leave it out`)
  }
  if (given.format !== undefined && !isMessageFormat(given.format)) {
    return bad("format", "not a MessageFormat; pass one of formats.<name> from @ctxkit/core")
  }
  const settings: EngineSettings = {
    ...base,
    ...(given.cap === undefined ? {} : { cap: given.cap }),
    governor: { ...base.governor, ...given.governor },
    ...(given.clearing === undefined ? {} : { clearing: given.clearing }),
    compaction: { ...base.compaction, ...given.compaction },
    ...(given.hardLimit === undefined ? {} : { hardLimit: given.hardLimit }),
    ...(given.strategy === undefined ? {} : { strategy: given.strategy }),
    ...(given.invariants === undefined ? {} : { invariants: given.invariants }),
    ...(given.assumedWindow === undefined ? {} : { assumedWindow: given.assumedWindow })
  }
  const { compaction } = settings
  if (!(compaction.compactAt > 0 && compaction.compactAt <= 1)) {
    return bad("compaction.compactAt", `got ${String(compaction.compactAt)}; pass a fraction in (0, 1], such as 0.85`)
  }
  if (!isPositive(compaction.timeoutMillis)) {
    return bad("compaction.timeoutMillis", `got ${String(compaction.timeoutMillis)}; pass milliseconds > 0`)
  }
  if (settings.clearing !== false) {
    const checked = decideContextAction({ used: 0, available: 1 }, {
      maxToolResultTokens: 25_000,
      clearAt: settings.clearing.clearAt,
      compactAt: compaction.compactAt,
      keepToolResults: settings.clearing.keepToolResults
    })
    if (Result.isFailure(checked)) return bad(`clearing.${checked.failure.field}`, checked.failure.message)
    // An engine option is refused, not replaced: the policy reports a field it would have defaulted.
    const adjusted = checked.success.diagnostics?.[0]
    if (adjusted !== undefined) return bad(`clearing.${adjusted.option}`, adjusted.message)
  }
  if (settings.hardLimit !== false && !isPositive(settings.hardLimit.maxContextChars)) {
    return bad("hardLimit.maxContextChars", `got ${String(settings.hardLimit.maxContextChars)}; pass characters > 0`)
  }
  if (settings.assumedWindow !== undefined && !isPositive(settings.assumedWindow)) {
    return bad("assumedWindow", `got ${String(settings.assumedWindow)}; pass tokens > 0, or leave it out`)
  }
  return Result.succeed(settings)
}

// ---------------------------------------------------------------------------------------------------------------
// Per-session caches (in memory, rebuilt when the stored session changed under them)

interface Runtime {
  readonly revision: number
  readonly cache: CostCache
  /** Serialized size of each message (`JSON.stringify` length). */
  readonly chars: PositionalMemo
  /** An effectful counter's answers, by text. */
  readonly texts: Map<string, number>
  /** Counts of instructions texts. */
  readonly fixed: Map<string, number>
  /** Per-message audit flags (pinned, protected, summary, linked, user). */
  readonly flags: PositionalMemo
  readonly counter: BudgetTokenCounter
  readonly governor?: { readonly analysis: GovernorAnalysis<unknown>; readonly messages: ReadonlyArray<unknown> }
  /**
   * The last clearing found nothing to clear and nothing was rewritten since: until a tool result arrives, none
   * can become clearable, so the pass over every result is skipped.
   */
  readonly clearIdle?: boolean | undefined
}

/** A message's serialized size (`JSON.stringify` length; 2 when it cannot be serialized). */
const jsonChars = (message: unknown): number => {
  if (typeof message !== "object" || message === null) return String(message).length
  try {
    return JSON.stringify(message)?.length ?? 2
  } catch {
    return 2
  }
}

/** `transcriptChars` with the per-message sizes remembered per session (by position, then identity). */
const transcriptSize = (runtime: Runtime, messages: ReadonlyArray<unknown>): number => {
  let sum = 0
  for (const size of runtime.chars.values(messages, jsonChars)) sum += size
  return sum + Math.max(0, messages.length - 1) + 2
}

const emptyMeta = (counter: BudgetTokenCounter): SessionMeta => ({
  turn: 0,
  detector: OverflowDetector.initial({ counter }),
  ledger: makeUsageLedger(),
  calibration: uncalibrated,
  charsAfterLastAutoCompaction: 0,
  quotes: [],
  elided: []
})

const describeError = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error) ?? String(error)

// ---------------------------------------------------------------------------------------------------------------
// The engine

/** How many times a call runs again after a `SessionConflict` before failing with it. */
/**
 * `format` with the newest checkpoint of `request` (its last `isSummary` message: the engine's own, or one the
 * caller's harness wrote) also protected; the format itself when there is none.
 */
const protectingNewestCheckpoint = (
  format: MessageFormat<unknown>,
  request: ReadonlyArray<unknown>
): MessageFormat<unknown> => {
  let newest: unknown
  for (let i = request.length - 1; i >= 0 && newest === undefined; i--) {
    if (format.isSummary(request[i])) newest = request[i]
  }
  if (newest === undefined) return format
  return { ...format, isProtected: (message) => message === newest || format.isProtected(message) }
}

const CONFLICT_RETRIES = 100

const make = (options: EngineOptions<unknown>) =>
  Effect.gen(function*() {
    const checked = settingsOf(options)
    if (Result.isFailure(checked)) return yield* checked.failure
    const settings = checked.success
    const store = yield* SessionStore
    const summarizer = yield* Summarizer
    const counterService = Option.getOrUndefined(yield* Effect.serviceOption(TokenCounter))
    const windowSource = Option.getOrUndefined(yield* Effect.serviceOption(WindowSource))
    const events = Option.getOrElse(
      yield* Effect.serviceOption(ContextEvents),
      () => ContextEvents.of({ emit: () => Effect.void })
    )
    const strategies = Option.getOrUndefined(yield* Effect.serviceOption(ContextStrategies))
    const baseCounter: BudgetTokenCounter = counterService?.counter ?? {
      id: "approximate-chars-v1",
      approximate: true,
      count: (text) => Math.ceil(text.length / 4)
    }
    const effectful = counterService?.effectful
    const discovered = yield* Effect.cached(
      windowSource === undefined ? Effect.succeed(undefined) : Effect.map(windowSource.discover, (a) => a.window)
    )
    const configuredFormat = options.format
    const provider = Predicate.isString(options.provider) ? options.provider : "unknown"
    const model = Predicate.isString(options.model) ? options.model : "unknown"

    const locks = new Map<string, Semaphore.Semaphore>()
    const runtimes = new Map<string, Runtime>()
    const one = <A, E>(session: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        let lock = locks.get(session)
        if (lock === undefined) {
          lock = Semaphore.makeUnsafe(1)
          locks.set(session, lock)
        }
        return lock.withPermit(effect)
      })

    // Another engine (another process on the same SQLite file) moved the session between this call's read and
    // its write: the store refused the write whole, so the call runs again on the session as it is now. Each
    // refusal means the other writer made progress; the bound only guards against a store that always refuses.
    const onConflictAgain = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.retry(effect, { while: (error) => Predicate.isTagged(error, "SessionConflict"), times: CONFLICT_RETRIES })

    const runtimeOf = (session: string, state: SessionState | undefined): Runtime => {
      const known = runtimes.get(session)
      if (known !== undefined && known.revision === (state?.revision ?? 0)) return known
      const texts = new Map<string, number>()
      const counter: BudgetTokenCounter = effectful === undefined ? baseCounter : {
        id: baseCounter.id,
        approximate: baseCounter.approximate,
        count: (text) => texts.get(text) ?? Math.ceil(text.length / 4)
      }
      const fresh: Runtime = {
        revision: state?.revision ?? 0,
        cache: makeCostCache(),
        chars: new PositionalMemo(),
        texts,
        fixed: new Map(),
        flags: new PositionalMemo(),
        counter
      }
      runtimes.set(session, fresh)
      return fresh
    }

    const formatFor = (
      state: SessionState | undefined,
      append: ReadonlyArray<unknown>
    ): MessageFormat<unknown> => {
      if (configuredFormat !== undefined) return configuredFormat
      if (state !== undefined && state.format !== "auto") {
        return (formats as unknown as Readonly<Record<string, MessageFormat<unknown>>>)[state.format] ?? formats.auto
      }
      const sample = state === undefined ? append : [...state.transcript.slice(0, 8).map((e) => e.message), ...append]
      return detectFormat(sample)
    }

    /** Counts the new messages' texts once, through the service, before the pure steps. */
    const countNew = (
      session: string,
      runtime: Runtime,
      format: MessageFormat<unknown>,
      append: ReadonlyArray<unknown>
    ) =>
      Effect.gen(function*() {
        const textsOf = (message: unknown): ReadonlyArray<string> => [
          format.text(message),
          ...format.toolResults(message).map((r) => r.text)
        ]
        if (effectful !== undefined) {
          for (const message of append) {
            for (const text of textsOf(message)) {
              if (runtime.texts.has(text)) continue
              const exit = yield* Effect.exit(Effect.suspend(() => effectful.count(text)))
              if (Exit.isFailure(exit)) {
                return yield* new TokenCounterFailed({ counter: effectful.id, error: describeCause(exit.cause) })
              }
              const n = exit.value
              if (!(Predicate.isNumber(n) && Number.isFinite(n) && n >= 0)) {
                return yield* new TokenCounterFailed({ counter: effectful.id, error: `returned ${String(n)}` })
              }
              runtime.texts.set(text, n)
            }
          }
        }
        for (const message of append) {
          let probe: number
          try {
            probe = runtime.counter.count(format.text(message))
          } catch (error) {
            return yield* new TokenCounterFailed({
              counter: runtime.counter.id,
              error: `threw: ${describeError(error)}`
            })
          }
          if (!(Predicate.isNumber(probe) && Number.isFinite(probe) && probe >= 0)) {
            return yield* new TokenCounterFailed({ counter: runtime.counter.id, error: `returned ${String(probe)}` })
          }
          messageCost(message, { counter: runtime.counter, format, cache: runtime.cache })
        }
        void session
      })

    const fixedTokens = (runtime: Runtime, instructions: string | undefined, tools: ToolCatalog | undefined) => {
      let tokens = 0
      if (Predicate.isString(instructions) && instructions.length > 0) {
        let n = runtime.fixed.get(instructions)
        if (n === undefined) {
          n = Math.max(0, runtime.counter.count(instructions)) + 4
          runtime.fixed.set(instructions, n)
        }
        tokens += n
      }
      if (tools !== undefined) tokens += toolCatalogCost(tools, runtime.counter).tokens
      return tokens
    }

    const prepare = <M>(input: PrepareInput<M>): Effect.Effect<PrepareResult<M>, PrepareError> =>
      Effect.gen(function*() {
        const session = Predicate.isObject(input) && Predicate.isString(input.session) ? input.session : ""
        if (session.length === 0) {
          return yield* new InvalidAppend({
            session: String((input as { readonly session?: unknown })?.session),
            format: configuredFormat?.name ?? "auto",
            issues: ["session: expected a non-empty string naming the session"]
          })
        }
        return yield* one(
          session,
          onConflictAgain(prepareLocked(session, input as PrepareInput<unknown>))
        ) as Effect.Effect<
          PrepareResult<M>,
          PrepareError
        >
      })

    const prepareLocked = (session: string, input: PrepareInput<unknown>) =>
      Effect.gen(function*() {
        const append: ReadonlyArray<unknown> = Array.isArray(input.append) ? input.append : []
        if (!Array.isArray(input.append)) {
          return yield* new InvalidAppend({
            session,
            format: configuredFormat?.name ?? "auto",
            issues: ["append: expected an array of the messages new since the last call (possibly empty)"]
          })
        }
        const state = Option.getOrUndefined(yield* store.load(session))
        if (state === undefined && append.length === 0) {
          return yield* new UnknownSession({ session, operation: "prepare" })
        }
        const format = formatFor(state, append)
        const issues = append.flatMap((message, i) =>
          format.validate(message, `append[${i}]`).map((issue) => `${issue.path}: ${issue.message}`)
        )
        if (issues.length > 0) return yield* new InvalidAppend({ session, format: format.name, issues })

        const runtime = runtimeOf(session, state)
        yield* countNew(session, runtime, format, append)
        const counter = runtime.counter
        const cache = runtime.cache
        const meta0 = state?.meta ?? emptyMeta(counter)
        const turn = meta0.turn + 1
        const emitted: Array<EngineEvent> = []
        const emit = (event: EngineEvent) =>
          Effect.suspend(() => {
            emitted.push(event)
            return events.emit(session, event)
          })

        // The working history: the stored active messages, then the new ones.
        const storedLength = state?.active.length ?? 0
        const firstNew = state?.transcript.length ?? 0
        const messages: Array<unknown> = []
        const origins: Array<number> = []
        for (const entry of state?.active ?? []) {
          messages.push(entry.message)
          origins.push(entry.origin)
        }
        append.forEach((message, i) => {
          messages.push(message)
          origins.push(firstNew + i)
        })
        let history: ReadonlyArray<unknown> = messages
        let historyOrigins: ReadonlyArray<number> = origins
        let changedFrom = storedLength
        let edited: PreparedRequest["edited"]
        let detector = meta0.detector
        let ledger = meta0.ledger
        let quotes = meta0.quotes
        let charsAfterLastAutoCompaction = meta0.charsAfterLastAutoCompaction
        let lastChanceTurn = meta0.lastChanceTurn
        const newCheckpoints: Array<CheckpointRecord> = []
        const marks: Array<{ readonly entry: number; readonly checkpoint: number }> = []
        const checkpointCount = () => (state?.checkpoints.length ?? 0) + newCheckpoints.length

        // The window and the budgets.
        const discoveredWindow = yield* discovered
        const learned = meta0.learnedWindow?.tokens
        const window = [learned, options.window, discoveredWindow, settings.assumedWindow].find(
          (w): w is number => isPositive(w) && w <= 2_000_000
        )
        const maxChars = settings.hardLimit === false ? DEFAULT_MAX_CONTEXT_CHARS : settings.hardLimit.maxContextChars
        const total = window ?? effectiveBudget(undefined, maxChars).total
        const replyReserve = reserveTokens(window, options.maxTokens, maxChars)
        const available = availableTokens(window, options.maxTokens, maxChars)
        const instructions = Predicate.isString(input.instructions) ? input.instructions : undefined
        const fixed = fixedTokens(runtime, instructions, input.tools)
        const instructionsChars = instructions?.length ?? 0
        const scale = Math.max(1, meta0.calibration.scale)

        const invariantsBlock = () =>
          settings.invariants === false || checkpointCount() === 0 ? undefined : buildInvariants(
            { compacted: true, instructions: quotes },
            { maxChars: settings.invariants.maxChars, maintainer: settings.invariants.maintainer }
          ).text
        const blockTokens = (block: string | undefined) => block === undefined ? 0 : counter.count(block) + 4
        // Measures of the current history, remembered until it changes (each is a pass over the history).
        let measured: { readonly of: ReadonlyArray<unknown>; readonly cost: ConversationCost } | undefined
        let sized: { readonly of: ReadonlyArray<unknown>; readonly chars: number } | undefined
        const historyTokens = () => {
          if (measured?.of !== history) {
            measured = { of: history, cost: conversationCost(history, { counter, format, cache }) }
          }
          return measured.cost.total
        }
        const historyChars = () => {
          if (sized?.of !== history) sized = { of: history, chars: transcriptSize(runtime, history) }
          return sized.chars
        }
        const used = () => applyCalibration(historyTokens() + fixed + blockTokens(invariantsBlock()), meta0.calibration)
        const replace = (next: ReadonlyArray<unknown>) => {
          // Same length, same positions: find the first message that changed.
          let first = 0
          while (first < next.length && next[first] === history[first]) first++
          changedFrom = Math.min(changedFrom, first)
          history = next
        }

        // 1. Cap the new tool results.
        if (settings.cap !== false && append.length > 0) {
          const capped = settings.cap.by === "tokens"
            ? capToolResults(history, {
              available,
              maxToolResultTokens: settings.cap.maxToolResultTokens,
              share: settings.cap.share,
              counter,
              format,
              from: storedLength
            })
            : capToolResults(history, { ...settings.cap.chars, format, from: storedLength })
          if (capped.capped.length > 0) {
            history = capped.messages
            yield* emit({
              type: "context_capped",
              data: {
                results: capped.capped.length,
                omittedChars: capped.capped.reduce((sum, c) => sum + c.omittedChars, 0)
              }
            })
          }
        }

        // 2. The governor's projection is made on the final history (step 7): it only changes the request, and
        // every trigger below measures the full history.

        // 3. Clear old tool results past `clearAt`.
        const appendsResults = append.some((m) => format.toolResults(m).length > 0)
        let clearIdle = runtime.clearIdle === true && !appendsResults
        if (settings.clearing !== false && !clearIdle) {
          const decision = decideContextAction({ used: used(), available }, {
            maxToolResultTokens: settings.cap !== false && settings.cap.by === "tokens"
              ? settings.cap.maxToolResultTokens
              : 25_000,
            clearAt: settings.clearing.clearAt,
            compactAt: settings.compaction.compactAt,
            keepToolResults: settings.clearing.keepToolResults
          })
          if (Result.isSuccess(decision) && decision.success._tag !== "Nothing") {
            const cleared = clearOldToolResults(history, {
              keepToolResults: settings.clearing.keepToolResults,
              clearAtLeast: settings.clearing.clearAtLeast,
              excludeTools: settings.clearing.excludeTools,
              format,
              counter
            })
            clearIdle = cleared.count === 0
            if (cleared.count > 0) {
              replace(cleared.messages)
              edited = "clearing"
              detector = OverflowDetector.reset(detector, "clearing")
              ledger = clearUsageLedger(ledger, "clearing")
              yield* emit({
                type: "context_cleared",
                data: { results: cleared.count, tokensFreed: cleared.freedTokens }
              })
            }
          }
        }

        const timed: SummarizeFn = (request) =>
          summarizer.summarize(request).pipe(
            Effect.timeoutOrElse({
              duration: settings.compaction.timeoutMillis,
              orElse: () =>
                Effect.fail(
                  new SummarizerError({
                    message: `the summarizer did not answer within ${
                      settings.compaction.timeoutMillis / 1000
                    } s (compaction.timeoutMillis); compaction skipped, nothing was replaced`
                  })
                )
            })
          )

        /** One compaction; on success the history and the bookkeeping are updated. */
        const runCompaction = (reason: "auto" | "budget") =>
          Effect.gen(function*() {
            const exit = yield* Effect.exit(compact(history, {
              reason,
              format,
              summarize: timed,
              keepTurns: settings.compaction.keepTurns,
              minKeepMessages: settings.compaction.minKeepMessages,
              partialSummaries: settings.compaction.partialSummaries,
              maxOutputTokens: settings.compaction.maxOutputTokens,
              counter,
              cache,
              lastGoodSample: detector.lastGood ?? undefined,
              emit: (event: CompactionEvent) => emit(event)
            }))
            if (Exit.isFailure(exit)) {
              const error = exit.cause.reasons.find((r) => r._tag === "Fail")
              return { _tag: "Failed", error: error?._tag === "Fail" ? describeError(error.error) : "defect" } as const
            }
            const outcome: CompactionOutcome<unknown> = exit.value
            if (outcome._tag === "Skipped") return { _tag: "Skipped" } as const
            const byObject = new Map<unknown, number>()
            history.forEach((message, i) => byObject.set(message, historyOrigins[i] as number))
            const k = checkpointCount()
            const originOf = (message: unknown): number =>
              message === outcome.checkpoint ? -(k + 1) : byObject.get(message) ?? -(k + 1)
            const replaced = outcome.replaced.map((m) => byObject.get(m)).filter((o): o is number => o !== undefined)
            newCheckpoints.push({
              message: outcome.checkpoint,
              replaces: replaced,
              reason,
              structured: outcome.parsed.structured
            })
            for (const origin of replaced) if (origin >= 0) marks.push({ entry: origin, checkpoint: k })
            quotes = acceptQuotes(outcome.replaced, outcome.parsed.checkpoint?.instructions ?? [], {
              instructions: quotes,
              format
            }).instructions
            history = outcome.messages
            historyOrigins = outcome.messages.map(originOf)
            changedFrom = 0
            edited = "compaction"
            detector = OverflowDetector.reset(detector, "compaction")
            ledger = clearUsageLedger(ledger, "compaction")
            if (reason === "auto") charsAfterLastAutoCompaction = instructionsChars + historyChars()
            return { _tag: "Compacted" } as const
          })

        // 4–5. The trigger check, and the compaction when due.
        if (settings.compaction.auto) {
          const dueByTokens = used() >= settings.compaction.compactAt * available
          const dueByChars = settings.hardLimit !== false && charRuleFires({
            conversationChars: instructionsChars + historyChars(),
            charsAfterLastAutoCompaction,
            maxContextChars: settings.hardLimit.maxContextChars,
            threshold: settings.compaction.compactAt
          }).compact
          if (dueByTokens || dueByChars) yield* runCompaction("auto")
        }

        // 6. The oversized tail, then the last chance.
        let failure: ContextBudgetExceeded | TokenBudgetExceeded | undefined
        if (settings.hardLimit !== false) {
          const limit = settings.hardLimit.maxContextChars
          const target = hardLimitTarget(limit, instructionsChars)
          const reduce = (reason: string) =>
            Effect.gen(function*() {
              if (historyChars() <= target) return
              const before = historyChars()
              const reduction = reduceToBudget(history, target, { format })
              if (reduction.truncated === 0) return
              replace(reduction.messages)
              edited = "reduction"
              yield* emit({
                type: "context_reduced",
                data: {
                  messages: reduction.truncated,
                  reason,
                  tokensSaved: Math.max(0, Math.floor((before - historyChars()) / 4))
                }
              })
            })
          const over = () => instructionsChars + historyChars() > limit
          yield* reduce("hard-limit")
          if (over()) {
            let outcome: LastChanceOutcome
            if (!settings.compaction.auto) outcome = { _tag: "Disabled" }
            else if (lastChanceTurn === turn) outcome = { _tag: "Ran" }
            else {
              lastChanceTurn = turn
              const ran = yield* runCompaction("budget")
              if (ran._tag === "Compacted") yield* reduce("last-chance")
              outcome = ran._tag === "Failed"
                ? { _tag: "Failed", error: ran.error }
                : ran._tag === "Skipped"
                ? { _tag: "NoBoundary" }
                : { _tag: "Ran" }
            }
            if (over()) {
              failure = budgetExceeded({
                conversationChars: instructionsChars + historyChars(),
                limit,
                outcome
              })
            }
          }
        }

        // 7. The governor's projection, then fitting with the chosen strategy.
        let request: ReadonlyArray<unknown> = history
        let elided = meta0.elided
        if (settings.governor.mode !== "off") {
          const previous = runtime.governor
          let extends_ = previous !== undefined && previous.messages.length <= history.length
          for (let i = 0; extends_ && previous !== undefined && i < previous.messages.length; i++) {
            if (previous.messages[i] !== history[i]) extends_ = false
          }
          const governed = govern(history, {
            mode: settings.governor.mode,
            minAgeTurns: settings.governor.minAgeTurns,
            epochMessages: settings.governor.epochMessages,
            toolKinds: settings.governor.toolKinds,
            format,
            counter,
            cache,
            request: turn,
            previouslyElided: meta0.elided,
            ...(extends_ && previous !== undefined ? { analysis: previous.analysis } : {})
          })
          runtimeGovernor.set(
            session,
            governed.analysis === undefined ? undefined : { analysis: governed.analysis, messages: history }
          )
          request = governed.messages
          elided = governed.elisions.map((e) => e.callId)
          if (governed.event !== undefined) {
            const { type: _, ...data } = governed.event
            yield* emit({ type: "context_governed", data })
          }
        }
        const block = invariantsBlock()
        const sendsBlock = block !== undefined && settings.governor.mode !== "shadow"
        const inputBudget = Math.max(0, available - fixed - (sendsBlock ? blockTokens(block) : 0))
        const fitBudget = Math.floor(inputBudget / scale)
        const registry = strategies === undefined ? undefined : yield* strategies.registry
        const startedAt = yield* Clock.clockWith((clock) => clock.currentTimeMillis)
        const generationId = `${session}#${turn}`
        // The common steady state: the whole request fits. `truncate` and `summarize` then keep every message and
        // insert nothing (they stop as soon as it fits), so the strategy guard and the interceptor pass — linear
        // in the history with a large constant — are skipped; the audit is made from the same result. A strategy
        // that is not a built-in one always runs under the guard: it is any function of the whole request, so its
        // answer cannot be known from the last one, and checking it (pairs, protected messages) is one linear pass
        // over costs already cached per message.
        const wanted = settings.strategy
        const builtin = (wanted === "truncate" || wanted === "summarize") &&
          (registry === undefined ||
            ContextStrategyRegistry.lookup(registry, wanted) === builtinStrategies[wanted])
        const requestTokens = !builtin
          ? Infinity
          : request === history
          ? historyTokens()
          : conversationCost(request, { counter, format, cache }).total
        // When it does not fit, the newest checkpoint is protected like the system prompt: it is the only copy of
        // what it replaced (in a loop of one user turn, the task itself), and compaction keeps the recent turns
        // whole, so the history can still be a little over the fit budget. The fitting then drops those older
        // kept turns, never the checkpoint; a checkpoint that cannot fit fails the budget check below, with its fix.
        const prepared = requestTokens <= fitBudget
          ? (() => {
            const audit = wholeRequestAudit({
              messages: request,
              ...(request === history && measured?.of === history ? { cost: measured.cost } : {}),
              format,
              counter,
              cache,
              flags: runtime.flags,
              generationId,
              provider,
              model,
              strategy: wanted,
              contextLimit: fitBudget + replyReserve,
              reservedForReply: replyReserve,
              budget: fitBudget,
              startedAt
            })
            return { messages: request, fits: true, tokens: requestTokens, budget: fitBudget, audit }
          })()
          : yield* fitPrompt(request, {
            countTokens: counter,
            contextLimit: fitBudget + replyReserve,
            reservedForReply: replyReserve,
            strategy: wanted,
            ...(registry === undefined ? {} : { registry }),
            format: protectingNewestCheckpoint(format, request),
            cache,
            generationId,
            provider,
            model,
            startedAt
          })
        yield* emit({
          type: "context_fitted",
          data: {
            strategy: settings.strategy,
            kept: prepared.messages.length,
            excluded: request.length - prepared.messages.length,
            tokens: prepared.tokens,
            budget: prepared.budget
          }
        })

        // 8. The invariants block, at the end of the request.
        const sent = sendsBlock ? withInvariants(prepared.messages, block, { format }) : prepared.messages

        // 9. The final recount, independent of the fitting's running total.
        // The fast path summed the very messages sent (cached per message); otherwise they are summed again here,
        // apart from the fitting's running total.
        const recount = (prepared.messages === request && requestTokens <= fitBudget
          ? requestTokens + (sendsBlock ? blockTokens(block) : 0)
          : conversationCost(sent, { counter, format, cache }).total) + fixed
        if (failure === undefined && (!prepared.fits || recount > available)) {
          failure = new TokenBudgetExceeded({
            contextLimit: window ?? total,
            reservedForReply: replyReserve,
            promptTokens: Math.max(recount, prepared.tokens + fixed)
          })
        }

        // 10. The audit (pending until observe), and one transaction for everything this call changed.
        const audit = prepared.audit
        yield* emit({
          type: "context_audit",
          data: { generationId: audit.generationId, status: audit.status, promptTokens: recount }
        })
        const entries: Array<ActiveEntry> = []
        for (let i = changedFrom; i < history.length; i++) {
          entries.push({ message: history[i], origin: historyOrigins[i] as number })
        }
        const lastRequest: PreparedRequest = {
          estimate: recount,
          messages: history.length,
          epoch: ledger.epoch,
          ...(edited === undefined ? {} : { edited }),
          ...(window === undefined ? {} : { window })
        }
        const patch: SessionPatch = {
          revision: state?.revision ?? 0,
          format: format.name,
          append,
          active: { from: changedFrom, entries },
          checkpoints: newCheckpoints,
          compacted: marks,
          meta: {
            ...meta0,
            turn,
            detector,
            ledger,
            quotes,
            elided,
            charsAfterLastAutoCompaction,
            lastChanceTurn,
            lastAudit: audit,
            lastRequest
          }
        }
        const next = yield* store.apply(session, patch)
        const governor = runtimeGovernor.get(session)
        runtimes.set(session, {
          ...runtime,
          revision: next.revision,
          clearIdle: clearIdle && edited === undefined,
          ...(governor === undefined ? {} : { governor })
        })
        runtimeGovernor.delete(session)
        if (failure !== undefined) return yield* failure
        const result: PrepareResult<unknown> = {
          messages: sent,
          maxTokens: replyReserve,
          tokens: recount,
          budget: available,
          window,
          events: emitted,
          audit
        }
        return result
      })

    const runtimeGovernor = new Map<string, Runtime["governor"]>()

    const observe = (
      input: ObserveInput
    ): Effect.Effect<ObserveResult, UnknownSession | SessionStoreError | SessionConflict> =>
      Effect.gen(function*() {
        const session = Predicate.isObject(input) && Predicate.isString(input.session) ? input.session : ""
        return yield* one(session, onConflictAgain(observeLocked(session, input)))
      })

    const observeLocked = (session: string, input: ObserveInput) =>
      Effect.gen(function*() {
        const state = Option.getOrUndefined(yield* store.load(session))
        if (state === undefined) return yield* new UnknownSession({ session, operation: "observe" })
        const meta = state.meta
        const last = meta.lastRequest
        const now = yield* Clock.clockWith((clock) => clock.currentTimeMillis)
        const model = Predicate.isString(input.model) ? input.model : undefined
        const emit = (event: EngineEvent) => events.emit(session, event)
        const commit = (changes: Partial<SessionMeta>) =>
          Effect.gen(function*() {
            const next = yield* store.apply(session, { revision: state.revision, meta: changes })
            const runtime = runtimes.get(session)
            if (runtime !== undefined && runtime.revision === state.revision) {
              runtimes.set(session, { ...runtime, revision: next.revision })
            }
          })
        const finalized = (outcome: Parameters<typeof finalizeAudit>[1]) =>
          meta.lastAudit === undefined ? undefined : finalizeAudit(meta.lastAudit, outcome, now)

        if (input.error !== undefined && input.error !== null) {
          const reading = readProviderError(input.error)
          if (!reading.overWindow) {
            yield* commit({ lastAudit: finalized({ status: "failed", errorCode: reading.code }) })
            return { truncated: false }
          }
          const window = reading.window !== undefined && reading.window <= 2_000_000 ? reading.window : undefined
          const configured = options.window
          const verdict: OverflowVerdict = {
            truncated: true,
            calibrate: false,
            rule: "known-window",
            kind: "turn",
            sample: { tokens: reading.promptTokens ?? 0, estimate: last?.estimate ?? 0 },
            baseline: meta.detector.lastGood,
            minGrowth: OVERFLOW_MIN_GROWTH,
            evidence: window === undefined ? {} : { window },
            ...(window === undefined ? {} : { apparentWindow: { tokens: window } })
          }
          const outcome: ContextOverflow = {
            reason: "context_overflow",
            kind: "turn",
            action: "end-run",
            message: rejectionMessage(reading.provider, window, reading.promptTokens, configured),
            verdict
          }
          yield* emit({
            type: "context_overflow",
            data: {
              kind: "turn",
              rule: verdict.rule,
              source: "provider-error",
              ...(window === undefined ? {} : { window })
            }
          })
          if (window !== undefined) {
            yield* emit({
              type: "window_learned",
              data: {
                tokens: window,
                source: `${reading.provider ?? "server"} error`,
                ...(configured === undefined ? {} : { configured }),
                ...(configured !== undefined && configured > window
                  ? {
                    warning:
                      `The server rejected the prompt with a window of ${window} tokens, smaller than the configured ${configured}: the next requests are fitted to ${window}. Set window to ${window} (or raise the server's context size).`
                  }
                  : {})
              }
            })
          }
          yield* commit({
            lastAudit: finalized({ status: "failed", errorCode: "context_length_exceeded" }),
            ...(window === undefined
              ? {}
              : { learnedWindow: { tokens: window, source: `${reading.provider ?? "server"} error` } })
          })
          return { truncated: false, outcome }
        }

        const tokens = promptTokens(input.usage)
        const estimate = last?.estimate ?? 0
        const observed = OverflowDetector.observe(meta.detector, {
          tokens,
          estimate,
          ...(last?.edited === undefined ? {} : { edited: last.edited }),
          ...(last?.window === undefined ? {} : { window: last.window })
        })
        const verdict = observed.verdict
        if (verdict.truncated) {
          const outcome = contextOverflow(verdict, { configuredWindow: options.window })
          const apparent = verdict.apparentWindow?.tokens
          const current = meta.learnedWindow?.tokens ?? last?.window
          const learn = apparent !== undefined && apparent > 0 && (current === undefined || apparent < current)
          yield* emit({
            type: "context_overflow",
            data: {
              kind: verdict.kind,
              rule: verdict.rule,
              source: "truncation",
              ...(learn ? { window: apparent } : {})
            }
          })
          if (learn) {
            yield* emit({
              type: "window_learned",
              data: {
                tokens: apparent,
                source: "truncation plateau",
                ...(options.window === undefined ? {} : { configured: options.window }),
                warning:
                  `The server kept at most about ${apparent} tokens of the prompt: the next requests are fitted to that. Set the real context window.`
              }
            })
          }
          yield* commit({
            detector: observed.state,
            lastAudit: finalized({ status: "failed", errorCode: "context_length_exceeded" }),
            ...(learn ? { learnedWindow: { tokens: apparent, source: "truncation plateau" } } : {})
          })
          return { truncated: true, ...(outcome === undefined ? {} : { outcome }) }
        }
        const calibration = verdict.calibrate
          ? calibrate(meta.calibration, {
            tokens,
            estimate,
            truncated: false,
            ...(model === undefined ? {} : { model })
          })
            .calibration
          : meta.calibration
        const ledger = last === undefined ? meta.ledger : recordUsage(meta.ledger, {
          usage: input.usage,
          messagesAtRequest: last.messages,
          epoch: last.epoch,
          truncated: false,
          ...(model === undefined ? {} : { model }),
          ...(Predicate.isString(input.responseId) ? { responseId: input.responseId } : {})
        }).ledger
        yield* commit({
          detector: observed.state,
          calibration,
          ledger,
          lastAudit: finalized({ status: "completed" })
        })
        return { truncated: false }
      })

    return ContextEngine.of({ prepare, observe })
  })

const describeCause = (cause: import("effect/Cause").Cause<unknown>): string => {
  const reason = cause.reasons[0]
  if (reason === undefined) return "interrupted"
  if (reason._tag === "Fail") return describeError(reason.error)
  if (reason._tag === "Die") return `died: ${describeError(reason.defect)}`
  return "interrupted"
}

const rejectionMessage = (
  provider: string | undefined,
  window: number | undefined,
  promptTokens: number | undefined,
  configured: number | undefined
): string => {
  const who = provider === undefined ? "The server" : `The server (${provider})`
  const sizes = promptTokens !== undefined && window !== undefined
    ? ` (${promptTokens} prompt tokens; window ${window})`
    : window !== undefined
    ? ` (window ${window} tokens)`
    : ""
  const learned = window === undefined
    ? "Set the real context window"
    : `The next request is fitted to ${window} tokens; set the context window to ${window}${
      configured !== undefined && configured > window ? ` instead of ${configured}` : ""
    }`
  return `${who} rejected the prompt as larger than its context window${sizes}, so no answer was produced. ${learned}, or raise the server's context size (llama.cpp: -c / --ctx-size; Ollama: num_ctx; vLLM: --max-model-len).`
}
