import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  available,
  ContextBar,
  contextBar,
  effectiveBudget,
  formatContextBar,
  reserve,
  RESERVE_FRACTION,
  RUN_TOKEN_BUDGET_MAX,
  RUN_TOKEN_BUDGET_MIN,
  RUN_TOKEN_BUDGET_UNKNOWN_WINDOW,
  runTokenBudget
} from "./all.ts"

const LARGE = 1_000_000

describe("reserve and available (the tutorial's figures)", () => {
  it("reserve = max(1, min(maxTokens, floor(window × 0.25)))", () => {
    assert.strictEqual(RESERVE_FRACTION, 0.25)
    assert.strictEqual(reserve(4_096, LARGE), 1_024)
    assert.strictEqual(reserve(16_000, LARGE), 4_000)
    assert.strictEqual(reserve(32_768, LARGE), 8_192)
    assert.strictEqual(reserve(32_768), 8_192) // no cap
    assert.strictEqual(reserve(32_768, 256), 256) // the tutorial's desbordar.ts maxTokens
    assert.strictEqual(reserve(3, LARGE), 1) // floor(0.75) = 0, at least 1
  })

  it("available = max(1, window − reserve)", () => {
    assert.strictEqual(available(4_096, LARGE), 3_072)
    assert.strictEqual(available(16_000, LARGE), 12_000)
    assert.strictEqual(available(32_768, LARGE), 24_576)
    assert.strictEqual(available(32_768, 256), 32_512)
    assert.strictEqual(available(1, LARGE), 1)
  })

  it("an untrusted window uses the char budget (200,000 tokens by default), never NaN", () => {
    for (const bad of [undefined, 0, -1, Number.NaN, Infinity, 2_000_001]) {
      assert.strictEqual(reserve(bad, 16_000), 16_000)
      assert.strictEqual(reserve(bad, LARGE), 50_000)
      assert.strictEqual(available(bad, 16_000), 184_000)
    }
    assert.strictEqual(reserve(undefined, LARGE, 400_000), 25_000)
  })

  it("an invalid maxTokens means no cap", () => {
    for (const bad of [0, -5, Number.NaN, Infinity]) assert.strictEqual(reserve(4_096, bad), 1_024)
  })

  it("is a whole number >= 1 and reserve + available covers the budget, for any input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: 1, max: 2_000_000 })), fc.double(), (window, maxTokens) => {
        const r = reserve(window, maxTokens)
        const a = available(window, maxTokens)
        const total = effectiveBudget(window).total
        assert.isTrue(Number.isInteger(r) && r >= 1)
        assert.isTrue(Number.isInteger(a) && a >= 1)
        assert.isTrue(r <= Math.max(1, Math.floor(total * 0.25)))
        if (total >= 4) assert.strictEqual(r + a, total)
      })
    )
  })
})

describe("runTokenBudget", () => {
  it("is 1,000,000 when the window is unknown, else clamp(window × 8, 400k, 8M)", () => {
    assert.strictEqual(RUN_TOKEN_BUDGET_UNKNOWN_WINDOW, 1_000_000)
    assert.strictEqual(runTokenBudget(undefined), 1_000_000)
    for (const bad of [0, -1, Number.NaN, Infinity, 2_000_001]) assert.strictEqual(runTokenBudget(bad), 1_000_000)
    assert.strictEqual(runTokenBudget(4_096), RUN_TOKEN_BUDGET_MIN)
    assert.strictEqual(runTokenBudget(50_000), 400_000)
    assert.strictEqual(runTokenBudget(50_001), 400_008)
    assert.strictEqual(runTokenBudget(128_000), 1_024_000)
    assert.strictEqual(runTokenBudget(1_000_000), RUN_TOKEN_BUDGET_MAX)
    assert.strictEqual(runTokenBudget(2_000_000), 8_000_000)
  })
})

describe("contextBar", () => {
  it("shows used against a trusted window, and nothing more without one", () => {
    assert.deepStrictEqual(
      contextBar({ used: 638, window: 4_096 }),
      new ContextBar({ used: 638, total: 4_096, percent: 16, basis: "window" })
    )
    assert.deepStrictEqual(contextBar({ used: 850, window: 4_096 }).percent, 21)
    assert.deepStrictEqual(contextBar({ used: 5_000, window: 4_096 }).percent, 122)
    assert.deepStrictEqual(contextBar({ used: 638 }), new ContextBar({ used: 638, basis: "unknown" }))
    assert.deepStrictEqual(contextBar({ used: 638, window: 3_000_000 }).basis, "unknown")
    assert.deepStrictEqual(contextBar({ used: Number.NaN, window: 4_096 }).used, 0)
  })

  it("formats like the tutorial's CLI line", () => {
    assert.strictEqual(formatContextBar(contextBar({ used: 638, window: 4_096 })), "ctx 638/4.1k (16%)")
    assert.strictEqual(formatContextBar(contextBar({ used: 882, window: 4_096 })), "ctx 882/4.1k (22%)")
    assert.strictEqual(formatContextBar(contextBar({ used: 52_300, window: 1_000_000 })), "ctx 52k/1M (5%)")
    assert.strictEqual(formatContextBar(contextBar({ used: 52_300 })), "ctx 52k (window unknown)")
  })
})
