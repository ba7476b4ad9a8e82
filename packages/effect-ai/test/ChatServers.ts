/**
 * Real chat-completions servers on 127.0.0.1 for the `ContextLanguageModel` tests: an honest one (answers every
 * prompt, reports every token it read) and a llama.cpp-like one (rejects a prompt over its `n_ctx` with the exact
 * HTTP 400 `exceed_context_size_error` body). Both count tokens as 4 characters each (plus 4 a message) and
 * record every request.
 */
import * as Effect from "effect/Effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** One message of a chat-completions request, as the server received it. */
export interface WireMessage {
  readonly role: string
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { readonly name: string } }>
  readonly tool_call_id?: string
}

/** What the server received, and what it counted. */
export interface Served {
  readonly messages: ReadonlyArray<WireMessage>
  readonly maxTokens: number | undefined
  readonly tokens: number
  readonly tools: number
}

/** The server's reply to a request it answers. */
export interface Scripted {
  readonly content?: string
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>
}

export interface ChatServerOptions {
  /** `honest` answers anything; `llama.cpp` refuses a prompt over `window`. */
  readonly kind: "honest" | "llama.cpp"
  readonly window?: number
  readonly reply?: (messages: ReadonlyArray<WireMessage>, served: number) => Scripted
  /** The `prompt_tokens` it reports for the `served`-th request (default: every token it read). */
  readonly report?: (tokens: number, served: number) => number
}

/** The tokens of a request as the servers count them: 4 characters a token, plus 4 per message. */
export const serverTokens = (messages: ReadonlyArray<WireMessage>): number =>
  messages.reduce(
    (sum, m) => sum + Math.ceil(((m.content ?? "").length + JSON.stringify(m.tool_calls ?? "").length) / 4) + 4,
    0
  )

/** A running server: its base URL and every request it served, in order. */
export const chatServer = (options: ChatServerOptions) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly baseUrl: string; readonly served: Array<Served>; readonly close: () => void }>(
      (resume) => {
        const served: Array<Served> = []
        const server = createServer((req: IncomingMessage, res: ServerResponse) => {
          let raw = ""
          req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")))
          req.on("end", () => {
            const body = JSON.parse(raw) as {
              messages: ReadonlyArray<WireMessage>
              max_tokens?: number
              tools?: ReadonlyArray<unknown>
            }
            const tokens = serverTokens(body.messages)
            served.push({ messages: body.messages, maxTokens: body.max_tokens, tokens, tools: body.tools?.length ?? 0 })
            const window = options.window ?? 4_096
            res.setHeader("content-type", "application/json")
            if (options.kind === "llama.cpp" && tokens > window) {
              res.statusCode = 400
              res.end(JSON.stringify({
                error: {
                  code: 400,
                  message:
                    `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`,
                  type: "exceed_context_size_error",
                  n_prompt_tokens: tokens,
                  n_ctx: window
                }
              }))
              return
            }
            const reply = options.reply?.(body.messages, served.length) ?? { content: "ok" }
            const calls = reply.toolCalls ?? []
            res.end(JSON.stringify({
              id: `chatcmpl-${served.length}`,
              object: "chat.completion",
              created: 1_764_633_600,
              model: "scripted",
              choices: [{
                index: 0,
                finish_reason: calls.length > 0 ? "tool_calls" : "stop",
                message: {
                  role: "assistant",
                  content: reply.content ?? null,
                  ...(calls.length > 0
                    ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: "function",
                        function: { name: c.name, arguments: JSON.stringify(c.arguments) }
                      }))
                    }
                    : {})
                }
              }],
              usage: {
                prompt_tokens: options.report?.(tokens, served.length) ?? tokens,
                completion_tokens: 5,
                total_tokens: tokens + 5
              }
            }))
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(Effect.succeed({
            baseUrl: `http://127.0.0.1:${port}`,
            served,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          }))
        })
      }
    ),
    ({ close }) => Effect.sync(close)
  )

/** A call kept without its result, or a result without its call, in a chat-completions request. */
export const wireSplitsAPair = (messages: ReadonlyArray<WireMessage>): boolean => {
  const calls = new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)))
  const results = new Set(
    messages.flatMap((m) => m.role === "tool" && m.tool_call_id !== undefined ? [m.tool_call_id] : [])
  )
  return [...calls].some((id) => !results.has(id)) || [...results].some((id) => !calls.has(id))
}
