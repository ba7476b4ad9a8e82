/**
 * `ContextStrategyRegistry`: an immutable value mapping strategy ids to strategies — the four built-ins, and
 * plugin strategies registered over them by priority, each registration undone by its own cleanup.
 *
 * @since 0.1.0
 */
import { UnknownStrategy } from "@ctxkit/core"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type { CountTokens, FitOptions } from "./FitOptions.ts"
import type { FitResult } from "./FitResult.ts"
import { strategies } from "./Strategies.ts"

/**
 * A context strategy as a host runs it: a {@link ContextStrategy} (a pure, synchronous `fit`), or one whose `fit`
 * returns an Effect — a plugin that needs I/O (an embedding service, a remote summarizer). The host
 * (`runStrategy` of `@ctxkit/engine`) runs it under a timeout, catches what it throws, and checks what it returns.
 *
 * @example
 * ```ts
 * import { type PluginStrategy, strategies } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * // Asks a (pretend) remote service which turns matter, then truncates.
 * const remote: PluginStrategy = {
 *   id: "acme/remote",
 *   fit: (messages, countTokens, budget, options) =>
 *     Effect.succeed(strategies.truncate.fit(messages, countTokens, budget, options))
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PluginStrategy {
  /** A stable id: the `contextStrategy` setting's value. */
  readonly id: string
  /** Fits `messages` into `budget` tokens, synchronously or as an Effect. */
  readonly fit: <M>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: FitOptions<M> | undefined
  ) => FitResult<M> | Effect.Effect<FitResult<M>, unknown>
}

/**
 * One registration: the strategy under its id, with its priority and a key unique within its registry's
 * history (what a cleanup removes).
 *
 * @example
 * ```ts
 * import { ContextStrategyRegistry } from "@ctxkit/fit"
 *
 * ContextStrategyRegistry.builtins.registrations.map((r) => [r.id, r.priority])
 * // [["manual", 0], ["summarize", 0], ["truncate", 0], ["vector-recall", 0]]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StrategyRegistration {
  /** The id the strategy answers, read once when it was registered. */
  readonly id: string
  /** The strategy. */
  readonly strategy: PluginStrategy
  /** Higher wins; among equal priorities, the latest registration wins. */
  readonly priority: number
  /** Unique within the registry's history. */
  readonly key: number
}

/**
 * Options of {@link ContextStrategyRegistry.register}.
 *
 * @example
 * ```ts
 * import type { RegisterOptions } from "@ctxkit/fit/ContextStrategyRegistry"
 *
 * const options: RegisterOptions = { priority: 10 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RegisterOptions {
  /** Per id, the highest priority wins (the built-ins have 0). Default 0; NaN counts as 0. */
  readonly priority?: number | undefined
}

/**
 * What registering returns: the new registry, and a cleanup that removes this registration from whatever
 * registry it is given (the one current when the plugin unloads), restoring the entry it shadowed.
 *
 * @example
 * ```ts
 * import { ContextStrategyRegistry, strategies } from "@ctxkit/fit"
 * import { type Registered } from "@ctxkit/fit/ContextStrategyRegistry"
 *
 * const registered: Registered = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, { ...strategies.truncate, id: "mine" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Registered {
  /** The registry with the strategy registered. */
  readonly registry: ContextStrategyRegistry
  /** Removes this registration from `current` (other registrations made since stay); idempotent. */
  readonly cleanup: (current: ContextStrategyRegistry) => ContextStrategyRegistry
}

/**
 * An immutable registry of context strategies: per id, the registration with the highest priority wins (the
 * latest among equals). Values are frozen; every operation returns a new registry. Build one from
 * {@link ContextStrategyRegistry.builtins} (the four built-ins at priority 0) or
 * {@link ContextStrategyRegistry.make}; the `ContextStrategies` service of `@ctxkit/engine` holds one for an Effect
 * application.
 *
 * @example
 * ```ts
 * import { ContextStrategyRegistry } from "@ctxkit/fit"
 *
 * ContextStrategyRegistry.ids(ContextStrategyRegistry.builtins) // ["manual", "summarize", "truncate", "vector-recall"]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextStrategyRegistry {
  /** Identifies a registry value. */
  readonly _tag: "ContextStrategyRegistry"
  /** Every registration, in registration order (shadowed ones included). */
  readonly registrations: ReadonlyArray<StrategyRegistration>
  /** The key of the next registration. */
  readonly nextKey: number
}

const normalizePriority = (priority: unknown): number =>
  typeof priority === "number" && !Number.isNaN(priority) ? priority : 0

const idOf = (strategy: unknown): string => {
  const id = typeof strategy === "object" && strategy !== null ? (strategy as { readonly id?: unknown }).id : undefined
  return typeof id === "string" ? id : ""
}

const freeze = (registrations: ReadonlyArray<StrategyRegistration>, nextKey: number): ContextStrategyRegistry =>
  Object.freeze({ _tag: "ContextStrategyRegistry", registrations: Object.freeze([...registrations]), nextKey })

const isRegistry = (value: unknown): value is ContextStrategyRegistry =>
  typeof value === "object" && value !== null &&
  (value as { readonly _tag?: unknown })._tag === "ContextStrategyRegistry"

const add = (
  registry: ContextStrategyRegistry,
  strategy: PluginStrategy,
  options?: RegisterOptions
): Registered => {
  const registration: StrategyRegistration = Object.freeze({
    id: idOf(strategy),
    strategy,
    priority: normalizePriority(options?.priority),
    key: registry.nextKey
  })
  const cleanup = (current: ContextStrategyRegistry): ContextStrategyRegistry => {
    const kept = current.registrations.filter((r) =>
      !(r.key === registration.key && r.strategy === registration.strategy && r.id === registration.id)
    )
    return kept.length === current.registrations.length ? current : freeze(kept, current.nextKey)
  }
  return { registry: freeze([...registry.registrations, registration], registry.nextKey + 1), cleanup }
}

const lookup = (registry: ContextStrategyRegistry, id: string): PluginStrategy | undefined => {
  let best: StrategyRegistration | undefined
  for (const r of registry.registrations) {
    if (r.id !== id) continue
    if (best === undefined || r.priority > best.priority || (r.priority === best.priority && r.key > best.key)) {
      best = r
    }
  }
  return best?.strategy
}

const ids = (registry: ContextStrategyRegistry): ReadonlyArray<string> =>
  [...new Set(registry.registrations.map((r) => r.id).filter((id) => id.length > 0))].sort()

const resolve = (registry: ContextStrategyRegistry, id: string): Effect.Effect<PluginStrategy, UnknownStrategy> => {
  const found = typeof id === "string" && id.length > 0 ? lookup(registry, id) : undefined
  return found === undefined
    ? Effect.fail(new UnknownStrategy({ id: typeof id === "string" ? id : String(id), available: [...ids(registry)] }))
    : Effect.succeed(found)
}

const make = (given: Iterable<PluginStrategy> = []): ContextStrategyRegistry => {
  let registry = freeze([], 0)
  for (const strategy of given) registry = add(registry, strategy).registry
  return registry
}

const builtins: ContextStrategyRegistry = make([
  strategies.manual,
  strategies.summarize,
  strategies.truncate,
  strategies["vector-recall"]
])

/**
 * The registry's functions: `builtins`, `empty`, `make`, `register`, `lookup`, `resolve`, `ids`. All pure;
 * `register` and `resolve` are data-first or data-last.
 *
 * - `register(registry, strategy, { priority })` → `{ registry, cleanup }`: per id the highest priority wins
 *   (the latest among equals; the built-ins have 0), and `cleanup(current)` removes exactly this registration
 *   from the registry current at that time, so the entry it shadowed is back.
 * - `resolve(registry, id)` succeeds with the winning strategy, or fails with `UnknownStrategy` (message
 *   `Unknown context strategy "<id>". Use one of: …`) for an unknown or empty id.
 * - `ids(registry)` — the ids that resolve, sorted.
 *
 * @example
 * ```ts
 * import { ContextStrategyRegistry, strategies } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const cautious = { id: "truncate", fit: strategies.truncate.fit }
 * const { registry, cleanup } = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, cautious, { priority: 10 })
 * ContextStrategyRegistry.lookup(registry, "truncate") === cautious // true: 10 beats the built-in's 0
 * ContextStrategyRegistry.lookup(cleanup(registry), "truncate") === strategies.truncate // true: restored
 *
 * Effect.runSyncExit(ContextStrategyRegistry.resolve(registry, "smart"))
 * // Failure: UnknownStrategy — Unknown context strategy "smart". Use one of: manual, summarize, truncate, vector-recall, …
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const ContextStrategyRegistry: {
  /** The four built-in strategies, each at priority 0. */
  readonly builtins: ContextStrategyRegistry
  /** A registry with no strategy at all. */
  readonly empty: ContextStrategyRegistry
  /** A registry of `strategies`, each registered at priority 0 in order (the last of an id wins). */
  readonly make: (strategies?: Iterable<PluginStrategy>) => ContextStrategyRegistry
  /** Registers `strategy` under its id: the new registry, and the cleanup that undoes it. */
  readonly register: {
    (strategy: PluginStrategy, options?: RegisterOptions): (registry: ContextStrategyRegistry) => Registered
    (registry: ContextStrategyRegistry, strategy: PluginStrategy, options?: RegisterOptions): Registered
  }
  /** The winning strategy of `id`, or undefined. */
  readonly lookup: (registry: ContextStrategyRegistry, id: string) => PluginStrategy | undefined
  /** The winning strategy of `id`, or `UnknownStrategy` for an unknown or empty id. */
  readonly resolve: {
    (id: string): (registry: ContextStrategyRegistry) => Effect.Effect<PluginStrategy, UnknownStrategy>
    (registry: ContextStrategyRegistry, id: string): Effect.Effect<PluginStrategy, UnknownStrategy>
  }
  /** The ids that resolve, sorted. */
  readonly ids: (registry: ContextStrategyRegistry) => ReadonlyArray<string>
} = Object.freeze({
  builtins,
  empty: make([]),
  make,
  register: dual((args: IArguments) => isRegistry(args[0]), add),
  lookup,
  resolve: dual(2, resolve),
  ids
})
