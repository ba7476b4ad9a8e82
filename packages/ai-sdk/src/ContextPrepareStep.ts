/**
 * `contextPrepareStep`: a Vercel AI SDK (`ai` 7) `prepareStep` that fits the messages of every step into a token
 * budget, pair-safe, approvals included, and keeps the current request.
 *
 * @since 0.1.0
 */
import { approximateCounter, available, conversationCost, type Counter, makeCostCache, reserve } from "@ctxkit/budget"
import { formats, type MessageFormat, TokenBudgetExceeded } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings, setting } from "@ctxkit/core/Settings"
import { type ContextStrategy, type FitResult, strategies } from "@ctxkit/fit"
import type { BuiltinStrategyId } from "@ctxkit/fit/Strategies"
import type { Instructions, ModelMessage, SystemModelMessage } from "ai"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { type AiSdkDiagnostic, AiSdkOptionAdjusted } from "./Diagnostics.ts"
import { InvalidAiSdkOption } from "./Errors.ts"

/**
 * The options both forms of {@link ContextPrepareStepOptions} share: how to count, which strategy fits, and who
 * hears about each step's fit.
 *
 * @example
 * ```ts
 * import type { ContextPrepareStepSettings } from "@ctxkit/ai-sdk/ContextPrepareStep"
 * import { o200kCounter } from "@ctxkit/budget/o200k"
 *
 * const settings: ContextPrepareStepSettings = { counter: o200kCounter, strategy: "summarize" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextPrepareStepSettings {
  /**
   * What counts the tokens: a `TokenCounter` (`o200kCounter`, `llama3Counter`, …), a message-pricing counter or
   * a plain `(text) => number`. Default `approximateCounter` (about 4 characters a token). A value that is none
   * of these is replaced by the default, reported as `AiSdkOptionAdjusted`.
   */
  readonly counter?: Counter | undefined
  /**
   * The context strategy, by its id (`"truncate"`, `"summarize"`, `"manual"`, `"vector-recall"`) or as a
   * `ContextStrategy` object. Default `"truncate"`. An unknown id, or a strategy that throws or returns no
   * result, is replaced by `truncate`, reported as `AiSdkOptionAdjusted`; whatever the strategy answers is
   * recounted, and never sent over the budget.
   */
  readonly strategy?: BuiltinStrategyId | ContextStrategy | undefined
  /**
   * Called with each step's fit before the step is sent (and before a refusal is thrown): the audit of what was
   * kept, excluded and why. Not a function: ignored, reported as `AiSdkOptionAdjusted`.
   */
  readonly onFit?: ((fit: StepFit) => void) | undefined
}

/**
 * Options of {@link contextPrepareStep}: the token budget of the whole prompt (instructions and messages), given
 * either as `budget`, or as the model's context `window` with the reply's `maxTokens`, of which the budget is
 * `available(window, maxTokens)` and the reply reserve `reserve(window, maxTokens)` (`@ctxkit/budget`: at most a
 * quarter of the window), sent as each step's `maxOutputTokens`.
 *
 * Neither `budget` nor `window` has a safe default: a value that is not a finite number of tokens > 0 (a window
 * also at most 2,000,000), or both or neither given, makes every step refuse with `InvalidAiSdkOption`. A bad
 * `maxTokens` is replaced by the default share (a quarter of the window), reported as `AiSdkOptionAdjusted`.
 *
 * @example
 * ```ts
 * import type { ContextPrepareStepOptions } from "@ctxkit/ai-sdk"
 *
 * const byBudget: ContextPrepareStepOptions = { budget: 6_000 }
 * const byWindow: ContextPrepareStepOptions = { window: 8_192, maxTokens: 1_024, strategy: "summarize" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ContextPrepareStepOptions =
  | (ContextPrepareStepSettings & {
    /** Tokens the prompt may take: instructions and messages. The reply's room is yours to leave. */
    readonly budget: number
    readonly window?: undefined
    readonly maxTokens?: undefined
  })
  | (ContextPrepareStepSettings & {
    /** The model's context window, in tokens. */
    readonly window: number
    /** The most tokens the reply may take. Default: a quarter of the window. */
    readonly maxTokens?: number | undefined
    readonly budget?: undefined
  })

/**
 * The audit of one step: what the prompt costs against the budget, the fit of the messages (the instructions are
 * sent apart from `messages` in `ai` 7, and are counted first), and what was reported.
 *
 * @example
 * ```ts
 * import { contextPrepareStep } from "@ctxkit/ai-sdk"
 * import type { StepFit } from "@ctxkit/ai-sdk/ContextPrepareStep"
 *
 * const log: Array<string> = []
 * const onFit = (fit: StepFit) => log.push(`step ${fit.stepNumber}: ${fit.tokens}/${fit.budget}, dropped ${fit.fit.excluded.length}`)
 * const prepareStep = contextPrepareStep({ budget: 4_000, onFit })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StepFit {
  /** The step's number, as `prepareStep` was given it (0 for the first). */
  readonly stepNumber: number
  /** Whether the prompt fits the budget: when false the step is refused (nothing is sent). */
  readonly fits: boolean
  /** The budget of the whole prompt: the `budget` option, or `available(window, maxTokens)`. */
  readonly budget: number
  /** What the prompt sent costs: the instructions plus the messages kept, recounted. */
  readonly tokens: number
  /** What the instructions cost (the system prompt, counted as system messages). */
  readonly instructionTokens: number
  /** The `maxOutputTokens` sent with the step: the reply reserve with `window`; undefined with `budget`. */
  readonly maxOutputTokens: number | undefined
  /**
   * The fit of the step's messages into what the instructions leave (`budget − instructionTokens`): `kept` is
   * what is sent (the SDK's own objects, same references when untouched), `excluded` what was left out and why.
   */
  readonly fit: FitResult<ModelMessage>
  /** The option adjustments, then the fit's and the counting's diagnostics. */
  readonly diagnostics: ReadonlyArray<AiSdkDiagnostic>
}

/**
 * What the returned `prepareStep` reads of its argument: the step's messages, its instructions and its number
 * (every `ai` 7 `PrepareStepFunction` argument has them).
 *
 * @example
 * ```ts
 * import type { StepInput } from "@ctxkit/ai-sdk/ContextPrepareStep"
 *
 * const input: StepInput = { stepNumber: 0, instructions: "You are terse.", messages: [{ role: "user", content: "hi" }] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StepInput {
  readonly messages: ReadonlyArray<ModelMessage>
  readonly instructions?: Instructions | undefined
  readonly stepNumber?: number | undefined
}

/**
 * What the returned `prepareStep` answers: the messages to send (which carry forward to later steps), and the
 * reply reserve as `maxOutputTokens` when the options gave a `window`.
 *
 * @example
 * ```ts
 * import type { StepOverride } from "@ctxkit/ai-sdk/ContextPrepareStep"
 *
 * const override: StepOverride = { messages: [{ role: "user", content: "hi" }], maxOutputTokens: 1_024 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StepOverride {
  messages: Array<ModelMessage>
  maxOutputTokens?: number
}

/**
 * The function {@link contextPrepareStep} returns: an `ai` 7 `prepareStep`, and the last step's fit.
 *
 * @example
 * ```ts
 * import { contextPrepareStep } from "@ctxkit/ai-sdk"
 * import type { ContextPrepareStep } from "@ctxkit/ai-sdk/ContextPrepareStep"
 *
 * const prepareStep: ContextPrepareStep = contextPrepareStep({ window: 8_192 })
 * prepareStep.lastFit // undefined until a step was fitted
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextPrepareStep {
  (step: StepInput): Promise<StepOverride>
  /** The fit of the last step this function prepared (of any call it was given to), or undefined. */
  readonly lastFit: StepFit | undefined
}

const MAX_WINDOW = 2_000_000
const STRATEGY_IDS: ReadonlyArray<BuiltinStrategyId> = ["truncate", "summarize", "manual", "vector-recall"]
const STRATEGY_ACCEPTED = "\"truncate\", \"summarize\", \"manual\", \"vector-recall\" or a ContextStrategy"
// `ModelMessage`s are AI SDK messages; the lens's message type is their structural reading.
const format = formats.aiSdk as MessageFormat<unknown> as MessageFormat<ModelMessage>

const isTokens = (value: unknown): value is number => Predicate.isNumber(value) && Number.isFinite(value) && value >= 1

const isCounter = (value: unknown): value is Counter =>
  Predicate.isFunction(value) ||
  (Predicate.hasProperty(value, "id") && Predicate.isString(value.id) &&
    ((Predicate.hasProperty(value, "count") && Predicate.isFunction(value.count)) ||
      (Predicate.hasProperty(value, "countMessage") && Predicate.isFunction(value.countMessage))))

const isStrategy = (value: unknown): value is ContextStrategy =>
  Predicate.hasProperty(value, "id") && Predicate.isString(value.id) &&
  Predicate.hasProperty(value, "fit") && Predicate.isFunction(value.fit)

const isStrategyId = (value: unknown): value is BuiltinStrategyId =>
  Predicate.isString(value) && (STRATEGY_IDS as ReadonlyArray<string>).includes(value)

const isStrategyOption = (value: unknown): value is BuiltinStrategyId | ContextStrategy =>
  isStrategyId(value) || isStrategy(value)

const isOnFit = (value: unknown): value is ((fit: StepFit) => void) | undefined =>
  value === undefined || Predicate.isFunction(value)

const isMaxTokens = (value: unknown): value is number | undefined => value === undefined || isTokens(value)

/** The options that have a documented default, read with the project's one options reader. */
const SETTINGS = {
  counter: setting(Schema.declare(isCounter), {
    accepted: "a TokenCounter, a MessageCounter or a (text) => number function",
    default: approximateCounter
  }),
  strategy: setting(Schema.declare(isStrategyOption), { accepted: STRATEGY_ACCEPTED, default: "truncate" }),
  maxTokens: setting(Schema.declare(isMaxTokens), {
    accepted: "a finite number of tokens ≥ 1 (or leave it out for a quarter of the window)",
    default: undefined
  }),
  onFit: setting(Schema.declare(isOnFit), {
    accepted: "a function called with each step's fit (or leave it out)",
    default: undefined
  })
}

/** The value used instead of a refused one, as text: a counter by its id, a strategy by its id, none. */
const describeUsed = (used: unknown): string => {
  if (used === undefined) return "the default"
  if (Predicate.hasProperty(used, "id") && Predicate.isString(used.id)) return used.id
  return Predicate.isString(used) ? used : describeValue(used)
}

interface Limits {
  readonly budget: number
  readonly maxOutputTokens: number | undefined
}

/** The budget and reply reserve, or the refusal when neither `budget` nor `window` can be used. */
const readLimits = (
  options: Readonly<Record<string, unknown>>,
  maxTokensGiven: number | undefined
): Limits | InvalidAiSdkOption => {
  const budget = options["budget"]
  const window = options["window"]
  const both = "a budget ({ budget }) or a context window ({ window, maxTokens? }), not both"
  if (budget !== undefined && window !== undefined) {
    return new InvalidAiSdkOption({ option: "budget | window", given: "both", allowed: both })
  }
  if (budget !== undefined) {
    if (!isTokens(budget)) {
      return new InvalidAiSdkOption({
        option: "budget",
        given: describeValue(budget),
        allowed: "a finite number of tokens > 0 (the window minus the reply reserve)"
      })
    }
    return { budget: Math.floor(budget), maxOutputTokens: undefined }
  }
  if (window === undefined) {
    return new InvalidAiSdkOption({ option: "budget | window", given: "neither", allowed: both })
  }
  if (!isTokens(window) || window > MAX_WINDOW) {
    return new InvalidAiSdkOption({
      option: "window",
      given: describeValue(window),
      allowed: `the model's context window, a finite number of tokens from 1 to ${MAX_WINDOW}`
    })
  }
  const maxTokens = maxTokensGiven
  return { budget: available(window, maxTokens), maxOutputTokens: reserve(window, maxTokens) }
}

/** The instructions as the system messages the SDK sends before the messages. */
const instructionMessages = (
  instructions: Instructions | undefined,
  last: { text: string | undefined; message: SystemModelMessage | undefined }
): ReadonlyArray<SystemModelMessage> => {
  if (instructions === undefined) return []
  if (Predicate.isString(instructions)) {
    // One object per text, so that the identity cache counts the same instructions once across steps.
    if (last.text !== instructions || last.message === undefined) {
      last.text = instructions
      last.message = { role: "system", content: instructions }
    }
    return [last.message]
  }
  return Array.isArray(instructions) ? instructions : [instructions as SystemModelMessage]
}

/**
 * A Vercel AI SDK (`ai` 7) `prepareStep` that fits every step's `messages` into a token budget before it is
 * sent: pass it as `generateText({ …, prepareStep })` (or `streamText`, or an `Agent`'s `prepareStep`).
 *
 * - The budget is the whole prompt's: the instructions (`instructions`, or the deprecated `system`, which `ai` 7
 *   keeps apart from `messages`) are counted first, as system messages, and the messages fitted into what they
 *   leave. With `{ window, maxTokens? }` the budget is `available(window, maxTokens)` and every step is sent
 *   with `maxOutputTokens` = `reserve(window, maxTokens)`, so prompt and reply fit the window together.
 * - Fitting runs the strategy (default `truncate`: `shiftContext` from `@ctxkit/fit`) through `formats.aiSdk`:
 *   the current request (the last user message) and system messages in `messages` are kept; the oldest other
 *   groups go first, whole — a `tool-call` never without its `tool-result`, a `tool-approval-request` never
 *   without its `tool-approval-response` and the call it asks about, reasoning and text parts with their
 *   message. The messages sent are the SDK's own objects, in order; the input array is never changed.
 * - An override of `messages` carries forward in `ai` 7: the next step starts from what this one sent, plus the
 *   step's response, and is fitted again. Counts are cached by message identity for the life of the function,
 *   so each message is counted once however many steps see it.
 * - The audit of each step ({@link StepFit}: kept, excluded and why, tokens against the budget, diagnostics)
 *   goes to `onFit` and stays readable as `prepareStep.lastFit`.
 *
 * Refusals, as rejections of the returned promise, so that `generateText` rejects with them before anything is
 * sent (in `streamText` they reach `onError` and the stream's `error` part): `TokenBudgetExceeded` (from
 * `@ctxkit/core`, code `TOKEN_BUDGET_EXCEEDED`) when the instructions and the protected messages alone cost
 * more than the budget — an over-budget prompt is never sent, and an empty one never sent in its place — and
 * `InvalidAiSdkOption` on every step when `budget` or `window` cannot be used (or, called directly, when the
 * step has no `messages` array). Options with a default
 * (`counter`, `strategy`, `maxTokens`, `onFit`) fall back to it and say so in the diagnostics.
 *
 * Not counted: the tool definitions the SDK sends with each step (leave room for them in `budget`;
 * `toolCatalogCost` from `@ctxkit/budget` prices a catalog).
 *
 * @example
 * ```ts
 * import { contextPrepareStep } from "@ctxkit/ai-sdk"
 * import type { ModelMessage } from "ai"
 *
 * const prepareStep = contextPrepareStep({ window: 8_192, maxTokens: 1_024 })
 * const messages: Array<ModelMessage> = [
 *   { role: "user", content: "Summarize the log. ".repeat(4_000) },
 *   { role: "assistant", content: "Done." },
 *   { role: "user", content: "Now list the files." }
 * ]
 * const step = await prepareStep({ stepNumber: 0, instructions: "You are a coding agent.", messages })
 * step.messages.map((m) => m.role) // ["assistant", "user"]: the long old question went, the request stayed
 * step.maxOutputTokens // 1024
 * prepareStep.lastFit?.fit.excluded.length // 1
 * // In an app: generateText({ model, instructions, messages, tools, stopWhen: isStepCount(8), prepareStep })
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const contextPrepareStep = (options: ContextPrepareStepOptions): ContextPrepareStep => {
  const given: Readonly<Record<string, unknown>> = Predicate.isObject(options) ? options : {}
  const adjusted: Array<AiSdkOptionAdjusted> = []

  const read = readSettings(SETTINGS, given)
  for (const adjustment of read.adjusted) {
    adjusted.push(
      new AiSdkOptionAdjusted({
        option: adjustment.option as AiSdkOptionAdjusted["option"],
        given: describeValue(adjustment.given),
        accepted: adjustment.accepted,
        used: describeUsed(adjustment.used)
      })
    )
  }
  const counter: Counter = read.settings.counter
  const chosen = read.settings.strategy
  const strategy: ContextStrategy = Predicate.isString(chosen) ? strategies[chosen] : chosen
  const builtin = (Object.values(strategies) as ReadonlyArray<ContextStrategy>).includes(strategy)
  const onFit = read.settings.onFit
  // A bad maxTokens is reported only with a window, where it is used.
  const limits = readLimits(given, read.settings.maxTokens)
  if (given["window"] === undefined) {
    const at = adjusted.findIndex((d) => d.option === "maxTokens")
    if (at >= 0) adjusted.splice(at, 1)
  }

  const cache = makeCostCache()
  const lastInstructions: { text: string | undefined; message: SystemModelMessage | undefined } = {
    text: undefined,
    message: undefined
  }
  let lastFit: StepFit | undefined

  /** The strategy's fit, or `truncate`'s when the strategy throws or answers something that is not a result. */
  const runStrategy = (
    messages: ReadonlyArray<ModelMessage>,
    room: number,
    notes: Array<AiSdkDiagnostic>
  ): FitResult<ModelMessage> => {
    const fitOptions = { format, cache }
    if (strategy === strategies.truncate) return strategies.truncate.fit(messages, counter, room, fitOptions)
    let failure: string
    try {
      const result: unknown = strategy.fit(messages, counter, room, fitOptions)
      if (Predicate.hasProperty(result, "kept") && Array.isArray(result.kept)) return result as FitResult<ModelMessage>
      failure = `strategy ${describeValue(strategy.id)} answered ${describeValue(result)}`
    } catch (error) {
      failure = `strategy ${describeValue(strategy.id)} threw ${
        describeValue(Predicate.isError(error) ? error.message : error)
      }`
    }
    notes.push(
      new AiSdkOptionAdjusted({ option: "strategy", given: failure, accepted: STRATEGY_ACCEPTED, used: "truncate" })
    )
    return strategies.truncate.fit(messages, counter, room, fitOptions)
  }

  const prepare = async (step: StepInput): Promise<StepOverride> => {
    if (limits instanceof InvalidAiSdkOption) throw limits
    // The SDK always passes an array; a direct caller may not, and fitting nothing must not pass for a fit.
    if (!Predicate.hasProperty(step, "messages") || !Array.isArray(step.messages)) {
      throw new InvalidAiSdkOption({
        option: "messages",
        given: describeValue(Predicate.hasProperty(step, "messages") ? step.messages : step),
        allowed: "the step's ModelMessage array (the messages prepareStep is given)"
      })
    }
    const stepNumber = Predicate.isNumber(step.stepNumber) ? step.stepNumber : 0
    const system = instructionMessages(step.instructions, lastInstructions)
    const instructions = conversationCost(system, { counter, format, cache })
    const notes: Array<AiSdkDiagnostic> = [...adjusted, ...instructions.diagnostics]
    const room = limits.budget - instructions.total
    // With no room left the messages are fitted to 1 token: what comes back is their protected part, to report.
    const fit = runStrategy(step.messages, Math.max(1, room), notes)
    // A built-in strategy's `tokens` is already its independent recount of `kept`; anything else is recounted
    // here, with the same counter and cache, so that no strategy can send more than it says.
    const sent = builtin ? undefined : conversationCost(fit.kept, { counter, format, cache })
    const tokens = instructions.total + (sent === undefined ? fit.tokens : sent.total)
    const fits = room >= 1 && fit.fits && tokens <= limits.budget
    const audit: StepFit = {
      stepNumber,
      fits,
      budget: limits.budget,
      tokens,
      instructionTokens: instructions.total,
      maxOutputTokens: limits.maxOutputTokens,
      fit,
      diagnostics: [...notes, ...fit.diagnostics, ...(sent?.diagnostics ?? [])]
    }
    lastFit = audit
    onFit?.(audit)
    if (!fits) {
      const reservedForReply = limits.maxOutputTokens ?? 0
      throw new TokenBudgetExceeded({
        contextLimit: limits.budget + reservedForReply,
        reservedForReply,
        promptTokens: tokens
      })
    }
    const messages = Array.from(fit.kept)
    return limits.maxOutputTokens === undefined ? { messages } : { messages, maxOutputTokens: limits.maxOutputTokens }
  }

  Object.defineProperty(prepare, "lastFit", { get: () => lastFit, enumerable: true })
  return prepare as ContextPrepareStep
}
