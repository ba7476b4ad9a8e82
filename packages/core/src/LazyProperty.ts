/**
 * Results with a part that is costly to build and often not read (the member lists of `toolGroups`, the
 * excluded messages of a fit) have it as an own, enumerable property computed on first read.
 *
 * @since 0.1.0
 */

/** What one object knows about one of its lazy properties: how to compute it, until it has. */
interface Slot {
  compute: (() => unknown) | undefined
  value: unknown
}

/**
 * A definer of the lazy property `key`: `define(target, compute)` gives `target` an own, enumerable property
 * `key` whose value is `compute()`, computed on first read and then kept (and `compute` dropped). Spreading,
 * `Object.keys`, `JSON.stringify` and deep equality see it as a plain property with that value.
 *
 * Make the definer once, at module level, and call it per object. The getter is one function shared by every
 * object, and each object's state sits in a hidden property of its own. A getter made per object, closing over
 * what it reads (a getter in an object literal), is slower to create, and it keeps what it reads alive through
 * the engine's young-generation collections: every result's data then goes to the old generation, which only
 * full collections reclaim.
 *
 * @example
 * ```ts
 * import { lazyProperty } from "@ctxkit/core/LazyProperty"
 *
 * const defineSquares = lazyProperty("squares")
 * const numbers = [1, 2, 3]
 * const result = defineSquares({ count: numbers.length }, () => numbers.map((n) => n * n))
 * result.squares // [1, 4, 9], computed now and kept
 * Object.keys(result) // ["count", "squares"]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const lazyProperty = <K extends string>(key: K) => {
  const hidden = Symbol(`ctxkit.lazy.${key}`)
  function get(this: unknown): unknown {
    const slot = typeof this === "object" && this !== null ? (this as Record<symbol, Slot | undefined>)[hidden] : undefined
    if (slot === undefined) return undefined
    if (slot.compute !== undefined) {
      slot.value = slot.compute()
      slot.compute = undefined
    }
    return slot.value
  }
  return <T extends object, V>(target: T, compute: () => V): T & { readonly [P in K]: V } => {
    Object.defineProperty(target, hidden, { value: { compute, value: undefined } satisfies Slot })
    Object.defineProperty(target, key, { get, enumerable: true, configurable: true })
    return target as T & { readonly [P in K]: V }
  }
}
