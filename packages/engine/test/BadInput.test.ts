import { Summarizer } from "@ctxkit/compaction"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import { AiError } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  ContextEngine,
  ContextEvents,
  type EngineOptions,
  SessionStore,
  SessionStoreError,
  TokenCounter
} from "../src/index.ts"
import { readProviderError } from "../src/ProviderError.ts"

const okSummarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"g\"}}", finishReason: "stop" })
  })
)

const failureTag = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  return reason?._tag === "Fail" ? (reason.error as { readonly _tag?: string })._tag : "defect"
}

const withEngine = <A, E>(
  options: EngineOptions<Message>,
  program: Effect.Effect<A, E, ContextEngine | SessionStore>,
  extra: {
    readonly summarizer?: Layer.Layer<Summarizer>
    readonly counter?: Layer.Layer<TokenCounter>
    readonly store?: Layer.Layer<SessionStore>
    readonly events?: Layer.Layer<ContextEvents>
  } = {}
) => {
  const store = extra.store ?? SessionStore.layerMemory
  const deps = Layer.mergeAll(
    store,
    extra.summarizer ?? okSummarizer,
    extra.counter ?? TokenCounter.layerApproximate,
    extra.events ?? ContextEvents.layerNoop
  )
  const engine = ContextEngine.layer(options).pipe(Layer.provide(deps))
  return Effect.runPromise(program.pipe(Effect.provide(Layer.merge(engine, store))))
}

const canonical = { format: formats.canonical, window: 4096, maxTokens: 512 } as const

const prepare = (session: string, append: ReadonlyArray<Message>) =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    return yield* engine.prepare({ session, append })
  })

describe("bad input", () => {
  it("an unknown session with nothing to append is UnknownSession", async () => {
    const exit = await withEngine(canonical, Effect.exit(prepare("nobody", [])))
    assert.strictEqual(failureTag(exit), "UnknownSession")
  })

  it("messages in another format are refused with InvalidAppend, and nothing is stored", async () => {
    const out = await withEngine(
      // The caller's messages are OpenAI-style, the engine reads Anthropic's.
      { format: formats.anthropic as unknown as MessageFormat<Message>, window: 4096 },
      Effect.gen(function*() {
        const exit = yield* Effect.exit(prepare("s", [{ role: "tool", toolCallId: "c1", content: "x" }]))
        const store = yield* SessionStore
        return { exit, stored: yield* store.load("s") }
      })
    )
    assert.strictEqual(failureTag(out.exit), "InvalidAppend")
    assert.isTrue(Option.isNone(out.stored))
    assert.include(JSON.stringify(out.exit), "anthropic")
  })

  it("a counter that throws is TokenCounterFailed naming the counter, and nothing is appended", async () => {
    const throwing = TokenCounter.layer({
      id: "broken",
      approximate: false,
      count: () => {
        throw new Error("vocabulary missing")
      }
    })
    const exit = await withEngine(canonical, Effect.exit(prepare("s", [{ role: "user", content: "hi" }])), {
      counter: throwing
    })
    assert.strictEqual(failureTag(exit), "TokenCounterFailed")
    assert.include(JSON.stringify(exit), "broken")
  })

  it("an effectful counter is asked once per new text, and its failure is typed", async () => {
    const asked: Array<string> = []
    const counter = TokenCounter.layerEffect({
      id: "server:/tokenize",
      count: (text: string) => Effect.sync(() => (asked.push(text), Math.ceil(text.length / 3)))
    })
    await withEngine(
      canonical,
      Effect.gen(function*() {
        yield* prepare("s", [{ role: "user", content: "first request" }])
        yield* prepare("s", [{ role: "assistant", content: "answer" }, { role: "user", content: "second" }])
      }),
      { counter }
    )
    assert.deepStrictEqual(asked, ["first request", "answer", "second"])
    const failing = TokenCounter.layerEffect({
      id: "server:/tokenize",
      count: () => Effect.fail("connection refused")
    })
    const exit = await withEngine(canonical, Effect.exit(prepare("s", [{ role: "user", content: "x" }])), {
      counter: failing
    })
    assert.strictEqual(failureTag(exit), "TokenCounterFailed")
  })

  it("a summarizer that hangs times out: compaction skipped with an event, nothing lost", async () => {
    const hanging = Layer.succeed(Summarizer, Summarizer.of({ summarize: () => Effect.never }))
    const out = await withEngine(
      { ...canonical, compaction: { timeoutMillis: 20 } },
      Effect.gen(function*() {
        const appended: Array<Message> = [{ role: "system", content: "sys" }, { role: "user", content: "start" }]
        yield* prepare("s", appended)
        let result
        const events: Array<unknown> = []
        for (let i = 0; i < 14; i++) {
          const turn: ReadonlyArray<Message> = [
            { role: "assistant", content: `step ${i} `.repeat(200) },
            { role: "user", content: `go on ${i}` }
          ]
          appended.push(...turn)
          result = yield* prepare("s", turn)
          events.push(...result.events)
        }
        const store = yield* SessionStore
        return { result, events, appended, state: Option.getOrThrow(yield* store.load("s")) }
      }),
      { summarizer: hanging }
    )
    const failed = out.events.find((e) => (e as { readonly type: string }).type === "compaction_failed")
    assert.isDefined(failed)
    assert.include(JSON.stringify(failed), "compaction.timeoutMillis")
    assert.strictEqual(out.state.checkpoints.length, 0)
    assert.deepStrictEqual(out.state.transcript.map((e) => e.message), out.appended)
    assert.isTrue((out.result?.tokens ?? Infinity) <= (out.result?.budget ?? 0))
  })

  it("a store that fails is SessionStoreError, and the session stays as it was", async () => {
    let fail = false
    const flaky = Layer.effect(
      SessionStore,
      Effect.gen(function*() {
        const inner = yield* Effect.provide(
          Effect.gen(function*() {
            return yield* SessionStore
          }),
          SessionStore.layerMemory
        )
        return SessionStore.of({
          ...inner,
          apply: (session, patch) =>
            fail
              ? Effect.fail(new SessionStoreError({ session, operation: "apply", error: "disk full" }))
              : inner.apply(session, patch)
        })
      })
    )
    const out = await withEngine(
      canonical,
      Effect.gen(function*() {
        yield* prepare("s", [{ role: "user", content: "one" }])
        const store = yield* SessionStore
        const before = Option.getOrThrow(yield* store.load("s"))
        fail = true
        const exit = yield* Effect.exit(
          prepare("s", [{ role: "assistant", content: "a" }, { role: "user", content: "two" }])
        )
        const after = Option.getOrThrow(yield* store.load("s"))
        return { before, after, exit }
      }),
      { store: flaky }
    )
    assert.strictEqual(failureTag(out.exit), "SessionStoreError")
    assert.include(JSON.stringify(out.exit), "disk full")
    assert.strictEqual(out.after, out.before)
  })

  it("bad options fail the layer with InvalidEngineOptions naming the option", async () => {
    for (
      const [options, option] of [
        [{ window: -1 }, "window"],
        [{ maxTokens: Number.NaN }, "maxTokens"],
        [{ preset: "fastest" as never }, "preset"],
        [{ clearing: { clearAt: 0.95, keepToolResults: 6 } }, "clearing.clearAt"]
      ] as const
    ) {
      const exit = await Effect.runPromise(
        Effect.exit(
          Effect.gen(function*() {
            return yield* ContextEngine
          }).pipe(
            Effect.provide(ContextEngine.layer(options).pipe(Layer.provide([SessionStore.layerMemory, okSummarizer])))
          )
        )
      )
      assert.strictEqual(failureTag(exit), "InvalidEngineOptions")
      assert.include(JSON.stringify(exit), option)
    }
  })
})

describe("provider errors", () => {
  it("reads llama.cpp, OpenAI, Anthropic and vLLM over-window errors, in every shape", () => {
    const llama = {
      error: { code: 400, type: "exceed_context_size_error", n_prompt_tokens: 5000, n_ctx: 4096, message: "m" }
    }
    assert.deepInclude(readProviderError(llama), {
      overWindow: true,
      provider: "llama.cpp",
      window: 4096,
      promptTokens: 5000
    })
    assert.deepInclude(readProviderError({ status: 400, body: JSON.stringify(llama) }), { window: 4096 })
    const openai = {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        type: "invalid_request_error",
        code: "context_length_exceeded"
      }
    }
    assert.deepInclude(readProviderError({ status: 400, body: openai }), {
      overWindow: true,
      provider: "openai",
      window: 8192
    })
    const anthropic = {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" }
    }
    assert.deepInclude(readProviderError(anthropic), { overWindow: true, provider: "anthropic", window: 200_000 })
    const vllm = {
      object: "error",
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages.",
      type: "BadRequestError",
      code: 400
    }
    assert.deepInclude(readProviderError({ status: 400, body: vllm }), {
      overWindow: true,
      provider: "vllm",
      window: 4096
    })
    const ai = new AiError.AiError({
      module: "OpenAiCompatible",
      method: "generateText",
      reason: new AiError.InvalidRequestError({
        description: "request rejected",
        http: { response: { status: 400, headers: {} }, body: JSON.stringify(llama) }
      })
    })
    assert.deepInclude(readProviderError(ai), { overWindow: true, window: 4096 })
    // OpenAiCompatible keeps no body, only the error's fields in metadata.openai.
    const bodiless = new AiError.AiError({
      module: "OpenAiCompatible",
      method: "generateText",
      reason: new AiError.InvalidRequestError({
        description: "HTTP 400: request (5000 tokens) exceeds the available context size (4096 tokens)",
        metadata: {
          openai: {
            status: 400,
            errorCode: "400",
            errorType: "exceed_context_size_error",
            nPromptTokens: 5000,
            nCtx: 4096
          }
        },
        http: { response: { status: 400, headers: {} } }
      })
    })
    assert.deepInclude(readProviderError(bodiless), {
      overWindow: true,
      provider: "llama.cpp",
      window: 4096,
      promptTokens: 5000
    })
    assert.deepInclude(readProviderError({ status: 429, body: { error: { message: "slow down" } } }), {
      overWindow: false,
      code: "rate_limited"
    })
  })
})
