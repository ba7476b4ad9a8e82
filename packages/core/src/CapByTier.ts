/**
 * Capping a long list for a report: what to show when there is room for only some of the items. Fit's prompt
 * audit and the governor's context report cap their blocks and segments with it.
 *
 * @since 0.1.0
 */

/**
 * At most `limit` of `items`, chosen tier by tier (the lowest `tierOf` first) and newest first within a tier (the
 * latest position), returned in their original order; `items` itself when it already fits. Pure: `tierOf` is
 * called once per item. A `limit` below 0 keeps nothing.
 *
 * @example
 * ```ts
 * import { capByTier } from "@ctxkit/core/CapByTier"
 *
 * const rows = [
 *   { id: 1, pinned: true },
 *   { id: 2, pinned: false },
 *   { id: 3, pinned: false },
 *   { id: 4, pinned: false }
 * ]
 * capByTier(rows, 2, (row) => row.pinned ? 0 : 1).map((row) => row.id) // [1, 4]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const capByTier = <A>(
  items: ReadonlyArray<A>,
  limit: number,
  tierOf: (item: A) => number
): ReadonlyArray<A> => {
  if (items.length <= limit) return items
  const tiers = items.map(tierOf)
  const order = items.map((_, i) => i).sort((a, b) => (tiers[a] as number) - (tiers[b] as number) || b - a)
  const keep = new Uint8Array(items.length)
  for (const i of order.slice(0, Math.max(0, limit))) keep[i] = 1
  return items.filter((_, i) => keep[i] === 1)
}
