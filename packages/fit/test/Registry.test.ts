import { UnknownStrategy } from "@ctxkit/core"
import { type ContextStrategy, ContextStrategyRegistry, strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { pipe } from "effect/Function"

const BUILTIN_IDS = ["manual", "summarize", "truncate", "vector-recall"]

const plugin = (id: string): ContextStrategy => ({ id, fit: strategies.truncate.fit })

const failureOf = <A>(effect: Effect.Effect<A, UnknownStrategy>): UnknownStrategy => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error === undefined || error._tag !== "Fail") throw new Error("expected a typed failure")
  return error.error
}

describe("ContextStrategyRegistry", () => {
  it("holds the four built-ins, ids sorted, as a frozen value", () => {
    const registry = ContextStrategyRegistry.builtins
    assert.deepStrictEqual(ContextStrategyRegistry.ids(registry), BUILTIN_IDS)
    for (const id of BUILTIN_IDS) {
      assert.strictEqual(ContextStrategyRegistry.lookup(registry, id), strategies[id as keyof typeof strategies])
    }
    assert.isTrue(Object.isFrozen(registry))
    assert.isTrue(Object.isFrozen(registry.registrations))
    assert.deepStrictEqual(ContextStrategyRegistry.ids(ContextStrategyRegistry.empty), [])
  })

  it("a higher priority overrides an id, and its cleanup restores the previous entry", () => {
    const mine = plugin("truncate")
    const { cleanup, registry } = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, mine, {
      priority: 10
    })
    assert.strictEqual(ContextStrategyRegistry.lookup(registry, "truncate"), mine)
    assert.strictEqual(ContextStrategyRegistry.lookup(cleanup(registry), "truncate"), strategies.truncate)
    // The original value is untouched.
    assert.strictEqual(
      ContextStrategyRegistry.lookup(ContextStrategyRegistry.builtins, "truncate"),
      strategies.truncate
    )
  })

  it("a lower priority does not override; equal priorities go to the latest registration", () => {
    const low = plugin("summarize")
    const lowered = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, low, { priority: -1 }).registry
    assert.strictEqual(ContextStrategyRegistry.lookup(lowered, "summarize"), strategies.summarize)
    const tie = plugin("summarize")
    const tied = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, tie).registry
    assert.strictEqual(ContextStrategyRegistry.lookup(tied, "summarize"), tie)
  })

  it("cleanups restore by priority in any order, keep registrations made since, and are idempotent", () => {
    const a = plugin("recall")
    const b = plugin("recall")
    const c = plugin("recall")
    const first = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, a, { priority: 1 })
    const second = ContextStrategyRegistry.register(first.registry, b, { priority: 5 })
    const third = ContextStrategyRegistry.register(second.registry, c, { priority: 3 })
    assert.strictEqual(ContextStrategyRegistry.lookup(third.registry, "recall"), b)
    // Unloading the winner restores the next highest, c (3), not the earlier a (1).
    const withoutB = second.cleanup(third.registry)
    assert.strictEqual(ContextStrategyRegistry.lookup(withoutB, "recall"), c)
    const withoutC = third.cleanup(withoutB)
    assert.strictEqual(ContextStrategyRegistry.lookup(withoutC, "recall"), a)
    assert.strictEqual(third.cleanup(withoutC), withoutC)
    const none = first.cleanup(withoutC)
    assert.strictEqual(ContextStrategyRegistry.lookup(none, "recall"), undefined)
    assert.deepStrictEqual(ContextStrategyRegistry.ids(none), BUILTIN_IDS)
    // A new id shows in the sorted ids while registered.
    assert.deepStrictEqual(ContextStrategyRegistry.ids(first.registry), [
      "manual",
      "recall",
      "summarize",
      "truncate",
      "vector-recall"
    ])
  })

  it("NaN priority counts as 0; data-last forms", () => {
    const mine = plugin("truncate")
    const { registry } = pipe(
      ContextStrategyRegistry.builtins,
      ContextStrategyRegistry.register(mine, { priority: Number.NaN })
    )
    assert.strictEqual(registry.registrations.at(-1)?.priority, 0)
    assert.strictEqual(Effect.runSync(pipe(registry, ContextStrategyRegistry.resolve("truncate"))), mine)
  })

  it("resolving an unknown or empty id fails with UnknownStrategy and the exact message", () => {
    const unknown = failureOf(ContextStrategyRegistry.resolve(ContextStrategyRegistry.builtins, "smart"))
    assert.strictEqual(unknown._tag, "UnknownStrategy")
    assert.strictEqual(unknown.code, "UNKNOWN_STRATEGY")
    assert.deepStrictEqual(unknown.available, BUILTIN_IDS)
    assert.strictEqual(
      unknown.message,
      "Unknown context strategy \"smart\". Use one of: manual, summarize, truncate, vector-recall, or register it first."
    )
    assert.isTrue(unknown.message.startsWith("Unknown context strategy \"smart\""))
    const empty = failureOf(ContextStrategyRegistry.resolve(ContextStrategyRegistry.builtins, ""))
    assert.isTrue(empty.message.startsWith("Unknown context strategy \"\""))
    const garbage = failureOf(
      ContextStrategyRegistry.resolve(ContextStrategyRegistry.builtins, 42 as unknown as string)
    )
    assert.isTrue(garbage.message.startsWith("Unknown context strategy \"42\""))
  })

  it("make registers strategies in order at priority 0", () => {
    const a = plugin("a")
    const registry = ContextStrategyRegistry.make([a, strategies.truncate])
    assert.deepStrictEqual(ContextStrategyRegistry.ids(registry), ["a", "truncate"])
    assert.strictEqual(Effect.runSync(ContextStrategyRegistry.resolve(registry, "a")), a)
  })
})
