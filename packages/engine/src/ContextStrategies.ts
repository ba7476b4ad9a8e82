/**
 * `ContextStrategies`: the strategy registry as an Effect service — the engine's `ContextStrategies`. It holds
 * a {@link ContextStrategyRegistry} value; plugins register within a scope, and closing the scope unregisters
 * them.
 *
 * @since 0.1.0
 */
import type { UnknownStrategy } from "@ctxkit/core"
import { ContextStrategyRegistry, type PluginStrategy } from "@ctxkit/fit"
import type { RegisterOptions } from "@ctxkit/fit/ContextStrategyRegistry"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"

const isRegistry = (value: unknown): value is ContextStrategyRegistry =>
  typeof value === "object" && value !== null &&
  (value as { readonly _tag?: unknown })._tag === "ContextStrategyRegistry"

const make = (initial: ContextStrategyRegistry) =>
  Effect.gen(function*() {
    const ref = yield* Ref.make(initial)
    const resolve = Effect.fn("ContextStrategies.resolve")(function*(id: string) {
      return yield* ContextStrategyRegistry.resolve(yield* Ref.get(ref), id)
    })
    const register = Effect.fn("ContextStrategies.register")(
      function*(strategy: PluginStrategy, options?: RegisterOptions) {
        yield* Effect.acquireRelease(
          Ref.modify(ref, (current) => {
            const { cleanup, registry } = ContextStrategyRegistry.register(current, strategy, options)
            return [cleanup, registry] as const
          }),
          (cleanup) => Ref.update(ref, cleanup)
        )
      }
    )
    return ContextStrategies.of({
      registry: Ref.get(ref),
      ids: Effect.map(Ref.get(ref), ContextStrategyRegistry.ids),
      resolve,
      register
    })
  })

/**
 * The context strategy registry as a service. `resolve(id)` fails with `UnknownStrategy` for an unknown or
 * empty id; `register(strategy, { priority })` registers within the current scope — per id the highest priority
 * wins — and the scope's finalizer unregisters it, restoring whatever it shadowed; `registry` is the current
 * immutable value (pass it to `fitPrompt`, or read it in a test).
 *
 * Layers: `ContextStrategies.layer` (the four built-ins) and `ContextStrategies.layerWith(strategies)` (a
 * registry value of your own, or strategies registered over the built-ins at priority 0).
 *
 * @example
 * ```ts
 * import { ContextStrategies } from "@ctxkit/engine"
 * import { strategies } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function*() {
 *   const registry = yield* ContextStrategies
 *   yield* Effect.scoped(Effect.gen(function*() {
 *     yield* registry.register({ id: "truncate", fit: strategies.summarize.fit }, { priority: 1 })
 *     // here "truncate" resolves to the plugin
 *   }))
 *   return yield* registry.resolve("truncate") // the built-in again: the scope closed
 * })
 *
 * Effect.runSync(program.pipe(Effect.provide(ContextStrategies.layer))) === strategies.truncate // true
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class ContextStrategies extends Context.Service<ContextStrategies, {
  /** The current registry value. */
  readonly registry: Effect.Effect<ContextStrategyRegistry>
  /** The ids that resolve, sorted. */
  readonly ids: Effect.Effect<ReadonlyArray<string>>
  /** The winning strategy of `id`, or `UnknownStrategy`. */
  readonly resolve: (id: string) => Effect.Effect<PluginStrategy, UnknownStrategy>
  /** Registers `strategy` until the current scope closes. */
  readonly register: (strategy: PluginStrategy, options?: RegisterOptions) => Effect.Effect<void, never, Scope.Scope>
}>()("@ctxkit/engine/ContextStrategies") {
  /**
   * A registry of `strategies`: a registry value as is, or strategies registered over the built-ins at
   * priority 0 (the last of an id wins).
   */
  static layerWith(strategies: ContextStrategyRegistry | Iterable<PluginStrategy>): Layer.Layer<ContextStrategies> {
    const initial = isRegistry(strategies)
      ? strategies
      : [...strategies].reduce(
        (registry, strategy) => ContextStrategyRegistry.register(registry, strategy).registry,
        ContextStrategyRegistry.builtins
      )
    return Layer.effect(ContextStrategies, make(initial))
  }

  /** The four built-in strategies. */
  static readonly layer: Layer.Layer<ContextStrategies> = ContextStrategies.layerWith(ContextStrategyRegistry.builtins)
}
