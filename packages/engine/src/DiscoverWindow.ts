/**
 * `discoverWindow`: asking a running model server for its context window over HTTP, server by server in a
 * fixed order, until one answers with a window ctxkit believes.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import {
  ollamaLoaded,
  pass,
  readCatalogModels,
  type Reading,
  readLiteLlm,
  readLlamaModels,
  readLlamaProps,
  readLmStudioV0,
  readLmStudioV1,
  readOllamaPs,
  readOllamaShow,
  readOpenRouterModels,
  readVllmModels,
  show
} from "./internal/windowRead.ts"
import type { WindowAnswer } from "./WindowSource.ts"

/**
 * Where and how to ask. `baseUrl` is the server's address as you give it to an OpenAI client
 * (`http://127.0.0.1:8080`, `http://localhost:11434`, `https://openrouter.ai/api/v1`): a trailing `/v1`,
 * `/api/v1`, `/api/v0` or `/api` is dropped, so every server's own paths can be asked.
 *
 * @category models
 * @since 0.1.0
 */
export interface DiscoverWindowOptions {
  /** The server's address, `http://` or `https://`. */
  readonly baseUrl: string
  /** The model whose window you want, where the server lists several (as you send it in `model`). */
  readonly model?: string | undefined
  /** Sent as `Authorization: Bearer <apiKey>`; never written to a warning or a source. */
  readonly apiKey?: string | undefined
  /** The whole discovery gives up after this long, even when every request hangs. Default 30 seconds. */
  readonly timeout?: Duration.Input | undefined
  /** Each request gives up after this long. Default 10 seconds. */
  readonly requestTimeout?: Duration.Input | undefined
}

/**
 * The default bound on a whole discovery: 30 seconds.
 *
 * @example
 * ```ts
 * import { DISCOVERY_TIMEOUT } from "@ctxkit/engine/DiscoverWindow"
 * import * as Duration from "effect/Duration"
 *
 * Duration.toSeconds(DISCOVERY_TIMEOUT) // 30
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DISCOVERY_TIMEOUT: Duration.Duration = Duration.seconds(30)

/**
 * The default bound on one discovery request: 10 seconds.
 *
 * @example
 * ```ts
 * import { DISCOVERY_REQUEST_TIMEOUT } from "@ctxkit/engine/DiscoverWindow"
 * import * as Duration from "effect/Duration"
 *
 * Duration.toSeconds(DISCOVERY_REQUEST_TIMEOUT) // 10
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DISCOVERY_REQUEST_TIMEOUT: Duration.Duration = Duration.seconds(10)

type Reply =
  | { readonly _tag: "Json"; readonly body: unknown }
  | { readonly _tag: "Miss"; readonly reason: string }
  | { readonly _tag: "Unreachable"; readonly reason: string }

type Ask = (method: "GET" | "POST", path: string, body?: unknown) => Effect.Effect<Reply>

type Outcome = Reading | { readonly _tag: "Stop"; readonly reason: string }

interface Checked {
  readonly root: string | undefined
  readonly model: string | undefined
  readonly apiKey: string | undefined
  readonly timeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  readonly warnings: ReadonlyArray<string>
}

const serverRoot = (baseUrl: string): string =>
  baseUrl.trim().replace(/\/+$/, "").replace(/\/(?:api\/v[01]|v1|api)$/i, "")

const duration = (
  name: string,
  value: unknown,
  fallback: Duration.Duration
): { readonly value: Duration.Duration; readonly warning?: string } => {
  if (value === undefined) return { value: fallback }
  const given = Predicate.isNumber(value) || Predicate.isString(value) || Duration.isDuration(value) ?
    Duration.fromInput(value as Duration.Input).pipe(
      Option.filter((d) => Duration.isFinite(d) && Duration.toMillis(d) > 0)
    ) :
    Option.none()
  return Option.match(given, {
    onSome: (d) => ({ value: d }),
    onNone: () => ({
      value: fallback,
      warning: `option ${name} = ${
        show(value)
      } is not a positive finite duration (milliseconds, "5 seconds", a Duration): used the default, ${
        Duration.format(fallback)
      }`
    })
  })
}

const checkOptions = (options: DiscoverWindowOptions): Checked => {
  const given: Partial<Record<keyof DiscoverWindowOptions, unknown>> = Predicate.isObject(options) ? options : {}
  const warnings: Array<string> = []
  const baseUrl = given.baseUrl
  const root = Predicate.isString(baseUrl) && /^https?:\/\/[^/\s]+/i.test(baseUrl.trim()) ?
    serverRoot(baseUrl) :
    undefined
  if (root === undefined) {
    warnings.push(
      `option baseUrl = ${
        show(baseUrl)
      } is not an http(s) address: nothing was asked, the window is unknown; pass the server's address, for example "http://127.0.0.1:8080"`
    )
  }
  const model = given.model
  if (model !== undefined && !(Predicate.isString(model) && model.trim() !== "")) {
    warnings.push(
      `option model = ${show(model)} is not a model name: asked without one (a model name is a non-empty string)`
    )
  }
  const apiKey = given.apiKey
  if (apiKey !== undefined && !Predicate.isString(apiKey)) {
    // The value is never shown: it may be a secret of another shape.
    warnings.push("option apiKey is not a string: sent no key (an apiKey is the server's token, a string)")
  }
  const timeout = duration("timeout", given.timeout, DISCOVERY_TIMEOUT)
  const requestTimeout = duration("requestTimeout", given.requestTimeout, DISCOVERY_REQUEST_TIMEOUT)
  for (const warning of [timeout.warning, requestTimeout.warning]) if (warning !== undefined) warnings.push(warning)
  return {
    root,
    model: Predicate.isString(model) && model.trim() !== "" ? model : undefined,
    apiKey: Predicate.isString(apiKey) && apiKey !== "" ? apiKey : undefined,
    timeout: timeout.value,
    requestTimeout: requestTimeout.value,
    warnings
  }
}

const causeCode = (cause: unknown): string | undefined => {
  // fetch wraps the socket error: `TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } })`.
  const inner = Predicate.hasProperty(cause, "cause") ? cause.cause : undefined
  for (const candidate of [inner, cause]) {
    if (Predicate.hasProperty(candidate, "code") && Predicate.isString(candidate.code)) return candidate.code
  }
  return undefined
}

const readBody = (
  label: string,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<Reply> => {
  if (response.status < 200 || response.status > 299) {
    const hint = response.status === 401 || response.status === 403 ? " (check apiKey)" : ""
    return Effect.succeed({ _tag: "Miss", reason: `${label}: HTTP ${response.status}${hint}` })
  }
  return Effect.match(response.json, {
    onSuccess: (body): Reply => ({ _tag: "Json", body }),
    onFailure: (): Reply => ({
      _tag: "Miss",
      reason: `${label}: answered ${response.headers["content-type"] ?? "a body"} that is not JSON`
    })
  })
}

const makeAsk =
  (client: HttpClient.HttpClient, checked: Checked & { readonly root: string }): Ask => (method, path, body) => {
    const label = `${method} ${path}`
    const base = method === "GET" ?
      HttpClientRequest.get(`${checked.root}${path}`) :
      HttpClientRequest.post(`${checked.root}${path}`).pipe(HttpClientRequest.bodyJsonUnsafe(body))
    const accepting = HttpClientRequest.acceptJson(base)
    const request = checked.apiKey === undefined ? accepting : HttpClientRequest.bearerToken(accepting, checked.apiKey)
    return client.execute(request).pipe(
      Effect.flatMap((response) => readBody(label, response)),
      Effect.timeoutOption(checked.requestTimeout),
      Effect.map(Option.getOrElse((): Reply => ({
        _tag: "Miss",
        reason: `${label}: no answer within ${Duration.format(checked.requestTimeout)}`
      }))),
      Effect.catchTag("HttpClientError", (error) => {
        const reason = error.reason
        if (reason._tag === "TransportError" || reason._tag === "InvalidUrlError") {
          const code = causeCode(reason.cause)
          return Effect.succeed<Reply>({
            _tag: "Unreachable",
            reason: `could not reach ${checked.root}${code === undefined ? "" : ` (${code})`}`
          })
        }
        return Effect.succeed<Reply>({ _tag: "Miss", reason: `${label}: ${reason._tag}` })
      })
    )
  }

const onJson = (reply: Reply, read: (body: unknown) => Reading): Outcome => {
  switch (reply._tag) {
    case "Json":
      return read(reply.body)
    case "Miss":
      return pass([reply.reason])
    case "Unreachable":
      return { _tag: "Stop", reason: reply.reason }
  }
}

/** The probes in the spec's order; GET answers are shared (one `/v1/models` request serves three readers). */
const probes = (ask: Ask, model: string | undefined): Effect.Effect<ReadonlyArray<Effect.Effect<Outcome>>> =>
  Effect.gen(function*() {
    const get = (path: string) => Effect.cached(ask("GET", path))
    const props = yield* get("/props")
    const models = yield* get("/v1/models")
    const ps = yield* get("/api/ps")
    const apiV1 = yield* get("/api/v1/models")
    const apiV0 = yield* get("/api/v0/models")
    const groups = yield* get("/model_group/info")
    const ollamaShow = Effect.gen(function*() {
      const reply = yield* ps
      if (reply._tag !== "Json") return pass([])
      const loaded = ollamaLoaded(reply.body)
      if (loaded === undefined) return pass([])
      const name = model ?? (loaded.length === 1 ? loaded[0] : undefined)
      if (name === undefined) {
        return pass([], [
          `Ollama has ${
            loaded.length === 0 ? "no model loaded" : `${loaded.length} models loaded`
          } and no model was named: pass \`model\` to ask POST /api/show`
        ])
      }
      return onJson(yield* ask("POST", "/api/show", { model: name }), (body) => readOllamaShow(body, name))
    })
    return [
      Effect.map(props, (reply) => onJson(reply, readLlamaProps)),
      Effect.map(models, (reply) => onJson(reply, (body) => readLlamaModels(body, model))),
      Effect.map(ps, (reply) => onJson(reply, (body) => readOllamaPs(body, model))),
      ollamaShow,
      Effect.map(models, (reply) => onJson(reply, (body) => readVllmModels(body, model))),
      Effect.map(apiV1, (reply) => onJson(reply, (body) => readOpenRouterModels(body, model))),
      Effect.map(apiV1, (reply) => onJson(reply, (body) => readLmStudioV1(body, model))),
      Effect.map(apiV0, (reply) => onJson(reply, (body) => readLmStudioV0(body, model))),
      Effect.map(groups, (reply) => onJson(reply, (body) => readLiteLlm(body, model))),
      Effect.map(
        models,
        (reply) => onJson(reply, (body) => readCatalogModels("OpenAI-compatible GET /v1/models", body, model))
      )
    ]
  })

const servers = "llama.cpp, Ollama, vLLM, OpenRouter, LM Studio, LiteLLM, an OpenAI-compatible catalog"

/**
 * Asks a model server for its context window, in this order, until one answers: llama.cpp `GET /props`
 * (`default_generation_settings.n_ctx`) and `GET /v1/models` (`data[].meta.n_ctx`); Ollama `GET /api/ps`
 * (`models[].context_length` of the loaded model) then `POST /api/show` (a `num_ctx` line in `parameters`,
 * else `model_info["<arch>.context_length"]`); vLLM `GET /v1/models` (`data[].max_model_len`); OpenRouter
 * `GET /api/v1/models` (`data[].context_length`); LM Studio `GET /api/v1/models` (a loaded instance's
 * `config.context_length`, else `max_context_length`) and `GET /api/v0/models`; LiteLLM
 * `GET /model_group/info` (`data[].max_input_tokens`); any OpenAI-compatible `GET /v1/models` with
 * `context_length`, `context_window` or `max_context_length`.
 *
 * Never fails: a refused connection, a timeout, HTML, a 404, a body of another shape or an untrusted window
 * (zero, negative, above the 2,000,000-token trust limit) is a warning, and the answer is `window: undefined`
 * when nothing answered. The whole discovery is bounded by `timeout` (30 s by default). `source` names the
 * server, request and field; where a listing names several models, `model` picks one (without it, the
 * smallest window is used, with a warning).
 *
 * @example
 * ```ts
 * import { discoverWindow } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = discoverWindow({ baseUrl: "http://127.0.0.1:8080", model: "qwen3-8b", timeout: "5 seconds" }).pipe(
 *   Effect.map(({ source, warnings, window }) => window === undefined ? warnings.join("\n") : `${window} from ${source}`),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const discoverWindow: (
  options: DiscoverWindowOptions
) => Effect.Effect<WindowAnswer, never, HttpClient.HttpClient> = Effect.fn("discoverWindow")(
  function*(options: DiscoverWindowOptions) {
    const checked = checkOptions(options)
    const root = checked.root
    if (root === undefined) return { window: undefined, source: "none", warnings: checked.warnings }
    const client = yield* HttpClient.HttpClient
    const ask = makeAsk(client, { ...checked, root })
    const warnings = yield* Ref.make<ReadonlyArray<string>>(checked.warnings)
    const notes = yield* Ref.make<ReadonlyArray<string>>([])
    const search = Effect.gen(function*() {
      for (const probe of yield* probes(ask, checked.model)) {
        const outcome = yield* probe
        if (outcome._tag === "Stop") {
          yield* Ref.update(warnings, (all) => [...all, `${outcome.reason}: is the server running at this address?`])
          return undefined
        }
        yield* Ref.update(warnings, (all) => [...all, ...outcome.warnings])
        if (outcome._tag === "Answer") return outcome
        yield* Ref.update(notes, (all) => [...all, ...outcome.notes])
      }
      return undefined
    })
    const found = yield* Effect.timeoutOption(search, checked.timeout)
    const collected = yield* Ref.get(warnings)
    if (Option.isSome(found) && found.value !== undefined) {
      return { window: found.value.window, source: found.value.source, warnings: collected }
    }
    const tried = yield* Ref.get(notes)
    const ending = Option.isNone(found) ?
      `window discovery at ${root} gave up after ${
        Duration.format(checked.timeout)
      }: the window is unknown; configure it, or raise \`timeout\`` :
      `no server at ${root} told its window (asked as ${servers}): the window is unknown; configure it, or use WindowSource.layerCatalog for a hosted model`
    return { window: undefined, source: "none", warnings: [...collected, ...tried, ending] }
  }
)
