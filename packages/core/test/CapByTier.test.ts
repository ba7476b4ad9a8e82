import { capByTier } from "@ctxkit/core/CapByTier"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

/** The reference: tier by tier, newest first within a tier, until `limit` are taken; original order. */
const reference = (tiers: ReadonlyArray<number>, limit: number): Array<number> => {
  const taken = new Set<number>()
  for (const tier of [...new Set(tiers)].sort((a, b) => a - b)) {
    for (let i = tiers.length - 1; i >= 0 && taken.size < limit; i--) if (tiers[i] === tier) taken.add(i)
  }
  return tiers.map((_, i) => i).filter((i) => taken.has(i))
}

describe("capByTier", () => {
  it("keeps the lowest tiers first, the newest within a tier, in original order", () => {
    const items = ["a0", "b1", "c0", "d2", "e1", "f1"]
    const tier = (s: string): number => Number(s[1])
    assert.deepStrictEqual(capByTier(items, 3, tier), ["a0", "c0", "f1"])
    assert.deepStrictEqual(capByTier(items, 4, tier), ["a0", "c0", "e1", "f1"])
    assert.deepStrictEqual(capByTier(items, 0, tier), [])
    assert.strictEqual(capByTier(items, 6, tier), items)
  })

  it("property: matches the tier-by-tier reference", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), fc.nat(45), (tiers, limit) => {
        const indices = tiers.map((_, i) => i)
        const kept = capByTier(indices, limit, (i) => tiers[i] as number)
        assert.deepStrictEqual([...kept], reference(tiers, limit))
      })
    )
  })
})
