/**
 * A scripted chat server on 127.0.0.1 that truncates a prompt the way Ollama does, for tests and demos that must
 * see a real wire: real HTTP, the real response shapes, and the silent failure measured with a small local model behind Ollama.
 *
 * Ollama runs a model with a context of `num_ctx` tokens. A prompt larger than that is not refused: the system
 * messages and the latest message are kept, the oldest of the others are dropped until the rest fits, and the
 * answer is a normal HTTP 200 whose usage reports the tokens it KEPT (`plateau`). Some servers report a tiny
 * prompt size instead (`collapse`: 63 tokens in that measurement). `honest` never truncates. The reply script sees
 * only the messages that were kept — which is how a truncated model "forgets" its task and still answers.
 *
 * It answers `POST /v1/chat/completions` (OpenAI shape, streaming or not), `POST /api/chat` (Ollama's own),
 * `GET /api/ps`, `POST /api/show` (with `num_ctx` in `parameters`), `GET /api/tags` and `GET /v1/models`, so an
 * OpenAI-compatible client and window discovery work against it unchanged.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * What the server does with a prompt larger than its window.
 *
 * @category models
 * @since 0.1.0
 */
export type TruncationMode = "honest" | "plateau" | "collapse"

/**
 * A chat message as it arrives on the wire (OpenAI chat or Ollama shape).
 *
 * @category models
 * @since 0.1.0
 */
export interface WireMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: ReadonlyArray<unknown> | undefined
  readonly tool_call_id?: string | undefined
  readonly [key: string]: unknown
}

/**
 * What the scripted model answers: text, tool calls, or both.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScriptedReply {
  readonly content?: string | undefined
  readonly toolCalls?:
    | ReadonlyArray<{ readonly id?: string | undefined; readonly name: string; readonly arguments: unknown }>
    | undefined
}

/**
 * How the scripted server behaves.
 *
 * @category models
 * @since 0.1.0
 */
export interface OllamaLikeOptions {
  /** Its context window (`num_ctx`), in its own tokens; default 4096. */
  readonly window?: number | undefined
  /** What it does with a prompt over its window; default `"plateau"`. */
  readonly mode?: TruncationMode | undefined
  /** The model it serves; default `"llama3.2:3b"`. */
  readonly model?: string | undefined
  /**
   * Its own tokenizer ("true" counts, which the client never sees); default characters / 4 times a factor between
   * 1.00 and 1.48 chosen by a hash of the text, as real tokenizers differ from the estimate between code and JSON.
   */
  readonly tokenizer?: ((text: string) => number) | undefined
  /** Chat-template tokens per message; default 4. */
  readonly templateTokens?: number | undefined
  /** What the model answers, given the messages the server kept; default "OK." */
  readonly reply?:
    | ((
      kept: ReadonlyArray<WireMessage>,
      info: { readonly truncated: boolean; readonly received: number }
    ) => ScriptedReply)
    | undefined
}

/**
 * One chat request as the server saw it, with the ground truth a client never sees.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServedRequest {
  /** The path it was sent to (`/v1/chat/completions` or `/api/chat`). */
  readonly path: string
  /** Messages received. */
  readonly received: number
  /** Messages kept after truncation. */
  readonly kept: number
  /** The prompt size it reported. */
  readonly promptTokens: number
  /** Ground truth: the true size of the whole prompt. */
  readonly trueTokens: number
  /** Ground truth: part of the prompt was dropped. */
  readonly truncated: boolean
  /** The reply budget the client asked for, if any. */
  readonly maxTokens: number | undefined
}

/**
 * A running scripted server.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunningServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  readonly baseUrl: string
  /** Its window. */
  readonly window: number
  /** The model it serves. */
  readonly model: string
  /** Every chat request so far, in order. */
  readonly requests: ReadonlyArray<ServedRequest>
  /** Stops listening and closes open connections. */
  readonly close: () => Promise<void>
}

/**
 * What a collapsing server reports for a prompt that does not fit (the figure measured with a local model behind Ollama).
 *
 * @category constants
 * @since 0.1.0
 */
export const COLLAPSE_PROMPT_TOKENS = 63

// FNV-1a over UTF-16 code units: a deterministic hash, so a text's factor depends on the text alone.
const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/**
 * The default tokenizer of the scripted server: characters / 4, times a factor between 1.00 and 1.48 picked by a
 * hash of the text, rounded up.
 *
 * @example
 * ```ts
 * import { serverTokens } from "@ctxkit/testing/OllamaLikeServer"
 *
 * const tokens = serverTokens("Reply with the task and system keys.") // between 9 and 14
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const serverTokens = (text: string): number =>
  Math.ceil(Math.ceil(text.length / 4) * (1 + 0.48 * ((fnv1a(text) % 1_001) / 1_000)))

/**
 * What a model reads of a wire message: its text (a string, or the text of its content parts), and its tool calls
 * as the chat template renders them.
 *
 * @example
 * ```ts
 * import { wireText } from "@ctxkit/testing/OllamaLikeServer"
 *
 * wireText({ role: "user", content: [{ type: "text", text: "Hello" }] }) // "Hello"
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const wireText = (message: WireMessage): string => {
  const content = message.content
  let text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) =>
      typeof part === "string"
        ? part
        : typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
        ? (part as { text: string }).text
        : ""
    ).join("")
    : ""
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) text += JSON.stringify(message.tool_calls)
  return text
}

interface Truncation {
  readonly kept: ReadonlyArray<WireMessage>
  readonly promptTokens: number
  readonly trueTokens: number
  readonly truncated: boolean
}

const truncate = (
  messages: ReadonlyArray<WireMessage>,
  window: number,
  mode: TruncationMode,
  size: (message: WireMessage) => number
): Truncation => {
  const sizes = messages.map(size)
  const trueTokens = sizes.reduce((a, b) => a + b, 0)
  if (trueTokens <= window || mode === "honest") {
    return { kept: messages, promptTokens: trueTokens, trueTokens, truncated: false }
  }
  // The system messages and the latest message stay; the oldest of the others go first until the rest fits.
  const keep = messages.map(() => true)
  let kept = trueTokens
  for (let i = 0; i < messages.length - 1 && kept > window; i++) {
    if (messages[i]!.role !== "system") {
      keep[i] = false
      kept -= sizes[i]!
    }
  }
  const survivors = messages.filter((_, i) => keep[i])
  if (mode === "collapse") {
    return { kept: survivors, promptTokens: COLLAPSE_PROMPT_TOKENS, trueTokens, truncated: true }
  }
  // Still too large (a huge system prompt or last message): the server cuts tokens and fills its window.
  return { kept: survivors, promptTokens: Math.min(kept, window), trueTokens, truncated: true }
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const sendJson = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

const parseObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed as Record<string, unknown>
      : undefined
  } catch {
    return undefined
  }
}

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined

/**
 * Starts a scripted Ollama-like chat server on 127.0.0.1 at a free port.
 *
 * @example
 * ```ts
 * import { startOllamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
 *
 * const server = await startOllamaLikeServer({ window: 2_048, mode: "plateau" })
 * const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ model: server.model, messages: [{ role: "user", content: "Hello" }] })
 * })
 * const body = await response.json() // { choices: [...], usage: { prompt_tokens, ... } }
 * await server.close()
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const startOllamaLikeServer = (options: OllamaLikeOptions = {}): Promise<RunningServer> => {
  const window = positive(options.window) ?? 4_096
  const mode: TruncationMode = options.mode ?? "plateau"
  const model = options.model ?? "llama3.2:3b"
  const tokenizer = options.tokenizer ?? serverTokens
  const template = options.templateTokens ?? 4
  const script: NonNullable<OllamaLikeOptions["reply"]> = options.reply ?? (() => ({ content: "OK." }))
  const requests: Array<ServedRequest> = []
  const size = (message: WireMessage) => tokenizer(wireText(message)) + template
  let calls = 0

  const chat = (path: string, body: Record<string, unknown>) => {
    const messages = Array.isArray(body.messages)
      ? (body.messages as Array<unknown>).filter((m): m is WireMessage =>
        typeof m === "object" && m !== null && typeof (m as { role?: unknown }).role === "string"
      )
      : []
    const cut = truncate(messages, window, mode, size)
    const options = typeof body.options === "object" && body.options !== null
      ? body.options as Record<string, unknown>
      : {}
    const maxTokens = positive(body.max_tokens) ?? positive(body.max_completion_tokens) ?? positive(options.num_predict)
    requests.push({
      path,
      received: messages.length,
      kept: cut.kept.length,
      promptTokens: cut.promptTokens,
      trueTokens: cut.trueTokens,
      truncated: cut.truncated,
      maxTokens
    })
    const reply = script(cut.kept, { truncated: cut.truncated, received: messages.length })
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++calls}`,
      type: "function" as const,
      function: {
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {})
      }
    }))
    const content = reply.content ?? ""
    const completionTokens = tokenizer(content + (toolCalls.length > 0 ? JSON.stringify(toolCalls) : ""))
    return { cut, toolCalls, content, completionTokens }
  }

  const openAi = (response: ServerResponse, body: Record<string, unknown>): void => {
    const { completionTokens, content, cut, toolCalls } = chat("/v1/chat/completions", body)
    const id = `chatcmpl-${requests.length}`
    const created = Math.floor(Date.now() / 1_000)
    const finish = toolCalls.length > 0 ? "tool_calls" : "stop"
    const usage = {
      prompt_tokens: cut.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: cut.promptTokens + completionTokens
    }
    const message = {
      role: "assistant",
      content: content.length > 0 || toolCalls.length === 0 ? content : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
    }
    if (body.stream !== true) {
      sendJson(response, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        system_fingerprint: "fp_ollama",
        choices: [{ index: 0, message, finish_reason: finish }],
        usage
      })
      return
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const chunk = (delta: unknown, finishReason: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${
        JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          system_fingerprint: "fp_ollama",
          choices: [{ index: 0, delta, finish_reason: finishReason }],
          ...extra
        })
      }\n\n`
    response.write(chunk({ role: "assistant", content: message.content ?? "" }, null))
    if (toolCalls.length > 0) {
      response.write(chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) }, null))
    }
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined
    response.write(chunk({}, finish, streamOptions?.include_usage === true ? { usage } : {}))
    response.end("data: [DONE]\n\n")
  }

  const ollamaChat = (response: ServerResponse, body: Record<string, unknown>) => {
    const { completionTokens, content, cut, toolCalls } = chat("/api/chat", body)
    const answer = {
      model,
      created_at: new Date().toISOString(),
      message: {
        role: "assistant",
        content,
        ...(toolCalls.length > 0
          ? {
            tool_calls: toolCalls.map((call) => ({
              function: { name: call.function.name, arguments: JSON.parse(call.function.arguments) }
            }))
          }
          : {})
      },
      done_reason: "stop",
      done: true,
      total_duration: 1_000_000,
      prompt_eval_count: cut.promptTokens,
      eval_count: completionTokens
    }
    // Ollama streams NDJSON unless told otherwise; one final chunk is a valid stream.
    if (body.stream === false) sendJson(response, 200, answer)
    else {
      response.writeHead(200, { "content-type": "application/x-ndjson" })
      response.end(`${JSON.stringify(answer)}\n`)
    }
  }

  const details = { format: "gguf", family: "llama", parameter_size: "3.2B", quantization_level: "Q4_K_M" }
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? "/").split("?")[0]
    const text = request.method === "POST" ? await readBody(request) : ""
    let body: Record<string, unknown> = {}
    if (request.method === "POST") {
      const parsed = parseObject(text)
      if (parsed === undefined) {
        return sendJson(response, 400, { error: { message: "invalid JSON body", type: "invalid_request_error" } })
      }
      body = parsed
    }
    if (request.method === "POST" && path === "/v1/chat/completions") return openAi(response, body)
    if (request.method === "POST" && path === "/api/chat") return ollamaChat(response, body)
    if (request.method === "GET" && path === "/api/ps") {
      return sendJson(response, 200, {
        models: [{ name: model, model, size: 3_000_000_000, details, context_length: window }]
      })
    }
    if (request.method === "POST" && path === "/api/show") {
      return sendJson(response, 200, {
        parameters: `num_ctx                        ${window}\nstop                           "<|eot_id|>"`,
        details,
        model_info: { "general.architecture": "llama", "llama.context_length": 131_072 }
      })
    }
    if (request.method === "GET" && path === "/api/tags") {
      return sendJson(response, 200, { models: [{ name: model, model, size: 3_000_000_000, details }] })
    }
    if (request.method === "GET" && path === "/v1/models") {
      return sendJson(response, 200, {
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "library" }]
      })
    }
    sendJson(response, 404, { error: "404 page not found" })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { error: "scripted server failure" })
      else response.end()
    })
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        baseUrl: `http://127.0.0.1:${port}`,
        window,
        model,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })
}

/**
 * The scripted server as a scoped resource: started when acquired, closed with its scope.
 *
 * @example
 * ```ts
 * import { ollamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const server = yield* ollamaLikeServer({ window: 4_096, mode: "collapse" })
 *   return server.baseUrl
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const ollamaLikeServer = (options: OllamaLikeOptions = {}): Effect.Effect<RunningServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startOllamaLikeServer(options)),
    (server) => Effect.promise(() => server.close())
  )
