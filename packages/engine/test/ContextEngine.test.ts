import { Summarizer } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ContextEngine, type EngineOptions, SessionStore } from "../src/index.ts"
import { storeLayers } from "./storeLayers.ts"

const summarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: () =>
      Effect.succeed({
        text: "{\"checkpoint\":{\"goal\":\"Fix the build\",\"instructions\":[\"Never use semicolons\"]}}",
        finishReason: "stop"
      })
  })
)

const runWith = (store: Layer.Layer<SessionStore>) =>
<A, E>(
  options: EngineOptions<Message>,
  program: Effect.Effect<A, E, ContextEngine | SessionStore>
): Promise<A> => {
  const engine = ContextEngine.layer(options).pipe(Layer.provide([store, summarizer]))
  return Effect.runPromise(program.pipe(Effect.provide(Layer.merge(engine, store))))
}

const turn = (i: number, size = 400): ReadonlyArray<Message> => [
  {
    role: "assistant",
    content: `Reading file ${i}.`,
    toolCalls: [{ id: `c${i}`, name: "read_file", arguments: `{"path":"f${i}.ts"}` }]
  },
  { role: "tool", toolCallId: `c${i}`, content: `line ${i}\n`.repeat(size) },
  { role: "user", content: `Next step ${i}. Never use semicolons.` }
]

// Every test runs on both store layers (`storeLayers.ts`): the engine answers the same on each.
describe.each(storeLayers)("ContextEngine on the $name store", ({ store }) => {
  const run = runWith(store)
  it("prepares a first request with the caller's own objects and the reserve as max_tokens", async () => {
    const first: ReadonlyArray<Message> = [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]
    const result = await run(
      { format: formats.canonical, window: 8192, maxTokens: 1024 },
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        return yield* engine.prepare({ session: "s", append: first })
      })
    )
    assert.strictEqual(result.messages[0], first[0])
    assert.strictEqual(result.messages[1], first[1])
    assert.strictEqual(result.maxTokens, 1024)
    assert.strictEqual(result.window, 8192)
    assert.isTrue(result.tokens <= result.budget)
  })

  it("compacts a long session, keeps the transcript whole and adds the invariants block", async () => {
    const out = await run(
      { format: formats.canonical, window: 4096, maxTokens: 512 },
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        const store = yield* SessionStore
        let last
        yield* engine.prepare({
          session: "s",
          append: [{ role: "system", content: "You are a coding agent." }, {
            role: "user",
            content: "Fix the build. Never use semicolons."
          }]
        })
        for (let i = 0; i < 12; i++) {
          last = yield* engine.prepare({ session: "s", append: turn(i) })
          yield* engine.observe({ session: "s", usage: { prompt_tokens: last.tokens, completion_tokens: 10 } })
        }
        const state = Option.getOrThrow(yield* store.load("s"))
        return { last, state }
      })
    )
    assert.strictEqual(out.state.transcript.length, 2 + 12 * 3)
    assert.isTrue(out.state.checkpoints.length > 0)
    assert.isTrue(out.state.transcript.some((e) => e.compactedBy !== undefined))
    const sent = out.last?.messages ?? []
    const lastText = (sent.at(-1) as Message).content
    assert.isTrue(typeof lastText === "string" && lastText.startsWith("<invariants"))
    assert.isTrue((out.last?.tokens ?? Infinity) <= (out.last?.budget ?? 0))
  })

  it("a loop of one user turn: once compacted, every request carries the newest checkpoint", async () => {
    // No user message after the task: compaction has to replace the task itself, and the kept tail can leave
    // the history a little over the fit budget (with these sizes, at 1,280 tokens, it does). The fitting then
    // drops kept tool turns, never the checkpoint.
    const loopTurn = (i: number): ReadonlyArray<Message> => [
      {
        role: "assistant",
        content: `Reading file ${i}.`,
        toolCalls: [{ id: `c${i}`, name: "read_file", arguments: `{"path":"f${i}.ts"}` }]
      },
      { role: "tool", toolCallId: `c${i}`, content: `line ${i}\n`.repeat(80 + 37 * (i % 7)) }
    ]
    const out = await run(
      { format: formats.canonical, window: 1280, maxTokens: 256, preset: "alisio" },
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        const store = yield* SessionStore
        const requests: Array<{ readonly sent: ReadonlyArray<Message>; readonly checkpoints: number }> = []
        const task: ReadonlyArray<Message> = [
          { role: "system", content: "You are a coding agent." },
          { role: "user", content: "Find the longest file." }
        ]
        yield* engine.prepare({ session: "s", append: task })
        for (let i = 0; i < 30; i++) {
          const result = yield* engine.prepare({ session: "s", append: loopTurn(i) })
          yield* engine.observe({ session: "s", usage: { prompt_tokens: result.tokens, completion_tokens: 10 } })
          const state = Option.getOrThrow(yield* store.load("s"))
          requests.push({ sent: result.messages, checkpoints: state.checkpoints.length })
        }
        return requests
      })
    )
    const compacted = out.filter((r) => r.checkpoints > 0)
    assert.isTrue(compacted.length > 0, "the loop compacts")
    for (const { sent } of compacted) {
      assert.isTrue(sent.some((m) => formats.canonical.isSummary(m)), "a request went without its checkpoint")
    }
  })

  it("classifies llama.cpp's over-window error and fits the next request to its n_ctx", async () => {
    const out = await run(
      { format: formats.canonical, window: 32_000, maxTokens: 512 },
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        yield* engine.prepare({
          session: "s",
          append: [{ role: "user", content: "x".repeat(40_000) }, ...turn(1, 100)]
        })
        const observed = yield* engine.observe({
          session: "s",
          error: {
            status: 400,
            body: { error: { code: 400, type: "exceed_context_size_error", n_prompt_tokens: 10_000, n_ctx: 4096 } }
          }
        })
        const next = yield* engine.prepare({ session: "s", append: [{ role: "user", content: "again" }] })
        return { observed, next }
      })
    )
    assert.strictEqual(out.observed.outcome?.reason, "context_overflow")
    assert.strictEqual(out.next.window, 4096)
    assert.isTrue(out.next.tokens <= out.next.budget)
  })

  it("fails observe on an unknown session with a typed error", async () => {
    const exit = await run(
      {},
      Effect.exit(Effect.gen(function*() {
        const engine = yield* ContextEngine
        return yield* engine.observe({ session: "nobody" })
      }))
    )
    assert.isTrue(Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("UnknownSession"))
  })
})
