/**
 * `OpenAiCompatible`: a small `effect/ai` `LanguageModel` for any OpenAI-compatible chat server (llama.cpp's
 * `llama-server`, Ollama, vLLM, LM Studio, LiteLLM, OpenRouter, OpenAI itself) over `POST …/chat/completions`.
 *
 * @since 0.1.0
 */
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InvalidEffectAiOption } from "./Errors.ts"
import {
  ChatCompletion,
  errorFields,
  fromChatCompletion,
  toChatMessages,
  toChatToolChoice,
  toChatTools
} from "./internal/chat.ts"
import { describeValue } from "./internal/describe.ts"
import { ReplyBudget } from "./internal/replyBudget.ts"
import { toStreamParts } from "./internal/streamParts.ts"

/**
 * Options of {@link layer} and {@link make}.
 *
 * @example
 * ```ts
 * import type { OpenAiCompatibleOptions } from "@ctxkit/effect-ai"
 *
 * const options: OpenAiCompatibleOptions = {
 *   baseUrl: "http://127.0.0.1:8080",
 *   model: "qwen3-8b",
 *   maxTokens: 1_024,
 *   timeout: "2 minutes"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenAiCompatibleOptions {
  /**
   * The server's address. `http://host:port`, `http://host:port/v1` and a full `…/chat/completions` URL all
   * work: a URL ending in `/chat/completions` is used as is; one whose path ends in a version segment (`/v1`,
   * `/api/v1`, `/openai/v1`, `/v1beta`) gets `/chat/completions`; any other gets `/v1/chat/completions`.
   * Trailing slashes are ignored.
   */
  readonly baseUrl: string
  /** The model id sent as `model`. */
  readonly model: string
  /** Sent as `Authorization: Bearer <apiKey>` when given. A `Redacted` value stays redacted in logs. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /**
   * Sent as `max_tokens`: the reply reserve. Leave it out to let the server decide. An integer > 0. Under
   * `ContextLanguageModel`, the engine's reserve for each request is sent instead.
   */
  readonly maxTokens?: number | undefined
  /** Sent as `temperature` when given: a number from 0 to 2. */
  readonly temperature?: number | undefined
  /**
   * How long one request may take, answer body included, before it fails with a `NetworkError`. A
   * `Duration.Input` (`"90 seconds"`, a number of milliseconds). Default 5 minutes: a local model on a CPU is
   * slow, a hung server must still end.
   */
  readonly timeout?: Duration.Input | undefined
  /** Extra request headers (`OpenRouter`'s `HTTP-Referer`, a proxy's key, …). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const MODULE = "OpenAiCompatible"
const DEFAULT_TIMEOUT = Duration.minutes(5)

/**
 * The chat-completions URL for a `baseUrl` (see {@link OpenAiCompatibleOptions.baseUrl}).
 *
 * @example
 * ```ts
 * import { OpenAiCompatible } from "@ctxkit/effect-ai"
 *
 * OpenAiCompatible.chatCompletionsUrl("http://127.0.0.1:8080") // "http://127.0.0.1:8080/v1/chat/completions"
 * OpenAiCompatible.chatCompletionsUrl("https://openrouter.ai/api/v1/") // "https://openrouter.ai/api/v1/chat/completions"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const chatCompletionsUrl = (baseUrl: string): string => {
  const base = baseUrl.replace(/\/+$/, "")
  if (base.endsWith("/chat/completions")) return base
  const path = base.replace(/^[a-z]+:\/\/[^/]*/i, "").replace(/[?#].*$/, "")
  return /\/v\d+[a-z0-9]*$/i.test(path) ? `${base}/chat/completions` : `${base}/v1/chat/completions`
}

interface Settings {
  readonly url: string
  readonly model: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly maxTokens: number | undefined
  readonly temperature: number | undefined
  readonly timeout: Duration.Duration
  readonly headers: Readonly<Record<string, string>>
}

const invalid = (option: string, given: unknown, allowed: string) =>
  Effect.fail(new InvalidEffectAiOption({ option, given: describeValue(given), allowed }))

const isHttpUrl = (value: unknown): value is string =>
  Predicate.isString(value) && /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/i.test(value)

const checkOptions = (options: OpenAiCompatibleOptions): Effect.Effect<Settings, InvalidEffectAiOption> =>
  Effect.suspend(() => {
    if (!Predicate.isObject(options)) return invalid("options", options, "an object with baseUrl and model")
    const { apiKey, baseUrl, headers, maxTokens, model, temperature, timeout } = options
    if (!isHttpUrl(baseUrl)) return invalid("baseUrl", baseUrl, "an http(s) URL such as http://127.0.0.1:8080")
    if (!Predicate.isString(model) || model.trim().length === 0) return invalid("model", model, "a model id")
    if (apiKey !== undefined && !Predicate.isString(apiKey) && !Redacted.isRedacted(apiKey)) {
      return invalid("apiKey", "(not shown)", "a string or a Redacted string")
    }
    if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0)) {
      return invalid("maxTokens", maxTokens, "an integer > 0, or leave it out")
    }
    if (temperature !== undefined && !(Predicate.isNumber(temperature) && temperature >= 0 && temperature <= 2)) {
      return invalid("temperature", temperature, "a number from 0 to 2, or leave it out")
    }
    const duration = timeout === undefined ? Option.some(DEFAULT_TIMEOUT) : Duration.fromInput(timeout)
    if (Option.isNone(duration) || !(Duration.toMillis(duration.value) > 0)) {
      return invalid("timeout", timeout, "a Duration.Input > 0 such as \"90 seconds\"")
    }
    if (headers !== undefined && !(Predicate.isObject(headers) && Object.values(headers).every(Predicate.isString))) {
      return invalid("headers", headers, "a record of header names to string values")
    }
    return Effect.succeed({
      url: chatCompletionsUrl(baseUrl),
      model,
      apiKey: apiKey === undefined ? undefined : Predicate.isString(apiKey) ? Redacted.make(apiKey) : apiKey,
      maxTokens,
      temperature,
      timeout: duration.value,
      headers: headers ?? {}
    })
  })

const aiError = (reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module: MODULE, method: "generateText", reason })

/** The `AiError` for a non-2xx answer: the status and the body's code, type and window kept, its text not. */
const statusError = (status: number, text: string, retryAfter: string | undefined): AiError.AiError => {
  const parsed = Result.try(() => JSON.parse(text) as unknown)
  const fields = errorFields(Result.isSuccess(parsed) ? parsed.success : undefined)
  const openai: Record<string, string | number> = { status }
  if (fields.code !== undefined) openai["errorCode"] = fields.code
  if (fields.type !== undefined) openai["errorType"] = fields.type
  if (fields.param !== undefined) openai["errorParam"] = fields.param
  if (fields.nPromptTokens !== undefined) openai["nPromptTokens"] = fields.nPromptTokens
  if (fields.nCtx !== undefined) openai["nCtx"] = fields.nCtx
  const description = fields.message === undefined
    ? `HTTP ${status} with no error message the provider could read`
    : `HTTP ${status}: ${fields.message}`
  const seconds = Number(retryAfter)
  if (status === 429 && Number.isFinite(seconds) && seconds >= 0) {
    return aiError(
      new AiError.RateLimitError({
        retryAfter: Duration.seconds(seconds),
        metadata: { openai },
        http: { response: { status, headers: {} } }
      })
    )
  }
  return aiError(
    AiError.reasonFromHttpStatus({
      status,
      description,
      metadata: { openai },
      http: { response: { status, headers: {} } }
    })
  )
}

const decodeCompletion = Schema.decodeUnknownResult(ChatCompletion)

/** A 2xx body as response parts, or the `InvalidResponseError`/`InvalidOutputError` saying what was wrong. */
const parseAnswer = (status: number, text: string): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> => {
  const json = Result.try(() => JSON.parse(text) as unknown)
  const looksHtml = /^\s*</.test(text)
  if (Result.isFailure(json)) {
    return Effect.fail(aiError(
      new AiError.InvalidResponseError({
        description: looksHtml
          ? `HTTP ${status} answered with an HTML page, not a chat completion: is baseUrl the API's address?`
          : `HTTP ${status} answered with a body that is not JSON`
      })
    ))
  }
  const decoded = decodeCompletion(json.success)
  if (Result.isFailure(decoded)) {
    return Effect.fail(aiError(
      new AiError.InvalidResponseError({
        description: `HTTP ${status} answered with JSON that is not a chat completion (no choices[0].message)`
      })
    ))
  }
  const parts = fromChatCompletion(decoded.success)
  if (Result.isFailure(parts)) {
    return Effect.fail(aiError(
      new AiError.InvalidOutputError({
        description: `The model called ${parts.failure} with arguments that are not JSON`
      })
    ))
  }
  return Effect.succeed(parts.success)
}

const requestBody = (
  settings: Settings,
  options: LanguageModel.ProviderOptions,
  replyBudget: number | undefined
): Result.Result<Record<string, unknown>, string> => {
  const messages = toChatMessages(options.prompt)
  if (Result.isFailure(messages)) return Result.fail(messages.failure)
  const { only, toolChoice } = toChatToolChoice(options.toolChoice)
  const offered = only === undefined ? options.tools : options.tools.filter((t) => only.includes(t.name))
  const tools = toChatTools(offered)
  if (Result.isFailure(tools)) return Result.fail(tools.failure)
  const format = options.responseFormat
  // The context engine's reserve for this request wins: the prompt was fitted to leave exactly that free.
  const maxTokens = replyBudget ?? settings.maxTokens
  return Result.succeed({
    model: settings.model,
    messages: messages.success,
    stream: false,
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(tools.success.length > 0 ? { tools: tools.success, tool_choice: toolChoice } : {}),
    ...(format.type === "json"
      ? {
        response_format: {
          type: "json_schema",
          json_schema: { name: format.objectName, schema: Tool.getJsonSchemaFromSchema(format.schema) }
        }
      }
      : {})
  })
}

/**
 * The `LanguageModel` service over `settings`, with the `HttpClient` it was built with.
 */
const service = (settings: Settings, client: HttpClient.HttpClient) => {
  const generate = (
    options: LanguageModel.ProviderOptions
  ): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
    Effect.gen(function*() {
      const body = requestBody(settings, options, yield* ReplyBudget)
      if (Result.isFailure(body)) {
        return yield* Effect.fail(
          aiError(new AiError.InvalidUserInputError({ description: `Cannot send the prompt: ${body.failure}.` }))
        )
      }
      let request = HttpClientRequest.post(settings.url).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.setHeaders(settings.headers),
        HttpClientRequest.bodyJsonUnsafe(body.success)
      )
      if (settings.apiKey !== undefined) request = HttpClientRequest.bearerToken(request, settings.apiKey)
      const exchange = Effect.flatMap(client.execute(request), (response) =>
        Effect.map(response.text, (text) => ({
          status: response.status,
          text,
          retryAfter: response.headers["retry-after"]
        })))
      return yield* exchange.pipe(
        Effect.mapError((error) =>
          aiError(
            new AiError.NetworkError({
              reason: error.reason._tag === "EncodeError" || error.reason._tag === "InvalidUrlError"
                ? error.reason._tag
                : "TransportError",
              method: "POST",
              url: settings.url,
              description: `No answer from ${settings.url}: ${error.reason._tag}`
            })
          )
        ),
        Effect.timeoutOrElse({
          duration: settings.timeout,
          orElse: () =>
            Effect.fail(aiError(
              new AiError.NetworkError({
                reason: "TransportError",
                method: "POST",
                url: settings.url,
                description: `No answer from ${settings.url} within ${Duration.format(settings.timeout)}`
              })
            ))
        }),
        Effect.flatMap(({ retryAfter, status, text }) =>
          status >= 200 && status < 300
            ? parseAnswer(status, text)
            : Effect.fail(statusError(status, text, retryAfter))
        )
      )
    })
  return LanguageModel.make({
    generateText: generate,
    // One non-streaming request, its parts emitted at once: enough for `streamText` callers to work.
    streamText: (options) =>
      Stream.fromIterableEffect(Effect.map(generate(options), (parts) => parts.flatMap(toStreamParts)))
  })
}

/**
 * Builds the `LanguageModel` service for an OpenAI-compatible chat server (see {@link layer}).
 *
 * @example
 * ```ts
 * import { OpenAiCompatible } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const model = yield* OpenAiCompatible.make({ baseUrl: "http://127.0.0.1:8080", model: "local" })
 *   return yield* Effect.provideService(LanguageModel.generateText({ prompt: "hi" }), LanguageModel.LanguageModel, model)
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: OpenAiCompatibleOptions
): Effect.Effect<LanguageModel.LanguageModel, InvalidEffectAiOption, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const settings = yield* checkOptions(options)
    const client = yield* HttpClient.HttpClient
    return yield* service(settings, client)
  })

/**
 * An `effect/ai` `LanguageModel` layer for any OpenAI-compatible chat server: `POST <baseUrl>/v1/chat/completions`
 * (see {@link OpenAiCompatibleOptions.baseUrl} for how the URL is formed), non-streaming. Needs an `HttpClient`
 * (`FetchHttpClient.layer` from `effect/http`, or `NodeHttpClient.layerUndici` from `@effect/platform-node`).
 *
 * - Request: the prompt's messages in order (system, user text and images, assistant text and `tool_calls`, one
 *   `tool` message per tool result with its `tool_call_id`; reasoning and approval parts are not sent), `tools`
 *   from the toolkit (name, description, JSON Schema of the parameters), `tool_choice`, `max_tokens`,
 *   `temperature`. A JSON `responseFormat` (`generateObject`) is sent as
 *   `response_format: { type: "json_schema", json_schema: { name, schema } }`.
 * - Answer: `choices[0].message` — `reasoning_content` (llama.cpp, DeepSeek) as a reasoning part, `content` as
 *   text, `tool_calls` as tool-call parts (arguments parsed) — then a finish part: `finish_reason` (`stop`,
 *   `length`, `tool_calls` → `tool-calls`, `content_filter` → `content-filter`) and `usage` (`prompt_tokens` →
 *   `inputTokens.total`, `prompt_tokens_details.cached_tokens` → `cacheRead`, `completion_tokens` →
 *   `outputTokens.total`, `completion_tokens_details.reasoning_tokens` → `reasoning`). `streamText` sends the same
 *   request and emits its parts at once.
 * - Errors, all `AiError` with `module: "OpenAiCompatible"`: a non-2xx answer gets the reason
 *   `AiError.reasonFromHttpStatus` gives (400 `InvalidRequestError`, 401/403 `AuthenticationError`, 429
 *   `RateLimitError` with `retry-after`, 5xx `InternalProviderError`), a description `HTTP <status>: <the
 *   provider's message, one line, at most 300 characters>`, and `metadata.openai` holding `status` and, when the
 *   body has them, `errorCode`, `errorType`, `errorParam`, `nPromptTokens`, `nCtx` — enough to classify an
 *   over-window 400 (llama.cpp's `errorType: "exceed_context_size_error"` with `nCtx`, OpenAI's
 *   `errorCode: "context_length_exceeded"`). The body itself is never kept. An HTML page, a body that is not a
 *   chat completion: `InvalidResponseError`. Tool arguments that are not JSON: `InvalidOutputError`. A refused
 *   connection or no answer within `timeout`: `NetworkError`.
 * - Bad options fail the layer with {@link InvalidEffectAiOption} (nothing is ever sent with them).
 *
 * @example
 * ```ts
 * import { OpenAiCompatible } from "@ctxkit/effect-ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as Layer from "effect/Layer"
 *
 * const Model = OpenAiCompatible.layer({ baseUrl: "http://127.0.0.1:8080/v1", model: "qwen3-8b", maxTokens: 512 }).pipe(
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * const answer = LanguageModel.generateText({ prompt: "Say hi." }).pipe(
 *   Effect.map((response) => [response.text, response.finishReason, response.usage.inputTokens.total]),
 *   Effect.provide(Model)
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const layer = (
  options: OpenAiCompatibleOptions
): Layer.Layer<LanguageModel.LanguageModel, InvalidEffectAiOption, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))
