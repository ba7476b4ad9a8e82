import { InvalidEffectAiOption, OpenAiCompatible, type OpenAiCompatibleOptions } from "@ctxkit/effect-ai"
import { assert, describe, it } from "@effect/vitest"
import { AiError, LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** What the scripted server received. */
interface Received {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly authorization: string | undefined
  readonly body: Record<string, unknown>
}

/** An answer: a status and a raw body, or no answer at all. */
type Answer =
  | {
    readonly status: number
    readonly body: string
    readonly contentType?: string
    readonly headers?: Readonly<Record<string, string>>
  }
  | "hang"

/**
 * A real HTTP server on 127.0.0.1:0 answering like an OpenAI-compatible chat server: each request gets the next
 * scripted answer, and every request is recorded.
 */
const scriptedServer = (answers: ReadonlyArray<Answer>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly received: Array<Received>; readonly server: Server }>(
      (resume) => {
        const received: Array<Received> = []
        let next = 0
        const server = createServer((req: IncomingMessage, res: ServerResponse) => {
          let raw = ""
          req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")))
          req.on("end", () => {
            received.push({
              method: req.method,
              path: req.url,
              authorization: req.headers.authorization,
              body: raw.length > 0 ? JSON.parse(raw) as Record<string, unknown> : {}
            })
            const answer = answers[Math.min(next++, answers.length - 1)] ?? "hang"
            if (answer === "hang") return
            res.writeHead(answer.status, {
              "content-type": answer.contentType ?? "application/json",
              ...answer.headers
            })
            res.end(answer.body)
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, received, server }))
        })
      }
    ),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const completion = (message: Record<string, unknown>, finish: string, usage = { prompt: 42, completion: 7 }) => ({
  status: 200,
  body: JSON.stringify({
    id: "chatcmpl-8f2a",
    object: "chat.completion",
    created: 1_764_633_600,
    model: "qwen3-8b",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion
    }
  })
})

const modelLayer = (options: OpenAiCompatibleOptions) =>
  OpenAiCompatible.layer(options).pipe(Layer.provide(FetchHttpClient.layer))

const ListFiles = Tool.make("list_files", {
  description: "List the files of a folder",
  parameters: Schema.Struct({ dir: Schema.String }),
  success: Schema.String
})
const Files = Toolkit.make(ListFiles)
const FilesLayer = Files.toLayer(Files.of({ list_files: ({ dir }) => Effect.succeed(`${dir}/a.ts\n${dir}/b.ts`) }))

/** The `AiError` the call failed with (the test fails on a success, a defect or another error). */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): AiError.AiError => {
  const error = Exit.findErrorOption(exit)
  if (error._tag === "None" || !AiError.isAiError(error.value)) {
    throw new Error(`expected an AiError, got ${Exit.isSuccess(exit) ? "a success" : "another failure"}`)
  }
  return error.value
}

describe("OpenAiCompatible against real HTTP servers on 127.0.0.1", () => {
  it.effect("text, finish reason, usage and the request it sent (system first, model, max_tokens, bearer key)", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([completion({ content: "Two files." }, "stop")])
      const response = yield* LanguageModel.generateText({
        prompt: [{ role: "system", content: "Be terse." }, { role: "user", content: "How many files?" }]
      }).pipe(Effect.provide(modelLayer({ baseUrl: server.url, model: "qwen3-8b", apiKey: "sk-test", maxTokens: 64 })))
      assert.strictEqual(response.text, "Two files.")
      assert.strictEqual(response.finishReason, "stop")
      assert.strictEqual(response.usage.inputTokens.total, 42)
      assert.strictEqual(response.usage.outputTokens.total, 7)
      const [request] = server.received
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, "/v1/chat/completions")
      assert.strictEqual(request?.authorization, "Bearer sk-test")
      assert.deepStrictEqual(request?.body, {
        model: "qwen3-8b",
        messages: [{ role: "system", content: "Be terse." }, { role: "user", content: "How many files?" }],
        stream: false,
        max_tokens: 64
      })
    }).pipe(Effect.scoped))

  it.effect("a baseUrl ending in /v1 (and a trailing slash) posts to /v1/chat/completions, not /v1/v1", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([completion({ content: "ok" }, "length")])
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(modelLayer({ baseUrl: `${server.url}/v1/`, model: "m" }))
      )
      assert.strictEqual(server.received[0]?.path, "/v1/chat/completions")
      assert.strictEqual(server.received[0]?.authorization, undefined)
      assert.strictEqual(response.finishReason, "length")
      assert.strictEqual(
        OpenAiCompatible.chatCompletionsUrl("https://openrouter.ai/api/v1"),
        "https://openrouter.ai/api/v1/chat/completions"
      )
      assert.strictEqual(
        OpenAiCompatible.chatCompletionsUrl("http://h:1/x/chat/completions/"),
        "http://h:1/x/chat/completions"
      )
      assert.strictEqual(OpenAiCompatible.chatCompletionsUrl("http://h:11434"), "http://h:11434/v1/chat/completions")
    }).pipe(Effect.scoped))

  it.effect("a tool-call round trip through generateText: tools sent, the call run, its result sent back with tool_call_id", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([
        completion(
          {
            content: null,
            tool_calls: [{
              id: "call_7",
              type: "function",
              function: { name: "list_files", arguments: "{\"dir\":\"src\"}" }
            }]
          },
          "tool_calls",
          { prompt: 80, completion: 12 }
        ),
        completion({ content: "src has a.ts and b.ts." }, "stop", { prompt: 120, completion: 9 })
      ])
      const model = modelLayer({ baseUrl: server.url, model: "qwen3-8b" })
      const history = Prompt.make([
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "What is in src?" }
      ])
      const first = yield* LanguageModel.generateText({ prompt: history, toolkit: Files }).pipe(
        Effect.provide(Layer.merge(model, FilesLayer))
      )
      assert.strictEqual(first.finishReason, "tool-calls")
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.id, c.name, c.params]), [["call_7", "list_files", {
        dir: "src"
      }]])
      assert.deepStrictEqual(first.toolResults.map((r) => [r.id, r.result]), [["call_7", "src/a.ts\nsrc/b.ts"]])
      const sentTools = server.received[0]?.body["tools"] as ReadonlyArray<
        { function: { name: string; description: string; parameters: { type: string } } }
      >
      assert.deepStrictEqual(
        sentTools.map((t) => [t.function.name, t.function.description, t.function.parameters.type]),
        [[
          "list_files",
          "List the files of a folder",
          "object"
        ]]
      )
      assert.strictEqual(server.received[0]?.body["tool_choice"], "auto")

      const second = yield* LanguageModel.generateText({
        prompt: Prompt.concat(history, Prompt.fromResponseParts(first.content)),
        toolkit: Files
      }).pipe(Effect.provide(Layer.merge(model, FilesLayer)))
      assert.strictEqual(second.text, "src has a.ts and b.ts.")
      assert.deepStrictEqual(server.received[1]?.body["messages"], [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "What is in src?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_7",
            type: "function",
            function: { name: "list_files", arguments: "{\"dir\":\"src\"}" }
          }]
        },
        { role: "tool", tool_call_id: "call_7", content: "src/a.ts\nsrc/b.ts" }
      ])
    }).pipe(Effect.scoped))

  it.effect("llama.cpp's over-window 400: InvalidRequestError with status, type and n_ctx kept, the body not", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({
        error: {
          code: 400,
          message: "request (315 tokens) exceeds the available context size (256 tokens), try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: 315,
          n_ctx: 256
        }
      })
      const server = yield* scriptedServer([{ status: 400, body }])
      const error = failureOf(
        yield* Effect.exit(
          LanguageModel.generateText({ prompt: "long" }).pipe(
            Effect.provide(modelLayer({ baseUrl: server.url, model: "m" }))
          )
        )
      )
      assert.instanceOf(error, AiError.AiError)
      assert.strictEqual(error.module, "OpenAiCompatible")
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      if (error.reason._tag !== "InvalidRequestError") return
      assert.deepStrictEqual(error.reason.metadata["openai"], {
        status: 400,
        errorCode: "400",
        errorType: "exceed_context_size_error",
        nPromptTokens: 315,
        nCtx: 256
      })
      assert.strictEqual(
        error.reason.description,
        "HTTP 400: request (315 tokens) exceeds the available context size (256 tokens), try increasing it"
      )
      assert.strictEqual(error.reason.http?.response?.status, 400)
      assert.strictEqual(error.reason.http?.body, undefined)
    }).pipe(Effect.scoped))

  it.effect("OpenAI's context_length_exceeded keeps its code and param", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded"
        }
      })
      const server = yield* scriptedServer([{ status: 400, body }])
      const error = failureOf(
        yield* Effect.exit(
          LanguageModel.generateText({ prompt: "long" }).pipe(
            Effect.provide(modelLayer({ baseUrl: server.url, model: "gpt-4o" }))
          )
        )
      )
      if (error.reason._tag !== "InvalidRequestError") return assert.fail(error.reason._tag)
      assert.deepStrictEqual(error.reason.metadata["openai"], {
        status: 400,
        errorCode: "context_length_exceeded",
        errorType: "invalid_request_error",
        errorParam: "messages"
      })
    }).pipe(Effect.scoped))

  it.effect("a 500 is an InternalProviderError; an HTML page is an InvalidResponseError that shows no HTML", () =>
    Effect.gen(function*() {
      const html = "<!doctype html><html><body><h1>502 Bad Gateway</h1><p>secret-internal-host:9000</p></body></html>"
      const server = yield* scriptedServer([
        { status: 500, body: JSON.stringify({ error: { message: "model crashed", type: "server_error" } }) },
        { status: 500, body: html, contentType: "text/html" },
        { status: 200, body: html, contentType: "text/html" },
        { status: 200, body: JSON.stringify({ object: "list", data: [] }) }
      ])
      const call = LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(modelLayer({ baseUrl: server.url, model: "m" })),
        Effect.exit
      )
      const crashed = failureOf(yield* call)
      assert.strictEqual(crashed.reason._tag, "InternalProviderError")
      assert.include(crashed.message, "HTTP 500: model crashed")
      const htmlError = failureOf(yield* call)
      assert.strictEqual(htmlError.reason._tag, "InternalProviderError")
      assert.notInclude(htmlError.message, "secret-internal-host")
      const htmlOk = failureOf(yield* call)
      assert.strictEqual(htmlOk.reason._tag, "InvalidResponseError")
      assert.include(htmlOk.message, "HTML page")
      assert.notInclude(htmlOk.message, "secret-internal-host")
      const notACompletion = failureOf(yield* call)
      assert.strictEqual(notACompletion.reason._tag, "InvalidResponseError")
      assert.include(notACompletion.message, "not a chat completion")
    }).pipe(Effect.scoped))

  it.effect("a 429 with retry-after is a RateLimitError; a 401 an AuthenticationError", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([
        {
          status: 401,
          body: JSON.stringify({ error: { message: "Incorrect API key provided", code: "invalid_api_key" } })
        },
        { status: 429, body: JSON.stringify({ error: "slow down" }), headers: { "retry-after": "7" } }
      ])
      const call = LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(modelLayer({ baseUrl: server.url, model: "m", apiKey: "bad" })),
        Effect.exit
      )
      assert.strictEqual(failureOf(yield* call).reason._tag, "AuthenticationError")
      const limited = failureOf(yield* call)
      assert.strictEqual(limited.reason._tag, "RateLimitError")
      assert.strictEqual(limited.retryAfter?.toString(), "7000 millis")
    }).pipe(Effect.scoped))

  it.effect("a refused connection is a NetworkError", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.map(scriptedServer([]), (s) => s.url))
      // The server is closed: its port now refuses connections.
      const error = failureOf(
        yield* Effect.exit(
          LanguageModel.generateText({ prompt: "hi" }).pipe(
            Effect.provide(modelLayer({ baseUrl: url, model: "m" }))
          )
        )
      )
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, `${url}/v1/chat/completions`)
    }))

  // Live clock: the timeout must really elapse (it.effect's TestClock would never reach it).
  it.live("a server that never answers ends with a NetworkError at the timeout", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer(["hang"])
      const error = failureOf(
        yield* Effect.exit(
          LanguageModel.generateText({ prompt: "hi" }).pipe(
            Effect.provide(modelLayer({ baseUrl: server.url, model: "m", timeout: "300 millis" }))
          )
        )
      )
      assert.strictEqual(error.reason._tag, "NetworkError")
      // The timeout's failure, not a transport one: the server accepted the connection and kept it open.
      assert.include(error.message, "within 300")
    }).pipe(Effect.scoped))

  it.effect("tool arguments that are not JSON fail with InvalidOutputError", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([completion({
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "list_files", arguments: "{\"dir\":\"sr" } }]
      }, "length")])
      const error = failureOf(
        yield* Effect.exit(
          LanguageModel.generateText({ prompt: "hi", toolkit: Files }).pipe(
            Effect.provide(Layer.merge(modelLayer({ baseUrl: server.url, model: "m" }), FilesLayer))
          )
        )
      )
      assert.strictEqual(error.reason._tag, "InvalidOutputError")
    }).pipe(Effect.scoped))

  it.effect("bad options fail the layer with InvalidEffectAiOption and send nothing", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer([completion({ content: "never" }, "stop")])
      const cases: ReadonlyArray<readonly [string, OpenAiCompatibleOptions]> = [
        ["baseUrl", { baseUrl: "localhost:8080", model: "m" }],
        ["model", { baseUrl: server.url, model: " " }],
        ["maxTokens", { baseUrl: server.url, model: "m", maxTokens: 0 }],
        ["maxTokens", { baseUrl: server.url, model: "m", maxTokens: Number.NaN }],
        ["temperature", { baseUrl: server.url, model: "m", temperature: 3 }],
        ["timeout", { baseUrl: server.url, model: "m", timeout: -1 }]
      ]
      for (const [option, options] of cases) {
        const exit = yield* Effect.exit(
          LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(modelLayer(options)))
        )
        const error = Exit.findErrorOption(exit)
        assert.isTrue(error._tag === "Some" && error.value instanceof InvalidEffectAiOption)
        if (error._tag === "Some" && error.value instanceof InvalidEffectAiOption) {
          assert.strictEqual(error.value.option, option)
        }
      }
      assert.strictEqual(server.received.length, 0)
    }).pipe(Effect.scoped))
})
