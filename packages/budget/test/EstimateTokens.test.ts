import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { approximateCounter, CounterFailed, estimateTokens } from "./all.ts"
import { brokenCounters, nonFiniteNumbers } from "./helpers.ts"

describe("approximateCounter", () => {
  it("is ceil(length / 4) in UTF-16 code units, reported as approximate", () => {
    assert.strictEqual(approximateCounter.id, "approximate-chars-v1")
    assert.strictEqual(approximateCounter.id, "approximate-chars-v1")
    assert.isTrue(approximateCounter.approximate)
    assert.strictEqual(approximateCounter.count(""), 0)
    assert.strictEqual(approximateCounter.count("a"), 1)
    assert.strictEqual(approximateCounter.count("abcd"), 1)
    assert.strictEqual(approximateCounter.count("abcde"), 2)
    assert.strictEqual(approximateCounter.count("🚀"), 1) // two code units
  })

  it("counts a 50 MB text at once, without building anything", () => {
    const big = "x".repeat(50_000_000)
    assert.strictEqual(estimateTokens(big).tokens, 12_500_000)
  })
})

describe("estimateTokens", () => {
  it("uses the approximate counter by default and says so", () => {
    assert.deepStrictEqual(estimateTokens("const x = 1;"), {
      tokens: 3,
      counter: "approximate-chars-v1",
      approximate: true,
      diagnostics: []
    })
  })

  it("reports an exact counter as exact and rounds a fractional count up", () => {
    const words = { id: "halves", approximate: false, count: (text: string) => text.length / 2 }
    assert.deepStrictEqual(estimateTokens("abc", words), {
      tokens: 2,
      counter: "halves",
      approximate: false,
      diagnostics: []
    })
  })

  it("falls back to the approximate count, with a diagnostic naming the counter and the fix, for every broken counter", () => {
    for (const counter of brokenCounters) {
      const estimate = estimateTokens("hello world", counter)
      assert.strictEqual(estimate.tokens, 3, counter.id)
      assert.isTrue(estimate.approximate, counter.id)
      assert.strictEqual(estimate.counter, counter.id)
      assert.strictEqual(estimate.diagnostics.length, 1, counter.id)
      const diagnostic = estimate.diagnostics[0]
      assert.instanceOf(diagnostic, CounterFailed)
      assert.include(diagnostic?.message ?? "", `"${counter.id}"`)
      assert.include(diagnostic?.message ?? "", "approximateCounter")
    }
  })

  it("names what the counter did", () => {
    const [throws, , nan, negative] = brokenCounters
    assert.deepStrictEqual(
      estimateTokens("x", throws).diagnostics,
      [new CounterFailed({ counter: "throws", failure: "threw", detail: "vocabulary not loaded", texts: 1 })]
    )
    assert.deepStrictEqual(
      estimateTokens("x", nan).diagnostics,
      [new CounterFailed({ counter: "nan", failure: "invalid-count", detail: "NaN", texts: 1 })]
    )
    assert.deepStrictEqual(
      estimateTokens("x", negative).diagnostics,
      [new CounterFailed({ counter: "negative", failure: "invalid-count", detail: "-3", texts: 1 })]
    )
  })

  it("never returns a non-finite number, whatever the text and counter", () => {
    fc.assert(
      fc.property(fc.anything(), fc.constantFrom(approximateCounter, ...brokenCounters), (text, counter) => {
        const estimate = estimateTokens(text as string, counter)
        assert.deepStrictEqual(nonFiniteNumbers(estimate), [])
        assert.isTrue(Number.isInteger(estimate.tokens) && estimate.tokens >= 0)
      }),
      { numRuns: runs.many }
    )
  })

  it("treats a missing or garbage counter as the approximate one", () => {
    assert.strictEqual(estimateTokens("hello world", undefined).tokens, 3)
    assert.strictEqual(estimateTokens("hello world", null as never).counter, "approximate-chars-v1")
  })
})
