import { Summarizer } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ContextEngine, ContextEvents, SessionStore } from "../src/index.ts"
import { storeLayers } from "./storeLayers.ts"

const summarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"g\"}}", finishReason: "stop" })
  })
)

const layers = (store: Layer.Layer<SessionStore>, events: Layer.Layer<ContextEvents> = ContextEvents.layerNoop) => {
  const engine = ContextEngine.layer({ format: formats.canonical, window: 8192, maxTokens: 1024 }).pipe(
    Layer.provide(Layer.mergeAll(store, summarizer, events))
  )
  return Layer.merge(engine, store)
}

// The session and observe tests run on both store layers (`storeLayers.ts`).
describe.each(storeLayers)("sessions on the $name store", ({ store }) => {
  it("runs one session's calls one at a time and sessions side by side, isolated", async () => {
    const out = await Effect.runPromise(
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        const store = yield* SessionStore
        const calls = Array.from({ length: 10 }, (_, i) =>
          engine.prepare<Message>({
            session: i % 2 === 0 ? "a" : "b",
            append: [{ role: "user", content: `request ${i}` }]
          }))
        yield* Effect.all(calls, { concurrency: "unbounded" })
        const a = Option.getOrThrow(yield* store.load("a"))
        const b = Option.getOrThrow(yield* store.load("b"))
        return { a, b }
      }).pipe(Effect.provide(layers(store)))
    )
    // Five calls each, none lost to a conflict, and neither session sees the other's messages.
    assert.strictEqual(out.a.revision, 5)
    assert.strictEqual(out.b.revision, 5)
    assert.isTrue(out.a.transcript.every((e) => /request [02468]/.test((e.message as Message).content as string)))
    assert.isTrue(out.b.transcript.every((e) => /request [13579]/.test((e.message as Message).content as string)))
  })
})

describe("ContextEvents", () => {
  it("writes one versioned JSON line per event, in order", async () => {
    const lines: Array<string> = []
    const sink = ContextEvents.layerSink((line) => Effect.sync(() => void lines.push(line)), { runId: "r1" })
    await Effect.runPromise(
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        yield* engine.prepare<Message>({ session: "s", append: [{ role: "user", content: "hello" }] })
      }).pipe(Effect.provide(layers(SessionStore.layerMemory, sink)))
    )
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.isTrue(parsed.length >= 2)
    parsed.forEach((event, i) => {
      assert.strictEqual(event["schemaVersion"], 1)
      assert.strictEqual(event["runId"], "r1")
      assert.strictEqual(event["sessionId"], "s")
      assert.strictEqual(event["seq"], i)
      assert.match(String(event["timestamp"]), /^\d{4}-\d{2}-\d{2}T/)
    })
    assert.deepStrictEqual(parsed.map((e) => e["type"]), ["context_governed", "context_fitted", "context_audit"])
  })
})

describe.each(storeLayers)("observe on the $name store", ({ store }) => {
  it("a truncated response ends with context_overflow and never calibrates; honest ones calibrate", async () => {
    const out = await Effect.runPromise(
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        const store = yield* SessionStore
        const first = yield* engine.prepare<Message>({
          session: "s",
          append: [{ role: "system", content: "sys" }, { role: "user", content: "task ".repeat(600) }]
        })
        const honest = yield* engine.observe({ session: "s", usage: { prompt_tokens: first.tokens + 20 } })
        const calibrated = Option.getOrThrow(yield* store.load("s")).meta.calibration
        yield* engine.prepare<Message>({
          session: "s",
          append: [{ role: "assistant", content: "ok" }, { role: "user", content: "more ".repeat(2000) }]
        })
        // The server reports about what the first request had: it kept the end and dropped the task.
        const truncated = yield* engine.observe({ session: "s", usage: { prompt_tokens: first.tokens + 40 } })
        const after = Option.getOrThrow(yield* store.load("s")).meta.calibration
        return { honest, truncated, calibrated, after }
      }).pipe(Effect.provide(layers(store)))
    )
    assert.isFalse(out.honest.truncated)
    assert.isTrue(out.truncated.truncated)
    assert.strictEqual(out.truncated.outcome?.reason, "context_overflow")
    assert.include(out.truncated.outcome?.message ?? "", "Set the real context window")
    assert.strictEqual(out.after, out.calibrated)
    assert.notStrictEqual(out.calibrated.scale, 1)
  })
})
