/**
 * The fitting stages of one generation in one call — the strategy under the host's guard, the interceptors, the
 * mandatory recount and final fit, the audit — as `fitPrompt` (before sending) and `preview` (the same, to show
 * what would be sent: nothing is created).
 *
 * @since 0.1.0
 */
import { approximateCounter } from "@ctxkit/budget"
import type { FormatInput, MessageFormat, UnknownStrategy } from "@ctxkit/core"
import {
  ContextStrategyRegistry,
  type CountTokens,
  type FitOptions,
  type PluginStrategy,
  strategies
} from "@ctxkit/fit"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { budgetUsable, isObject } from "./internal/host.ts"
import { type OmittedBlock, type PromptContextAudit, startAudit } from "./PromptContextAudit.ts"
import { type InterceptorRun, type PromptInterceptor, runInterceptors } from "./RunInterceptors.ts"
import { runStrategy, type StrategyRun } from "./RunStrategy.ts"

/**
 * Options of {@link fitPrompt} and {@link preview}: those of fitting, plus the counter, the limits, the strategy
 * (a strategy, or an id resolved in `registry`), the interceptors, the timeouts, and who is generating.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { formats, type Message } from "@ctxkit/core"
 * import type { PromptOptions } from "@ctxkit/engine/Preview"
 *
 * const options: PromptOptions<Message> = {
 *   format: formats.canonical,
 *   countTokens: approximateCounter,
 *   contextLimit: 8_192,
 *   reservedForReply: 1_024,
 *   strategy: "summarize",
 *   generationId: "gen-7",
 *   provider: "openai",
 *   model: "gpt-4.1-mini"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PromptOptions<M, F = M> extends Omit<FitOptions<F>, "strategy"> {
  /** The host's counter. */
  readonly countTokens: CountTokens
  /** The model's context window, in tokens. */
  readonly contextLimit: number
  /** Tokens reserved for the reply; the budget is `contextLimit - reservedForReply`. Default 0. */
  readonly reservedForReply?: number | undefined
  /** The strategy, or its id in `registry`. Default `truncate`. */
  readonly strategy?: PluginStrategy | string | undefined
  /** Where a strategy id is resolved. Default `ContextStrategyRegistry.builtins`. */
  readonly registry?: ContextStrategyRegistry | undefined
  /** Interceptors, run after fitting. Default none. */
  readonly interceptors?: ReadonlyArray<PromptInterceptor<M>> | undefined
  /** The strategy's timeout. Default 15 s. */
  readonly strategyTimeout?: Duration.Input | undefined
  /** Each interceptor's timeout. Default 2 s. */
  readonly interceptorTimeout?: Duration.Input | undefined
  /** The generation's id, for the audit. */
  readonly generationId: string
  /** The provider's name, for the audit. */
  readonly provider: string
  /** The model's name, for the audit. */
  readonly model: string
  /** Declared blocks that never became messages, for the audit. */
  readonly omitted?: ReadonlyArray<OmittedBlock> | undefined
  /** When the generation started, for the audit. */
  readonly startedAt?: number | undefined
}

/**
 * A prompt ready to send (or, from `preview`, what would be sent): the messages, whether they fit, what each stage
 * did, and the pending audit.
 *
 * @example
 * ```ts
 * import type { PreparedPrompt } from "@ctxkit/engine/Preview"
 *
 * const send = <M>(prompt: PreparedPrompt<M>) => prompt.fits ? prompt.messages : undefined
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PreparedPrompt<M> {
  /** What is sent: the final provider messages. */
  readonly messages: ReadonlyArray<M>
  /** Whether they fit the budget with everything protected in them. Send nothing when false. */
  readonly fits: boolean
  /** Their tokens, by the host's count. */
  readonly tokens: number
  /** The budget: `contextLimit - reservedForReply` (0 when unusable). */
  readonly budget: number
  /** What the strategy guard did. */
  readonly strategy: StrategyRun<M>
  /** What the interceptors and the final fit did. */
  readonly interceptors: InterceptorRun<M>
  /** The audit, `pending`: finalize it with `finalizeAudit` once the provider call ends. */
  readonly audit: PromptContextAudit
}

const stages: <M>(
  messages: ReadonlyArray<M>,
  options: PromptOptions<M>,
  isPreview: boolean
) => Effect.Effect<PreparedPrompt<M>, UnknownStrategy> = Effect.fnUntraced(
  function*<M>(messages: ReadonlyArray<M>, options: PromptOptions<M>, isPreview: boolean) {
    const given: Partial<PromptOptions<M>> = isObject(options) ? options : {}
    const reserve = typeof given.reservedForReply === "number" && Number.isFinite(given.reservedForReply) &&
        given.reservedForReply >= 0
      ? given.reservedForReply
      : 0
    const contextLimit = given.contextLimit ?? Number.NaN
    const budget = typeof contextLimit === "number" ? contextLimit - reserve : Number.NaN
    const wanted = given.strategy ?? strategies.truncate
    const strategy = typeof wanted === "string"
      ? yield* ContextStrategyRegistry.resolve(given.registry ?? ContextStrategyRegistry.builtins, wanted)
      : wanted
    const countTokens: CountTokens = given.countTokens ?? approximateCounter
    // `strategy` here names the strategy to run, not LangChain's `strategy` option of fitting.
    const fitOptions: FitOptions<M> = { ...given, strategy: undefined }
    const fitted = yield* runStrategy(strategy, messages, countTokens, budget, {
      ...fitOptions,
      timeout: given.strategyTimeout
    })
    const intercepted = yield* runInterceptors(fitted.result, given.interceptors ?? [], countTokens, budget, {
      ...fitOptions,
      timeout: given.interceptorTimeout,
      preview: isPreview
    })
    const audit = startAudit({
      generationId: given.generationId ?? "",
      provider: given.provider ?? "",
      model: given.model ?? "",
      contextLimit,
      reservedForReply: reserve,
      messages,
      strategy: fitted,
      interceptors: intercepted,
      countTokens,
      options: fitOptions,
      omitted: given.omitted,
      startedAt: given.startedAt
    })
    const result = intercepted.result
    return {
      messages: result.kept,
      fits: result.fits,
      tokens: result.tokens,
      budget: budgetUsable(budget) ? budget : 0,
      strategy: fitted,
      interceptors: intercepted,
      audit
    }
  }
)

/**
 * How {@link fitPrompt} and {@link preview} are called: with the messages and {@link PromptOptions}; given a
 * `format`, the caller's own message type comes back in the {@link PreparedPrompt}.
 *
 * @category models
 * @since 0.1.0
 */
export interface PromptCall {
  <M>(
    messages: ReadonlyArray<M>,
    options: PromptOptions<M>
  ): Effect.Effect<PreparedPrompt<M>, UnknownStrategy>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    options: PromptOptions<NoInfer<M>, F> & { readonly format: MessageFormat<F> }
  ): Effect.Effect<PreparedPrompt<M>, UnknownStrategy>
}

/**
 * Runs the fitting stages of a generation, before the network call: the strategy (an id is resolved in the
 * registry; `UnknownStrategy` when it is unknown or empty) under the host's guard (`runStrategy`), then the
 * interceptors, the mandatory recount and the final fit (`runInterceptors`), then the pending audit
 * (`startAudit`). Send `messages` only when `fits`; then finalize the audit with `finalizeAudit`. Given a
 * `format`, `messages` is typed as the caller's own message type (the caller's own objects where untouched).
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { formats, type Message } from "@ctxkit/core"
 * import { finalizeAudit, fitPrompt } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 *
 * const messages: ReadonlyArray<Message> = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "Read the build files. ".repeat(30) },
 *   { role: "user", content: "Now summarize them." }
 * ]
 * const prompt = Effect.runSync(fitPrompt(messages, {
 *   format: formats.canonical,
 *   countTokens: approximateCounter,
 *   contextLimit: 200,
 *   reservedForReply: 100,
 *   strategy: "summarize",
 *   generationId: "gen-1",
 *   provider: "openai",
 *   model: "gpt-4.1-mini"
 * }))
 * prompt.fits // true
 * // … send prompt.messages with max_tokens = 100, then:
 * const audit = finalizeAudit(prompt.audit, { status: "completed" })
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const fitPrompt: PromptCall = Effect.fn("fitPrompt")(function*<M>(
  messages: ReadonlyArray<M>,
  options: PromptOptions<M>
) {
  return yield* stages(messages, options, false)
})

/**
 * Previews a generation's prompt: the same stages as {@link fitPrompt} — strategy under the guard, interceptors,
 * recount, final fit, audit entries — returning what would be sent and the would-be audit, and creating nothing:
 * no message, branch or stored audit, and the input is never mutated. Interceptors are told it is a preview
 * (`InterceptorContext.preview`), so that one with side effects can skip them; one that returns the same
 * messages makes the preview equal to the real run. A `cache` in the options is used as in a real run (it only
 * memoizes counts: no result depends on it).
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { preview } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 *
 * const messages = [{ role: "user", content: "hello" }]
 * const shown = Effect.runSync(preview(messages, {
 *   countTokens: approximateCounter, contextLimit: 4_096, reservedForReply: 512,
 *   generationId: "preview", provider: "local", model: "qwen3"
 * }))
 * shown.messages // what would be sent
 * shown.audit.blocks // why each block is in or out
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const preview: PromptCall = Effect.fn("preview")(function*<M>(
  messages: ReadonlyArray<M>,
  options: PromptOptions<M>
) {
  return yield* stages(messages, options, true)
})
