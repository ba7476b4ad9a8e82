/**
 * `ContextLanguageModel`: a `LanguageModel` layer that runs the ctxkit context engine around every call of any
 * other `LanguageModel` — `ContextEngine.prepare` before (the messages new since the last call appended, the
 * fitted prompt sent, its reply reserve as `max_tokens`), `observe` after (usage, finish reason, errors).
 *
 * @since 0.1.0
 */
import { ContextEngine } from "@ctxkit/engine"
import { ContextOverflow } from "@ctxkit/overflow"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { InvalidEffectAiOption } from "./Errors.ts"
import { describeValue } from "./internal/describe.ts"
import { ReplyBudget } from "./internal/replyBudget.ts"
import { toStreamParts } from "./internal/streamParts.ts"

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 *
 * const options: ContextLanguageModel.ContextLanguageModelOptions = { session: "repo-review" }
 * const Model = ContextLanguageModel.layer(options)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextLanguageModelOptions {
  /**
   * The engine session the calls belong to, unless {@link withSession} names another around a call. A non-empty
   * string; default `"default"`.
   */
  readonly session?: string | undefined
}

const MODULE = "ContextLanguageModel"

/**
 * `max_tokens` for the request being made: set by this layer around each inner call to the reserve the engine
 * kept free. `OpenAiCompatible` sends it; a `LanguageModel` of your own reads it with `yield* ReplyBudget`
 * (`undefined` outside this layer).
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 * import * as Effect from "effect/Effect"
 *
 * const maxTokens = Effect.gen(function*() {
 *   return (yield* ContextLanguageModel.ReplyBudget) ?? 1_024
 * })
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export { ReplyBudget }

/**
 * The session of the calls inside an effect, when {@link withSession} set one.
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 * import * as Effect from "effect/Effect"
 *
 * const current = Effect.gen(function*() {
 *   return (yield* ContextLanguageModel.Session) ?? "default"
 * })
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const Session = Context.Reference<string | undefined>("@ctxkit/effect-ai/ContextLanguageModel/Session", {
  defaultValue: () => undefined
})

/**
 * Runs `effect`'s model calls in the engine session `session` (one conversation each: sessions never share
 * messages).
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 *
 * const answer = LanguageModel.generateText({ prompt: "Summarize the notes." }).pipe(
 *   ContextLanguageModel.withSession("notes-1")
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const withSession = (session: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, Session, session)

const OverflowJson = Schema.toCodecJson(ContextOverflow)
const encodeOverflow = Schema.encodeSync(OverflowJson)
const decodeOverflow = Schema.decodeUnknownOption(OverflowJson)

/**
 * The `context_overflow` outcome an `AiError` of this layer carries: the server dropped part of the prompt (or
 * refused it as over its window), the response was discarded, and `message` says how to fix it. `undefined` for
 * any other error.
 *
 * The failure is an `AiError` (the only error a `LanguageModel` may fail with) whose reason is
 * `InvalidRequestError`, its description the fix-it message and `metadata.ctxkit` the outcome as JSON.
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 *
 * const answerOrFix = LanguageModel.generateText({ prompt: "Which file is the longest?" }).pipe(
 *   Effect.map((response) => response.text),
 *   Effect.catchTag("AiError", (error) => {
 *     const overflow = ContextLanguageModel.overflowOf(error)
 *     return overflow === undefined ? Effect.fail(error) : Effect.succeed(`context_overflow: ${overflow.message}`)
 *   })
 * )
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const overflowOf = (error: unknown): ContextOverflow | undefined => {
  if (!AiError.isAiError(error) || error.reason._tag !== "InvalidRequestError") return undefined
  return Option.getOrUndefined(decodeOverflow(error.reason.metadata["ctxkit"]))
}

const overflowError = (method: string, outcome: ContextOverflow): AiError.AiError =>
  AiError.make({
    module: MODULE,
    method,
    reason: new AiError.InvalidRequestError({
      description: outcome.message,
      metadata: { ctxkit: encodeOverflow(outcome) as Schema.Json }
    })
  })

const engineError = (method: string, error: { readonly _tag: string; readonly message: string }): AiError.AiError =>
  AiError.make({
    module: MODULE,
    method,
    reason: error._tag === "TokenBudgetExceeded" || error._tag === "ContextBudgetExceeded" ||
        error._tag === "InvalidAppend"
      ? new AiError.InvalidRequestError({ description: error.message, metadata: { ctxkit: { error: error._tag } } })
      : new AiError.UnknownError({ description: `The context engine failed (${error._tag}): ${error.message}` })
  })

/**
 * The error as `observe` reads provider errors: `OpenAiCompatible` keeps an over-window body's fields in
 * `metadata.openai`, so they are given back in the body shape the engine classifies (llama.cpp's
 * `exceed_context_size_error` with `n_ctx`, OpenAI's `context_length_exceeded`).
 */
const observable = (error: AiError.AiError): unknown => {
  const reason = error.reason
  const metadata: unknown = "metadata" in reason ? reason.metadata : undefined
  const openai = Predicate.isObject(metadata) ? Reflect.get(metadata, "openai") : undefined
  if (!Predicate.isObject(openai)) return error
  const read = (key: string): unknown => Reflect.get(openai, key)
  const status = read("status")
  return {
    status: Predicate.isNumber(status) ? status : 400,
    body: {
      error: {
        message: "description" in reason && Predicate.isString(reason.description) ? reason.description : "",
        ...(read("errorType") === undefined ? {} : { type: read("errorType") }),
        ...(read("errorCode") === undefined ? {} : { code: read("errorCode") }),
        ...(read("nCtx") === undefined ? {} : { n_ctx: read("nCtx") }),
        ...(read("nPromptTokens") === undefined ? {} : { n_prompt_tokens: read("nPromptTokens") })
      }
    }
  }
}

/** A toolkit that only declares the tools: the inner model is called with tool-call resolution disabled. */
const declaring = (tools: ReadonlyArray<Tool.Any>): Toolkit.WithHandler<Record<string, Tool.Any>> => ({
  tools: Object.fromEntries(tools.map((tool) => [tool.name, tool])),
  // Never called (resolution is disabled); the outer LanguageModel runs the caller's handlers.
  handle: (() => Effect.die("ContextLanguageModel never runs tool handlers")) as unknown as Toolkit.WithHandler<
    Record<string, Tool.Any>
  >["handle"]
})

type Answer = Pick<LanguageModel.GenerateTextResponse<Record<string, never>>, "content" | "usage" | "finishReason">

/** One inner call of the fitted prompt: tools declared, never resolved; `generateObject` for a JSON format. */
const callInner = (
  inner: LanguageModel.LanguageModel,
  prompt: Prompt.Prompt,
  providerOptions: LanguageModel.ProviderOptions,
  toolkit: Toolkit.WithHandler<Record<string, Tool.Any>> | undefined
): Effect.Effect<Answer, AiError.AiError> => {
  const tools = toolkit === undefined
    ? {}
    : { toolkit, toolChoice: providerOptions.toolChoice, disableToolCallResolution: true as const }
  const format = providerOptions.responseFormat
  // Built from what the outer model already checked; the overloads cannot see that, hence the casts.
  const options = { prompt, ...tools } as unknown as LanguageModel.GenerateTextOptions<Record<string, never>> & {
    readonly toolkit?: undefined
  }
  if (format.type === "json") {
    const object = { ...options, objectName: format.objectName, schema: format.schema } as unknown as Parameters<
      LanguageModel.LanguageModel["generateObject"]
    >[0]
    return inner.generateObject(object) as unknown as Effect.Effect<Answer, AiError.AiError>
  }
  return inner.generateText(options) as unknown as Effect.Effect<Answer, AiError.AiError>
}

/** The inner model's decoded parts, encoded again for the outer model (which decodes them with your toolkit). */
const encodeParts = (
  content: ReadonlyArray<unknown>,
  toolkit: Toolkit.WithHandler<Record<string, Tool.Any>> | undefined
): Effect.Effect<Array<Response.PartEncoded>, Schema.SchemaError> => {
  // Tool parameters are encoded by the tools' own schemas; the codec's service type cannot say they need none.
  const schema = Schema.Array(Response.Part(toolkit ?? declaring([]))) as unknown as Schema.Codec<
    ReadonlyArray<unknown>,
    ReadonlyArray<Response.PartEncoded>
  >
  return Effect.map(Schema.encodeUnknownEffect(schema)(content), (parts) => [...parts])
}

const catalogOf = (tools: ReadonlyArray<Tool.Any>): ReadonlyArray<unknown> =>
  tools.map((tool) => {
    const schema = Result.try(() => Tool.getJsonSchema(tool))
    return {
      name: tool.name,
      description: Tool.getDescription(tool) ?? "",
      ...(Result.isSuccess(schema) ? { parameters: schema.success } : {})
    }
  })

/** A message's JSON, by identity: the prefix check compares each message at most once per object. */
const fingerprints = new WeakMap<object, string>()
const fingerprint = (message: Prompt.Message): string => {
  const hit = fingerprints.get(message)
  if (hit !== undefined) return hit
  const text = Result.getOrElse(Result.try(() => JSON.stringify(message) ?? ""), () => "")
  fingerprints.set(message, text)
  return text
}

/** Where `next` stops continuing `sent` (the first message that differs), or `undefined` when it continues it. */
const divergence = (sent: ReadonlyArray<Prompt.Message>, next: ReadonlyArray<Prompt.Message>): number | undefined => {
  if (next.length < sent.length) return next.length
  for (let i = 0; i < sent.length; i++) {
    const a = sent[i]
    const b = next[i]
    if (a !== b && (a === undefined || b === undefined || fingerprint(a) !== fingerprint(b))) return i
  }
  return undefined
}

const checkOptions = (options: ContextLanguageModelOptions): Effect.Effect<string, InvalidEffectAiOption> => {
  if (!Predicate.isObject(options)) {
    return Effect.fail(
      new InvalidEffectAiOption({ option: "options", given: describeValue(options), allowed: "an object" })
    )
  }
  const session = options.session ?? "default"
  return Predicate.isString(session) && session.length > 0 ? Effect.succeed(session) : Effect.fail(
    new InvalidEffectAiOption({
      option: "session",
      given: describeValue(session),
      allowed: "a non-empty session id, or leave it out"
    })
  )
}

/**
 * Builds the wrapping `LanguageModel` around `inner` (see {@link layer}).
 *
 * @example
 * ```ts
 * import { ContextLanguageModel } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 *
 * const wrapped = Effect.gen(function*() {
 *   const inner = yield* LanguageModel.LanguageModel
 *   return yield* ContextLanguageModel.make(inner, { session: "s1" })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  inner: LanguageModel.LanguageModel,
  options: ContextLanguageModelOptions = {}
): Effect.Effect<LanguageModel.LanguageModel, InvalidEffectAiOption, ContextEngine> =>
  Effect.gen(function*() {
    const defaultSession = yield* checkOptions(options)
    const engine = yield* ContextEngine
    /** The prompt each session sent last (the caller's, before fitting): what the next call must continue. */
    const sent = new Map<string, ReadonlyArray<Prompt.Message>>()
    const locks = new Map<string, Semaphore.Semaphore>()
    const lockOf = (session: string): Semaphore.Semaphore => {
      let lock = locks.get(session)
      if (lock === undefined) {
        lock = Semaphore.makeUnsafe(1)
        locks.set(session, lock)
      }
      return lock
    }

    const generate = (providerOptions: LanguageModel.ProviderOptions, method: string) =>
      Effect.gen(function*() {
        const session = (yield* Session) ?? defaultSession
        return yield* Semaphore.withPermits(lockOf(session), 1)(Effect.gen(function*() {
          const prompt = providerOptions.prompt.content
          const before = sent.get(session) ?? []
          const differs = divergence(before, prompt)
          if (differs !== undefined) {
            return yield* AiError.make({
              module: MODULE,
              method,
              reason: new AiError.InvalidUserInputError({
                description:
                  `The prompt does not continue session "${session}": message ${differs} differs from what was sent before (${before.length} messages). Send the whole conversation so far plus what is new, or start another session with ContextLanguageModel.withSession.`
              })
            })
          }
          const prepared = yield* engine.prepare<Prompt.Message>({
            session,
            append: prompt.slice(before.length),
            ...(providerOptions.tools.length > 0 ? { tools: catalogOf(providerOptions.tools) } : {})
          }).pipe(Effect.mapError((error) => engineError(method, error)))
          // The engine stored the append: the next call continues from here, whatever this one answers.
          sent.set(session, prompt)
          const fitted = Prompt.fromMessages(prepared.messages)
          const toolkit = providerOptions.tools.length > 0 ? declaring(providerOptions.tools) : undefined
          const answered = yield* Effect.result(
            Effect.provideService(callInner(inner, fitted, providerOptions, toolkit), ReplyBudget, prepared.maxTokens)
          )
          const failEngine = Effect.mapError((error: { readonly _tag: string; readonly message: string }) =>
            engineError(method, error)
          )
          if (Result.isFailure(answered)) {
            const seen = yield* failEngine(engine.observe({ session, error: observable(answered.failure) }))
            return yield* Effect.fail(
              seen.outcome === undefined ? answered.failure : overflowError(method, seen.outcome)
            )
          }
          const response = answered.success
          const metadata = response.content.find((part) => part.type === "response-metadata")
          const seen = yield* failEngine(engine.observe({
            session,
            usage: response.usage,
            finishReason: response.finishReason,
            ...(metadata?.modelId === undefined ? {} : { model: metadata.modelId }),
            ...(metadata?.id === undefined ? {} : { responseId: metadata.id })
          }))
          // The server answered from part of the prompt: the answer is discarded, never returned.
          if (seen.outcome !== undefined) return yield* Effect.fail(overflowError(method, seen.outcome))
          return yield* encodeParts(response.content, toolkit).pipe(
            Effect.mapError((error) =>
              AiError.make({ module: MODULE, method, reason: AiError.InvalidOutputError.fromSchemaError(error) })
            )
          )
        }))
      })

    return yield* LanguageModel.make({
      generateText: (providerOptions) => generate(providerOptions, "generateText"),
      // The engine must see the usage before any part is used, so a stream is served by one whole call.
      streamText: (providerOptions) =>
        Stream.fromIterableEffect(
          Effect.map(generate(providerOptions, "streamText"), (parts) => parts.flatMap(toStreamParts))
        ),
      ...(inner.supportsSystemMessagesInHistory === undefined
        ? {}
        : { supportsSystemMessagesInHistory: inner.supportsSystemMessagesInHistory })
    })
  })

/**
 * A `LanguageModel` layer that runs the context engine around every call of the `LanguageModel` it is given
 * (`Layer.provide` the inner one and a `ContextEngine` built with `format: formats.effectAi`).
 *
 * Per call, in the session of {@link withSession} (else `options.session`, default `"default"`):
 * - the prompt must continue what the session sent last (a `Chat`, or your own growing history); the messages
 *   after that are appended with `ContextEngine.prepare`, and the fitted prompt is sent in place of yours, with
 *   the engine's reply reserve as {@link ReplyBudget} (`max_tokens` for `OpenAiCompatible`);
 * - the inner model is called with tool-call resolution disabled, then `ContextEngine.observe` gets the usage,
 *   the finish reason and the model, or the error the call failed with;
 * - a response the server answered from a truncated prompt, or an over-window error (llama.cpp's
 *   `exceed_context_size_error`, OpenAI's `context_length_exceeded`, …), fails with an `AiError` carrying the
 *   `context_overflow` outcome and its fix ({@link overflowOf}) — never as an answer, and no tool handler runs for
 *   it. A window an error reveals is learned: the next call is fitted to it;
 * - otherwise the response is returned as the inner model gave it, and your toolkit's handlers run.
 *
 * `streamText` is served by one whole call (its parts emitted at once): no part may be used before the usage
 * says the prompt was intact. Budget errors of `prepare` fail as `AiError` (`InvalidRequestError`, the engine's
 * message and `metadata.ctxkit.error`); nothing is sent then.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { ContextEngine, SessionStore, Summarizer } from "@ctxkit/engine"
 * import { ContextLanguageModel, OpenAiCompatible } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as Layer from "effect/Layer"
 *
 * const Model = ContextLanguageModel.layer({ session: "chat-1" }).pipe(
 *   Layer.provide(OpenAiCompatible.layer({ baseUrl: "http://127.0.0.1:11434", model: "llama3.2:3b" })),
 *   Layer.provide(
 *     ContextEngine.layer({ format: formats.effectAi, window: 4_096, maxTokens: 512, preset: "tutorial" }).pipe(
 *       Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive])
 *     )
 *   ),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * const answer = LanguageModel.generateText({ prompt: "Say hi." }).pipe(
 *   Effect.map((response) => response.text),
 *   Effect.provide(Model)
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const layer = (
  options: ContextLanguageModelOptions = {}
): Layer.Layer<LanguageModel.LanguageModel, InvalidEffectAiOption, LanguageModel.LanguageModel | ContextEngine> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      return yield* make(yield* LanguageModel.LanguageModel, options)
    })
  )
