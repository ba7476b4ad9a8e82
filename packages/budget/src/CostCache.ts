/**
 * A cache of per-message token counts keyed by message identity, created and held by the caller, so that
 * re-fitting a growing conversation counts only the new messages while the counting functions stay pure in
 * what they return.
 *
 * @since 0.1.0
 */
import type { CostSnapshot } from "./internal/snapshot.ts"

/**
 * Per-message counts keyed by message identity (a `WeakMap` per counter and format), so that counting a
 * growing conversation again costs only its new messages. Create one per conversation or per session with
 * {@link makeCostCache} and pass it to `conversationCost`, `messageCost` and `requestChars`; the functions
 * return exactly what they would return without it. Entries disappear with their messages (weak keys).
 *
 * It also remembers the last conversation counted with each profile (its message references and counts): a
 * conversation that starts with the same messages, in the same places, is matched by reference comparison
 * (a few nanoseconds a message) before any `WeakMap` lookup. That snapshot keeps the last counted messages
 * alive as long as the cache, which is why a cache belongs to one conversation or session.
 *
 * Counts are keyed by `counter.id` and `format.name` (a message counter's prices apart from text counts): two
 * counter objects with the same id must count alike, and a plain function gets an id of its own (`toCounter`). A
 * message must not be mutated after it was counted (ctxkit never mutates messages; rewrites are new objects).
 * Counts that fell back after a counter failure are not cached, so the failure is reported on every call.
 *
 * @example
 * ```ts
 * import { conversationCost, makeCostCache } from "@ctxkit/budget"
 *
 * const cache = makeCostCache()
 * const messages = [{ role: "user", content: "hi" }]
 * conversationCost(messages, { cache }).total // counts the message
 * conversationCost([...messages, { role: "assistant", content: "hello" }], { cache }).total // counts only the new one
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export class CostCache {
  readonly #stores = new Map<string, WeakMap<object, number>>()
  readonly #snapshots = new Map<string, CostSnapshot>()

  /**
   * The last conversation counted with `profile`, if any.
   *
   * @internal
   */
  snapshot(profile: string): CostSnapshot | undefined {
    return this.#snapshots.get(profile)
  }

  /**
   * Remembers the conversation just counted with `profile`.
   *
   * @internal
   */
  remember(profile: string, snapshot: CostSnapshot): void {
    this.#snapshots.set(profile, snapshot)
  }

  /**
   * The store of one counting profile (`tokens` or `chars`, counter id, format name).
   *
   * @internal
   */
  store(profile: string): WeakMap<object, number> {
    let store = this.#stores.get(profile)
    if (store === undefined) {
      store = new WeakMap()
      this.#stores.set(profile, store)
    }
    return store
  }
}

/**
 * A new, empty {@link CostCache}.
 *
 * @example
 * ```ts
 * import { makeCostCache } from "@ctxkit/budget"
 *
 * const cache = makeCostCache()
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const makeCostCache = (): CostCache => new CostCache()
