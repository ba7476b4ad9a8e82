import { discoverWindow } from "@ctxkit/engine"
import type { DiscoverWindowOptions } from "@ctxkit/engine/DiscoverWindow"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import { closedPort, type Reply, type Routes, serve, type TestServer } from "./WindowServers.ts"
import {
  groqModels,
  html,
  liteLlmGroup,
  llamaModels,
  llamaProps,
  lmStudioV0Model,
  lmStudioV1Model,
  ollamaPsModel,
  ollamaShow,
  ollamaV1Models,
  openRouterModel,
  plainV1Models,
  vllmModels
} from "./WindowShapes.ts"

/** Starts a server with `routes`, runs discovery against it (options built from its address), and returns both. */
const discoverOn = (
  routes: Routes,
  options: (url: string) => Omit<DiscoverWindowOptions, "baseUrl"> & { readonly baseUrl?: string } = () => ({}),
  fallback?: Reply
) =>
  Effect.scoped(Effect.gen(function*() {
    const server: TestServer = yield* serve(routes, fallback)
    const answer = yield* discoverWindow({ baseUrl: server.url, ...options(server.url) })
    return { answer, asked: server.asked.map(({ method, path }) => `${method} ${path}`), server }
  })).pipe(Effect.provide(FetchHttpClient.layer))

const json = (body: unknown): Reply => ({ json: body })

describe("discoverWindow: each server kind", () => {
  it.effect("llama.cpp: GET /props default_generation_settings.n_ctx answers first", () =>
    Effect.gen(function*() {
      const { answer, asked } = yield* discoverOn({
        "GET /props": json(llamaProps(8192)),
        "GET /v1/models": json(llamaModels(4096))
      })
      assert.deepStrictEqual(answer, {
        window: 8192,
        source: "llama.cpp GET /props default_generation_settings.n_ctx",
        warnings: []
      })
      assert.deepStrictEqual(asked, ["GET /props"])
    }))

  it.effect("llama.cpp: GET /v1/models data[].meta.n_ctx when /props does not answer", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({ "GET /v1/models": json(llamaModels(16384)) })
      assert.strictEqual(answer.window, 16384)
      assert.strictEqual(
        answer.source,
        "llama.cpp GET /v1/models data[].meta.n_ctx (model \"/models/Qwen3-8B-Q4_K_M.gguf\")"
      )
      assert.deepStrictEqual(answer.warnings, [])
    }))

  it.effect("llama.cpp: the model as users write it (the file name) matches the -m path", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({ "GET /v1/models": json(llamaModels(16384)) }, () => ({
        model: "Qwen3-8B-Q4_K_M"
      }))
      assert.strictEqual(answer.window, 16384)
    }))

  it.effect("Ollama: GET /api/ps models[].context_length of the loaded model", () =>
    Effect.gen(function*() {
      const { answer, asked } = yield* discoverOn({
        "GET /api/ps": json({ models: [ollamaPsModel("llama3.1:8b", 4096)] }),
        "POST /api/show": json(ollamaShow({ parameters: "", contextLength: 131072 })),
        "GET /v1/models": json(ollamaV1Models(["llama3.1:8b"]))
      })
      assert.deepStrictEqual(answer, {
        window: 4096,
        source: "Ollama GET /api/ps models[].context_length (model \"llama3.1:8b\")",
        warnings: []
      })
      assert.isFalse(asked.includes("POST /api/show"))
    }))

  it.effect("Ollama: POST /api/show model_info[\"<arch>.context_length\"] for a model not loaded, with the caveat", () =>
    Effect.gen(function*() {
      const { answer, server } = yield* discoverOn({
        "GET /api/ps": json({ models: [] }),
        "POST /api/show": json(ollamaShow({ parameters: "stop \"<|eot_id|>\"", contextLength: 131072 })),
        "GET /v1/models": json(ollamaV1Models(["llama3.1:8b"]))
      }, () => ({ model: "llama3.1:8b" }))
      assert.strictEqual(answer.window, 131072)
      assert.strictEqual(
        answer.source,
        "Ollama POST /api/show model_info[\"llama.context_length\"] (model \"llama3.1:8b\")"
      )
      assert.lengthOf(answer.warnings, 1)
      assert.include(answer.warnings[0], "num_ctx")
      assert.deepStrictEqual(server.asked.find((a) => a.path === "/api/show")?.body, { model: "llama3.1:8b" })
    }))

  it.effect("Ollama: a num_ctx line in parameters wins over model_info", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /api/ps": json({ models: [] }),
        "POST /api/show": json(
          ollamaShow({
            parameters: "num_keep 24\nnum_ctx                        12288\nstop \"<|eot_id|>\"",
            contextLength: 131072
          })
        )
      }, () => ({ model: "llama3.1:8b" }))
      assert.deepStrictEqual(answer, {
        window: 12288,
        source: "Ollama POST /api/show parameters num_ctx (model \"llama3.1:8b\")",
        warnings: []
      })
    }))

  it.effect("Ollama: with two models loaded, `model` picks one", () =>
    Effect.gen(function*() {
      const routes = {
        "GET /api/ps": json({ models: [ollamaPsModel("qwen3:8b", 32768), ollamaPsModel("llama3.1:latest", 8192)] })
      }
      const picked = yield* discoverOn(routes, () => ({ model: "llama3.1" }))
      assert.strictEqual(picked.answer.window, 8192)
      assert.include(picked.answer.source, "\"llama3.1:latest\"")
      const unnamed = yield* discoverOn(routes)
      assert.strictEqual(unnamed.answer.window, 8192)
      assert.include(unnamed.answer.warnings[0], "pass `model`")
    }))

  it.effect("vLLM: GET /v1/models data[].max_model_len of the named model", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /v1/models": json(vllmModels([["meta-llama/Llama-3.1-8B-Instruct", 32768], ["Qwen/Qwen3-32B", 40960]]))
      }, () => ({ model: "Qwen/Qwen3-32B" }))
      assert.deepStrictEqual(answer, {
        window: 40960,
        source: "vLLM GET /v1/models data[].max_model_len (model \"Qwen/Qwen3-32B\")",
        warnings: []
      })
    }))

  it.effect("OpenRouter: GET /api/v1/models data[].context_length, base URL given as .../api/v1", () =>
    Effect.gen(function*() {
      const { answer, asked } = yield* discoverOn(
        {
          "GET /api/v1/models": json({
            data: [
              openRouterModel("openai/gpt-4o", 128000, 16384),
              openRouterModel("anthropic/claude-sonnet-4", 200000, 64000),
              openRouterModel("meta-llama/llama-3.1-8b-instruct", 131072, 16384)
            ]
          })
        },
        (url) => ({ baseUrl: `${url}/api/v1`, model: "anthropic/claude-sonnet-4" }),
        { text: "Not Found", contentType: "text/html", status: 404 }
      )
      assert.deepStrictEqual(answer, {
        window: 200000,
        source: "OpenRouter GET /api/v1/models data[].context_length (model \"anthropic/claude-sonnet-4\")",
        warnings: []
      })
      assert.include(asked, "GET /api/v1/models")
    }))

  it.effect("LM Studio 0.3: GET /api/v0/models max_context_length of the loaded model, with the caveat", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /api/v0/models": json({
          object: "list",
          data: [
            lmStudioV0Model("qwen2-vl-7b-instruct", "not-loaded", 32768),
            lmStudioV0Model("meta-llama-3.1-8b-instruct", "loaded", 131072)
          ]
        }),
        "GET /v1/models": json(
          plainV1Models(["qwen2-vl-7b-instruct", "meta-llama-3.1-8b-instruct"], "organization_owner")
        )
      })
      assert.strictEqual(answer.window, 131072)
      assert.strictEqual(
        answer.source,
        "LM Studio GET /api/v0/models data[].max_context_length (model \"meta-llama-3.1-8b-instruct\")"
      )
      assert.include(answer.warnings.join("\n"), "loaded with")
    }))

  it.effect("LM Studio 0.4: GET /api/v1/models a loaded instance's own config.context_length", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /api/v1/models": json({
          models: [lmStudioV1Model("qwen/qwen3-8b", 40960, [16384]), lmStudioV1Model("google/gemma-3-4b", 131072, [])]
        })
      })
      assert.deepStrictEqual(answer, {
        window: 16384,
        source:
          "LM Studio GET /api/v1/models models[].loaded_instances[].config.context_length (model \"qwen/qwen3-8b\")",
        warnings: []
      })
    }))

  it.effect("LiteLLM: GET /model_group/info data[].max_input_tokens of the model group", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /model_group/info": json({
          data: [liteLlmGroup("gpt-4o", 128000, 16384), liteLlmGroup("claude-sonnet", 200000.0, 64000.0)]
        }),
        "GET /v1/models": json(plainV1Models(["gpt-4o", "claude-sonnet"], "openai"))
      }, () => ({ model: "claude-sonnet" }))
      assert.deepStrictEqual(answer, {
        window: 200000,
        source: "LiteLLM GET /model_group/info data[].max_input_tokens (model \"claude-sonnet\")",
        warnings: []
      })
    }))

  it.effect("any OpenAI-compatible catalog: context_window (Groq's shape) under a path prefix", () =>
    Effect.gen(function*() {
      const { answer } = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serve({
          "GET /openai/v1/models": json(groqModels([["llama-3.1-8b-instant", 131072], ["qwen/qwen3-32b", 131072]]))
        })
        return { answer: yield* discoverWindow({ baseUrl: `${server.url}/openai/v1`, model: "qwen/qwen3-32b" }) }
      })).pipe(Effect.provide(FetchHttpClient.layer))
      assert.deepStrictEqual(answer, {
        window: 131072,
        source: "OpenAI-compatible GET /v1/models data[].context_window (model \"qwen/qwen3-32b\")",
        warnings: []
      })
    }))
})

describe("discoverWindow: what goes wrong is a warning", () => {
  // Timeouts run on the real clock: `it.effect`'s TestClock never advances on its own.
  it.live("a server that hangs on every request: the whole discovery is bounded by `timeout`", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({}, () => ({ timeout: "300 millis" }), "hang")
      assert.isUndefined(answer.window)
      assert.strictEqual(answer.source, "none")
      assert.include(answer.warnings.at(-1), "gave up after 300ms")
    }))

  it.live("each request is bounded by `requestTimeout`, and the next server still answers", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /props": "hang",
        "GET /v1/models": json(vllmModels([["m", 8192]]))
      }, () => ({ requestTimeout: "3 seconds" }))
      assert.strictEqual(answer.window, 8192)
      assert.deepStrictEqual(answer.warnings, [])
    }))

  it.effect("a refused connection: one warning, no more requests", () =>
    Effect.gen(function*() {
      const url = yield* closedPort
      const answer = yield* discoverWindow({ baseUrl: url }).pipe(Effect.provide(FetchHttpClient.layer))
      assert.isUndefined(answer.window)
      assert.include(answer.warnings[0], `could not reach ${url}`)
      assert.include(answer.warnings[0], "is the server running")
      assert.lengthOf(answer.warnings, 2)
    }))

  it.effect("HTML on every path (a web UI, a login page)", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({}, () => ({}), html)
      assert.isUndefined(answer.window)
      assert.include(answer.warnings.join("\n"), "GET /props: answered text/html; charset=utf-8 that is not JSON")
      assert.include(answer.warnings.at(-1), "the window is unknown")
    }))

  it.effect("404 everywhere: each request said, then unknown", () =>
    Effect.gen(function*() {
      const { answer, asked } = yield* discoverOn({})
      assert.isUndefined(answer.window)
      assert.include(answer.warnings, "GET /props: HTTP 404")
      assert.include(answer.warnings, "GET /model_group/info: HTTP 404")
      // Shared GETs are asked once: /v1/models serves three readers.
      assert.strictEqual(asked.filter((a) => a === "GET /v1/models").length, 1)
      // Ollama's /api/show is only asked of a server that answered /api/ps like Ollama.
      assert.isFalse(asked.includes("POST /api/show"))
    }))

  it.effect("an absurd window is reported and not trusted; a later server's sane window answers", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /props": json(llamaProps(10_000_000)),
        "GET /model_group/info": json({ data: [liteLlmGroup("gpt-4o", 128000, 16384)] })
      })
      assert.strictEqual(answer.window, 128000)
      assert.deepStrictEqual(answer.warnings, [
        "llama.cpp GET /props reports default_generation_settings.n_ctx = 10000000: above the 2,000,000-token trust limit, so not trusted"
      ])
    }))

  it.effect("zero, negative, null and non-number windows leave the window unknown", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /props": json(llamaProps(0)),
        "GET /v1/models": json(vllmModels([["a", -1], ["b", "8192"], ["c", null]])),
        "GET /model_group/info": json({ data: [liteLlmGroup("gpt-4o", null, null)] })
      })
      assert.isUndefined(answer.window)
      const said = answer.warnings.join("\n")
      assert.include(said, "n_ctx = 0: not a positive number of tokens")
      assert.include(said, "max_model_len = -1 for \"a\": not a positive number of tokens")
      assert.include(said, "max_model_len = \"8192\" for \"b\": not a number of tokens")
    }))

  it.effect("a model the server does not list: said, never another model's window", () =>
    Effect.gen(function*() {
      const { answer } = yield* discoverOn({
        "GET /v1/models": json(vllmModels([["meta-llama/Llama-3.1-8B-Instruct", 32768]]))
      }, () => ({ model: "Qwen/Qwen3-32B" }))
      assert.isUndefined(answer.window)
      assert.include(answer.warnings.join("\n"), "does not list model \"Qwen/Qwen3-32B\"")
    }))

  it.effect("the apiKey is sent as a bearer token and never appears in the answer", () =>
    Effect.gen(function*() {
      const secret = "sk-test-8f2c1d9e"
      const { answer, server } = yield* discoverOn({
        "GET /props": { status: 401, json: { error: { message: `bad key ${secret}` } } },
        "GET /model_group/info": json({ data: [liteLlmGroup("gpt-4o", 128000, 16384)] })
      }, () => ({ apiKey: secret }))
      assert.strictEqual(answer.window, 128000)
      assert.isTrue(server.asked.every((a) => a.authorization === `Bearer ${secret}`))
      assert.notInclude(JSON.stringify(answer), secret)
    }))

  it.effect("bad options: a bad baseUrl asks nothing; a bad timeout uses the default with a warning", () =>
    Effect.gen(function*() {
      const noUrl = yield* discoverWindow({ baseUrl: "localhost:8080" }).pipe(Effect.provide(FetchHttpClient.layer))
      assert.deepStrictEqual(noUrl.window, undefined)
      assert.include(noUrl.warnings[0], "option baseUrl = \"localhost:8080\" is not an http(s) address")
      const { answer } = yield* discoverOn(
        { "GET /props": json(llamaProps(4096)) },
        () => ({ timeout: -5, model: 42 as unknown as string })
      )
      assert.strictEqual(answer.window, 4096)
      assert.include(answer.warnings[0], "option model = 42 is not a model name")
      assert.include(answer.warnings[1], "option timeout = -5 is not a positive finite duration")
      assert.include(answer.warnings[1], "used the default, 30s")
    }))
})
