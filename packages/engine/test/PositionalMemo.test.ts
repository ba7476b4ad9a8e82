import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { PositionalMemo } from "../src/internal/positional.ts"

// The memo must give what computing every message afresh gives, whatever happens to the list between calls
// (appends, rewrites in place, removals, moves), and compute each message at most once.
describe("PositionalMemo", () => {
  it("gives each message's computed value, computing each message once, across any edits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.nat({ max: 30 }), { maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        (lists) => {
          // A pool of message objects: lists are made of references into it, so messages recur across lists.
          const pool = Array.from({ length: 31 }, (_, i) => ({ id: i, text: "x".repeat(i) }))
          const memo = new PositionalMemo()
          const computed = new Map<unknown, number>()
          const compute = (m: unknown): number => {
            computed.set(m, (computed.get(m) ?? 0) + 1)
            return (m as { readonly text: string }).text.length * 3 + 1
          }
          for (const picks of lists) {
            const messages = picks.map((k) => pool[k])
            const values = [...memo.values(messages, compute)]
            assert.deepStrictEqual(values, messages.map((m) => (m?.text.length ?? 0) * 3 + 1))
          }
          for (const count of computed.values()) assert.strictEqual(count, 1)
        }
      ),
      { numRuns: runs.standard }
    )
  })

  it("computes values that are not objects every time (they have no identity to remember)", () => {
    const memo = new PositionalMemo()
    let calls = 0
    const compute = (m: unknown): number => {
      calls++
      return String(m).length
    }
    assert.deepStrictEqual([...memo.values(["ab", 7], compute)], [2, 1])
    assert.deepStrictEqual([...memo.values(["ab", 7, "xyz"], compute)], [2, 1, 3])
    // The first two sat in the same places: taken from the last list, not recomputed.
    assert.strictEqual(calls, 3)
  })
})
