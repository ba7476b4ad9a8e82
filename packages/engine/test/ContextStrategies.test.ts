import { ContextStrategies } from "@ctxkit/engine"
import { type ContextStrategy, ContextStrategyRegistry, strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const BUILTIN_IDS = ["manual", "summarize", "truncate", "vector-recall"]

const plugin = (id: string): ContextStrategy => ({ id, fit: strategies.truncate.fit })

describe("ContextStrategies (the registry as a service)", () => {
  it.effect("layer holds the built-ins", () =>
    Effect.gen(function*() {
      const service = yield* ContextStrategies
      assert.deepStrictEqual(yield* service.ids, BUILTIN_IDS)
      assert.strictEqual(yield* service.resolve("manual"), strategies.manual)
      const error = yield* Effect.flip(service.resolve("nope"))
      assert.isTrue(error.message.startsWith("Unknown context strategy \"nope\""))
    }).pipe(Effect.provide(ContextStrategies.layer)))

  it.effect("register lasts as long as its scope; the finalizer restores what it shadowed", () =>
    Effect.gen(function*() {
      const service = yield* ContextStrategies
      const mine = plugin("truncate")
      const other = plugin("other")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* service.register(mine, { priority: 1 })
        yield* service.register(other)
        assert.strictEqual(yield* service.resolve("truncate"), mine)
        assert.deepStrictEqual(yield* service.ids, ["manual", "other", "summarize", "truncate", "vector-recall"])
      }))
      assert.strictEqual(yield* service.resolve("truncate"), strategies.truncate)
      assert.deepStrictEqual(yield* service.ids, BUILTIN_IDS)
      const registry = yield* service.registry
      assert.strictEqual(ContextStrategyRegistry.lookup(registry, "other"), undefined)
    }).pipe(Effect.provide(ContextStrategies.layer)))

  it.effect("layerWith takes strategies (over the built-ins) or a registry value", () =>
    Effect.gen(function*() {
      const mine = plugin("mine")
      const withPlugins = yield* ContextStrategies.pipe(Effect.provide(ContextStrategies.layerWith([mine])))
      assert.deepStrictEqual(yield* withPlugins.ids, ["manual", "mine", "summarize", "truncate", "vector-recall"])
      const only = yield* ContextStrategies.pipe(
        Effect.provide(ContextStrategies.layerWith(ContextStrategyRegistry.make([mine])))
      )
      assert.deepStrictEqual(yield* only.ids, ["mine"])
      const error = yield* Effect.flip(only.resolve("truncate"))
      assert.deepStrictEqual(error.available, ["mine"])
    }))
})
