import { reserve } from "@ctxkit/budget"
import { formats } from "@ctxkit/core"
import { ContextLanguageModel, InvalidEffectAiOption, OpenAiCompatible } from "@ctxkit/effect-ai"
import { ContextEngine, SessionStore, Summarizer } from "@ctxkit/engine"
import { ollamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
import { keysReply, tutorialConversation, tutorialKeys, tutorialServer } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import { AiError, LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { chatServer, type ChatServerOptions, type Scripted, type WireMessage, wireSplitsAPair } from "./ChatServers.ts"

const ReadFile = Tool.make("read_file", {
  description: "Read a file",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String
})
const Files = Toolkit.make(ReadFile)

/** A file of `lines` lines; every handler call is counted in `reads`. */
const filesLayer = (reads: Array<string>, lines = 40) =>
  Files.toLayer(Files.of({
    read_file: ({ path }) =>
      Effect.sync(() => {
        reads.push(path)
        return Array.from({ length: lines }, (_, i) => `// ${path} line ${i}: const value${i} = ${i * 7}`).join("\n")
      })
  }))

interface Setup {
  readonly window?: number
  readonly maxTokens?: number
  readonly session?: string
}

/** The wrapped model over a server at `baseUrl`, with an in-memory engine (the tutorial preset) and its store. */
const modelLayer = (baseUrl: string, setup: Setup = {}) => {
  const store = SessionStore.layerMemory
  const engine = ContextEngine.layer({
    format: formats.effectAi,
    preset: "tutorial",
    maxTokens: setup.maxTokens ?? 512,
    ...(setup.window === undefined ? {} : { window: setup.window })
  }).pipe(Layer.provide(Summarizer.layerExtractive))
  const inner = OpenAiCompatible.layer({ baseUrl, model: "scripted", maxTokens: 2_000 }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
  return ContextLanguageModel.layer(setup.session === undefined ? {} : { session: setup.session }).pipe(
    Layer.provide(inner),
    Layer.provideMerge(engine),
    Layer.provideMerge(store)
  )
}

/** Runs `program` with a server of `options` and the wrapped model over it. */
const withServer = <A, E>(
  options: ChatServerOptions,
  setup: Setup,
  program: (
    served: ReadonlyArray<
      { readonly messages: ReadonlyArray<WireMessage>; readonly maxTokens: number | undefined; readonly tokens: number }
    >
  ) => Effect.Effect<A, E, LanguageModel.LanguageModel | SessionStore>
): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const server = yield* chatServer(options)
    return yield* program(server.served).pipe(Effect.provide(modelLayer(server.baseUrl, setup)))
  })) as Effect.Effect<A, E>)

/** The error a failed exit failed with (the test fails on a success or a defect). */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  const error = Exit.findErrorOption(exit)
  if (Option.isNone(error)) {
    throw new Error(`expected a typed failure, got ${Exit.isSuccess(exit) ? "a success" : "a defect"}`)
  }
  return error.value
}

const SYSTEM = "You are a careful reviewer. The system key is ORCA-1618."

/** Replies with a read_file call for `turns` turns, then answers. */
const reader = (turns: number) => (_messages: ReadonlyArray<WireMessage>, served: number): Scripted =>
  served <= turns
    ? { toolCalls: [{ id: `call_${served}`, name: "read_file", arguments: { path: `src/f${served}.ts` } }] }
    : { content: "All files read." }

describe("ContextLanguageModel: the engine around every LanguageModel call", () => {
  it("appends only what is new, sends the fitted prompt with the reserve as max_tokens, and runs the tools", async () => {
    const reads: Array<string> = []
    const { answer, transcript, served } = await withServer(
      { kind: "honest", reply: reader(12) },
      { window: 4_096, maxTokens: 512 },
      (served) =>
        Effect.gen(function*() {
          let history = Prompt.make([{ role: "system", content: SYSTEM }, { role: "user", content: "Read the files." }])
          for (let step = 0; step < 20; step++) {
            const response = yield* LanguageModel.generateText({ prompt: history, toolkit: Files })
            history = Prompt.concat(history, Prompt.fromResponseParts(response.content))
            if (response.toolCalls.length === 0) {
              const store = yield* SessionStore
              const state = yield* store.load("default")
              return {
                answer: response.text,
                transcript: Option.getOrThrow(state).transcript.length,
                served,
                history: history.content.length
              }
            }
          }
          throw new Error("no answer")
        }).pipe(Effect.provide(filesLayer(reads)))
    )
    assert.strictEqual(answer, "All files read.")
    assert.strictEqual(reads.length, 12, "every tool call was run once")
    // system + task + 12 × (call, result): each message appended once, never again.
    assert.strictEqual(transcript, 2 + 12 * 2)
    assert.strictEqual(served.length, 13)
    for (const request of served) {
      assert.strictEqual(request.maxTokens, reserve(4_096, 512), "max_tokens is the engine's reserve")
      assert.strictEqual(request.messages[0]?.content, SYSTEM, "the system prompt is kept first")
      assert.isFalse(wireSplitsAPair(request.messages), "no call is sent without its result")
      // The task is sent as it was, or inside the checkpoint that replaced it (its goal).
      assert.isTrue(request.messages.some((m) => m.role === "user" && (m.content ?? "").includes("Read the files.")))
    }
    // Twelve 40-line results outgrow 4,096 tokens: the later requests were fitted (cleared or compacted).
    const last = served.at(-1)
    assert.isTrue(last !== undefined && last.tokens < 4_096 - reserve(4_096, 512) + 200)
    assert.isTrue(served.some((r) => r.messages.some((m) => (m.content ?? "").startsWith("[Checkpoint of"))))
  })

  it("an over-window 400 (llama.cpp) fails with context_overflow and its fix; the learned window fits the next call", async () => {
    const result = await withServer(
      { kind: "llama.cpp", window: 1_500, reply: () => ({ content: "Here is the answer." }) },
      { window: 32_768, maxTokens: 256 },
      (served) =>
        Effect.gen(function*() {
          const notes = Array.from({ length: 10 }, (_, i) => ({
            role: "user" as const,
            content: `Note ${i}: ${"the meeting moved the release by one week and kept the scope. ".repeat(12)}`
          }))
          const history = Prompt.make([
            { role: "system", content: SYSTEM },
            ...notes.flatMap((note) => [note, { role: "assistant" as const, content: "Understood." }]),
            { role: "user", content: "Reply with the system key." }
          ])
          const first = yield* Effect.exit(LanguageModel.generateText({ prompt: history }))
          const second = yield* LanguageModel.generateText({ prompt: history })
          return { first, second: second.text, served }
        })
    )
    const error = failureOf(result.first)
    assert.isTrue(AiError.isAiError(error))
    const overflow = ContextLanguageModel.overflowOf(error)
    assert.strictEqual(overflow?.reason, "context_overflow")
    assert.include(overflow?.message ?? "", "1500")
    assert.include(error.message, "context window")
    assert.strictEqual(result.second, "Here is the answer.")
    assert.strictEqual(result.served.length, 2)
    const [rejected, fitted] = result.served
    assert.isTrue((rejected?.tokens ?? 0) > 1_500)
    assert.isTrue((fitted?.tokens ?? Infinity) <= 1_500, `fitted to the learned window: ${fitted?.tokens}`)
    assert.strictEqual(fitted?.maxTokens, reserve(1_500, 256))
  })

  it("a prompt that does not continue the session fails with InvalidUserInputError, and nothing is sent", async () => {
    const { exit, served } = await withServer({ kind: "honest" }, {}, (served) =>
      Effect.gen(function*() {
        yield* LanguageModel.generateText({
          prompt: [{ role: "system", content: SYSTEM }, { role: "user", content: "a" }]
        })
        const exit = yield* Effect.exit(
          LanguageModel.generateText({
            prompt: [{ role: "system", content: "Another prompt." }, { role: "user", content: "b" }]
          })
        )
        return { exit, served: served.length }
      }))
    const error = failureOf(exit)
    assert.strictEqual(error.reason._tag, "InvalidUserInputError")
    assert.include(error.message, "withSession")
    assert.strictEqual(served, 1)
  })

  it("withSession keeps conversations apart: the same prompt starts each session", async () => {
    const served = await withServer({ kind: "honest" }, {}, (served) =>
      Effect.gen(function*() {
        const prompt = Prompt.make([{ role: "system", content: SYSTEM }, { role: "user", content: "hi" }])
        yield* LanguageModel.generateText({ prompt }).pipe(ContextLanguageModel.withSession("a"))
        yield* LanguageModel.generateText({ prompt: Prompt.make([{ role: "user", content: "other" }]) }).pipe(
          ContextLanguageModel.withSession("b")
        )
        yield* LanguageModel.generateText({ prompt }).pipe(ContextLanguageModel.withSession("a"))
        return served.map((r) => r.messages.map((m) => m.content))
      }))
    assert.deepStrictEqual(served, [[SYSTEM, "hi"], ["other"], [SYSTEM, "hi"]])
  })

  it("streamText is served by one whole call, observed before any part is emitted", async () => {
    const text = await withServer(
      { kind: "honest", reply: () => ({ content: "streamed answer" }) },
      {},
      () =>
        LanguageModel.streamText({ prompt: "Say something." }).pipe(
          Stream.runCollect,
          Effect.map((parts) => parts.flatMap((p) => p.type === "text-delta" ? [p.delta] : []).join(""))
        )
    )
    assert.strictEqual(text, "streamed answer")
  })

  it("refuses a bad session option with InvalidEffectAiOption", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function*() {
        const inner = yield* LanguageModel.LanguageModel
        return yield* ContextLanguageModel.make(inner, { session: "" })
      }).pipe(
        Effect.provide(OpenAiCompatible.layer({ baseUrl: "http://127.0.0.1:9", model: "m" })),
        Effect.provide(FetchHttpClient.layer),
        Effect.provide(
          ContextEngine.layer({ format: formats.effectAi }).pipe(
            Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive])
          )
        )
      )
    )
    const error = failureOf(exit)
    assert.instanceOf(error, InvalidEffectAiOption)
    assert.include(error.message, "session")
  })
})

/** The tutorial's conversation as effect/ai messages, and its user messages in order. */
const tutorialText = (i: number): string => {
  const content = tutorialConversation[i]?.content
  return typeof content === "string" ? content : ""
}
const tutorialUsers = tutorialConversation.flatMap((m, i) => m.role === "user" ? [tutorialText(i)] : [])

/**
 * Replays the tutorial's conversation turn by turn through the wrapped model against the scripted Ollama-like
 * server in `mode`, the harness believing a 32,768-token window; returns the outcome of each turn and the server.
 */
const replayTutorial = (mode: "plateau" | "collapse", extraTurns = 0) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const server = yield* ollamaLikeServer({ ...tutorialServer, mode, reply: (kept) => keysReply(kept) })
    const outcomes: Array<string> = []
    const program = Effect.gen(function*() {
      let history = Prompt.make([{ role: "system", content: tutorialText(0) }])
      for (
        const user of [
          ...tutorialUsers,
          ...Array.from({ length: extraTurns }, () => "Reply with the task and system keys.")
        ]
      ) {
        history = Prompt.concat(history, Prompt.make([{ role: "user", content: user }]))
        const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: history }))
        if (Exit.isSuccess(exit)) {
          outcomes.push(exit.value.text)
          history = Prompt.concat(history, Prompt.fromResponseParts(exit.value.content))
        } else {
          const overflow = ContextLanguageModel.overflowOf(failureOf(exit))
          outcomes.push(overflow === undefined ? "error" : `context_overflow: ${overflow.message}`)
        }
      }
    })
    yield* program.pipe(Effect.provide(modelLayer(server.baseUrl, { window: 32_768, maxTokens: 256 })))
    return { outcomes, requests: server.requests }
  })))

describe("ContextLanguageModel against the scripted Ollama-like server (the tutorial's conversation)", () => {
  for (const mode of ["plateau", "collapse"] as const) {
    it(`${mode}: the first truncated turn fails with context_overflow and the fix, never a keys answer without the task`, async () => {
      const { outcomes, requests } = await replayTutorial(mode)
      const first = requests.findIndex((r) => r.truncated)
      assert.isTrue(first > 0, "the conversation outgrows the server's 4,096 tokens")
      assert.isTrue(requests.slice(0, first).every((r) => !r.truncated))
      assert.match(outcomes[first] ?? "", /^context_overflow: The server silently dropped part of the prompt/)
      assert.include(outcomes[first] ?? "", "Set the real context window")
      // No answer from a truncated prompt was ever returned: the only keys answer names both keys.
      for (const [i, outcome] of outcomes.entries()) {
        if (requests[i]?.truncated === true) assert.match(outcome, /^context_overflow/)
        if (outcome.includes(tutorialKeys.system)) assert.include(outcome, tutorialKeys.task)
      }
    })
  }

  it("plateau: the window the truncation shows is learned, and the next requests fit the server", async () => {
    const { outcomes, requests } = await replayTutorial("plateau", 1)
    const first = requests.findIndex((r) => r.truncated)
    assert.isTrue(first > 0)
    // After the overflow, every request is fitted to the learned window: the server drops nothing more.
    assert.isTrue(
      requests.slice(first + 1).every((r) => !r.truncated),
      JSON.stringify(requests.map((r) => r.truncated))
    )
    assert.isTrue(requests.length > first + 1)
    assert.notMatch(outcomes.at(-1) ?? "", /^context_overflow/)
  })
})

describe("ContextLanguageModel laws over generated sessions", () => {
  /** A session: per turn, a user note of some size, or a tool call answered by a result of some size. */
  const session = fc.array(
    fc.record({ kind: fc.constantFrom("note", "tool"), size: fc.integer({ min: 1, max: 120 }) }),
    { minLength: 2, maxLength: 10 }
  )

  it("L15: every request keeps the system prompt and the current request, pair-valid, within window − reserve, max_tokens = reserve", async () => {
    await fc.assert(
      fc.asyncProperty(session, fc.constantFrom(2_048, 4_096), async (turns, window) => {
        const replies = turns.map((t, i): Scripted =>
          t.kind === "tool"
            ? { toolCalls: [{ id: `c${i}`, name: "read_file", arguments: { path: `f${i}.ts` } }] }
            : { content: `Noted ${i}.` }
        )
        const reads: Array<string> = []
        const served = await withServer(
          { kind: "honest", reply: (_m, n) => replies[n - 1] ?? { content: "done" } },
          { window, maxTokens: 512 },
          (served) =>
            Effect.gen(function*() {
              let history = Prompt.make([{ role: "system", content: SYSTEM }])
              for (const [i, turn] of turns.entries()) {
                history = Prompt.concat(
                  history,
                  Prompt.make([{ role: "user", content: `Turn ${i}: ${"words ".repeat(turn.size * 4)}` }])
                )
                const response = yield* LanguageModel.generateText({ prompt: history, toolkit: Files })
                history = Prompt.concat(history, Prompt.fromResponseParts(response.content))
              }
              return served
            }).pipe(Effect.provide(filesLayer(reads, 30)))
        )
        for (const [i, request] of served.entries()) {
          assert.strictEqual(request.messages[0]?.content, SYSTEM)
          assert.isTrue(request.messages.some((m) => m.role === "user" && (m.content ?? "").startsWith(`Turn ${i}:`)))
          assert.isFalse(wireSplitsAPair(request.messages))
          assert.strictEqual(request.maxTokens, reserve(window, 512))
          // The servers count like the engine's approximate counter, give or take the wire's framing.
          assert.isTrue(request.tokens <= window - reserve(window, 512) + 64, `${request.tokens} within ${window}`)
        }
      }),
      { numRuns: runs.fewest }
    )
  })

  it("L17: a truncated response never becomes an answer, never runs a tool, never reaches a later request", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 3, max: 7 }), async (truncateAt) => {
        const reads: Array<string> = []
        /** Honest until `truncateAt`, then it drops everything but the system prompt and the last message. */
        const served = await withServer(
          {
            kind: "honest",
            // From `truncateAt` on, a plateau: the report stops growing while the prompt grows by ~750 a turn.
            report: (tokens, n) => n >= truncateAt ? 1_000 : tokens,
            reply: (_m, n) =>
              n === truncateAt
                ? {
                  content: "DISCARDED-REPLY",
                  toolCalls: [{ id: "x", name: "read_file", arguments: { path: "secret" } }]
                }
                : { content: `reply ${n}` }
          },
          { window: 32_768 },
          (served) =>
            Effect.gen(function*() {
              let history = Prompt.make([{ role: "system", content: SYSTEM }])
              const outcomes: Array<string> = []
              for (let turn = 1; turn <= truncateAt + 1; turn++) {
                history = Prompt.concat(
                  history,
                  Prompt.make([{ role: "user", content: `Note ${turn}: ${"text ".repeat(600)}` }])
                )
                const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: history, toolkit: Files }))
                if (Exit.isSuccess(exit)) {
                  history = Prompt.concat(history, Prompt.fromResponseParts(exit.value.content))
                  outcomes.push(exit.value.text)
                } else outcomes.push(ContextLanguageModel.overflowOf(failureOf(exit))?.reason ?? "other error")
              }
              return { outcomes, served }
            }).pipe(Effect.provide(filesLayer(reads)))
        )
        assert.deepStrictEqual(reads, [], "no handler ran for the truncated response")
        assert.strictEqual(served.outcomes[truncateAt - 1], "context_overflow")
        assert.notInclude(served.outcomes.join(" "), "DISCARDED-REPLY")
        for (const request of served.served.slice(truncateAt)) {
          assert.notInclude(JSON.stringify(request.messages), "DISCARDED-REPLY")
        }
      }),
      { numRuns: runs.fewest }
    )
  })
})
