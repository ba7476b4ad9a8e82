import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  DEFAULT_MAX_CONTEXT_CHARS,
  effectiveBudget,
  isTrustedWindow,
  resolveWindow,
  WINDOW_TRUST_LIMIT,
  WindowFallback,
  WindowIgnored
} from "./all.ts"

const untrusted = [0, -1, -4_096, Number.NaN, Infinity, -Infinity, 2_000_001, 10_000_000, Number.MAX_VALUE]

describe("the 2M trust boundary", () => {
  it("trusts 0 < window <= 2,000,000, and nothing else", () => {
    assert.strictEqual(WINDOW_TRUST_LIMIT, 2_000_000)
    assert.isTrue(isTrustedWindow(2_000_000))
    assert.isFalse(isTrustedWindow(2_000_001))
    assert.isTrue(isTrustedWindow(1))
    assert.isTrue(isTrustedWindow(4_096))
    for (const window of untrusted) assert.isFalse(isTrustedWindow(window), String(window))
    for (const window of [undefined, null, "4096", {}, [4_096]]) assert.isFalse(isTrustedWindow(window))
  })
})

describe("resolveWindow", () => {
  it("takes configured, then catalog, then probe, then fallback, and says where it came from", () => {
    const all = { configured: 8_192, catalog: 32_768, probe: 16_384, fallback: 4_096 }
    assert.deepStrictEqual(resolveWindow(all), { window: 8_192, source: "config", trusted: true, warnings: [] })
    assert.deepStrictEqual(resolveWindow({ ...all, configured: undefined }), {
      window: 32_768,
      source: "catalog",
      trusted: true,
      warnings: []
    })
    assert.deepStrictEqual(resolveWindow({ probe: 16_384, fallback: 4_096 }), {
      window: 16_384,
      source: "probe",
      trusted: true,
      warnings: []
    })
  })

  it("warns when it falls back: the tutorial's assumed 4,096", () => {
    const resolved = resolveWindow({ fallback: 4_096 })
    assert.strictEqual(resolved.window, 4_096)
    assert.strictEqual(resolved.source, "fallback")
    assert.isTrue(resolved.trusted)
    assert.deepStrictEqual(resolved.warnings, [new WindowFallback({ window: 4_096 })])
    assert.include(resolved.warnings[0]?.message ?? "", "assuming 4,096 tokens")
    assert.include(resolved.warnings[0]?.message ?? "", "Erring low only brings clearing and compaction forward")
  })

  it("with no fallback the window is unknown (budgets use characters), with a warning", () => {
    const resolved = resolveWindow({ fallback: undefined })
    assert.deepStrictEqual(resolved, {
      window: undefined,
      source: "fallback",
      trusted: false,
      warnings: [new WindowFallback({})]
    })
  })

  it("ignores an untrusted value as unknown, naming it, and goes on to the next source", () => {
    for (const bad of untrusted) {
      const resolved = resolveWindow({ configured: bad, catalog: 32_768, fallback: 4_096 })
      assert.strictEqual(resolved.window, 32_768)
      assert.strictEqual(resolved.source, "catalog")
      assert.deepStrictEqual(resolved.warnings, [new WindowIgnored({ source: "config", window: String(bad) })])
    }
    const none = resolveWindow({ catalog: 2_000_001, fallback: 0 })
    assert.strictEqual(none.window, undefined)
    assert.deepStrictEqual(none.warnings.map((w) => w._tag), ["WindowIgnored", "WindowIgnored", "WindowFallback"])
  })

  it("always returns a trusted window or none", () => {
    const value = fc.oneof(fc.double(), fc.integer(), fc.constant(undefined))
    fc.assert(
      fc.property(value, value, value, value, (configured, catalog, probe, fallback) => {
        const resolved = resolveWindow({ configured, catalog, probe, fallback })
        assert.strictEqual(resolved.trusted, resolved.window !== undefined)
        if (resolved.window !== undefined) assert.isTrue(isTrustedWindow(resolved.window))
        if (resolved.source === "fallback") assert.isTrue(resolved.warnings.some((w) => w._tag === "WindowFallback"))
      })
    )
  })
})

describe("effectiveBudget", () => {
  it("a trusted window is the budget", () => {
    assert.deepStrictEqual(effectiveBudget(32_768), { total: 32_768, basis: "window" })
    assert.deepStrictEqual(effectiveBudget(2_000_000), { total: 2_000_000, basis: "window" })
  })

  it("otherwise the char fallback: 800,000 chars ≈ 200,000 tokens by default", () => {
    assert.strictEqual(DEFAULT_MAX_CONTEXT_CHARS, 800_000)
    assert.deepStrictEqual(effectiveBudget(undefined), { total: 200_000, basis: "chars" })
    assert.deepStrictEqual(effectiveBudget(2_000_001), { total: 200_000, basis: "chars" })
    for (const bad of untrusted) assert.deepStrictEqual(effectiveBudget(bad), { total: 200_000, basis: "chars" })
    assert.deepStrictEqual(effectiveBudget(undefined, 400_000), { total: 100_000, basis: "chars" })
    assert.deepStrictEqual(effectiveBudget(undefined, 2), { total: 1, basis: "chars" }) // max(1, round(0.5))
    assert.deepStrictEqual(effectiveBudget(undefined, 1), { total: 1, basis: "chars" })
  })

  it("an invalid char budget is replaced by the default, never NaN", () => {
    for (const bad of [0, -1, Number.NaN, Infinity]) {
      assert.deepStrictEqual(effectiveBudget(undefined, bad), { total: 200_000, basis: "chars" })
    }
  })
})
