/**
 * Every public entry point of @ctxkit/budget tried with hostile input (quality.md, "Bad input"): wrong types,
 * NaN / negative / zero / infinite windows and budgets, broken counters, a 50 MB text, deeply nested and
 * cyclic values, surrogate pairs / combining marks / NUL. The result is a value or a diagnostic — never a
 * throw, never a non-finite number, never a mutated input.
 */
import { deepFreeze, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import * as Budget from "./all.ts"
import { brokenCounters, nonFiniteNumbers } from "./helpers.ts"

const numbers = fc.oneof(
  fc.constantFrom(0, -0, -1, Number.NaN, Infinity, -Infinity, 2_000_000, 2_000_001, Number.MAX_VALUE, 1e-300),
  fc.double(),
  fc.integer()
)
const hostile = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.anything({ maxDepth: 3, withBigInt: true, withNullPrototype: true, withBoxedValues: true })
  },
  { weight: 2, arbitrary: numbers },
  { weight: 1, arbitrary: fc.constantFrom(...brokenCounters) }
)

const deep = (depth: number): unknown => {
  let value: unknown = { leaf: true }
  for (let i = 0; i < depth; i++) value = { nested: value }
  return value
}
const cyclic: Record<string, unknown> = { name: "loop" }
cyclic["self"] = cyclic

type Entry = readonly [string, (a: unknown, b: unknown, c: unknown) => unknown]

const entries: ReadonlyArray<Entry> = [
  ["estimateTokens", (a, b) => Budget.estimateTokens(a as string, b as Budget.TokenCounter)],
  ["messageCost", (a, b) => Budget.messageCost(a, b as Budget.CostOptions<unknown>)],
  [
    "conversationCost",
    (a, b) => Budget.conversationCost(a as ReadonlyArray<unknown>, b as Budget.CostOptions<unknown>)
  ],
  ["toolCatalogCost", (a, b) => Budget.toolCatalogCost(a as Budget.ToolCatalog, b as Budget.TokenCounter)],
  ["serializeToolCatalog", (a) => Budget.serializeToolCatalog(a as Budget.ToolCatalog)],
  ["requestChars", (a) => Budget.requestChars(a as Budget.RequestParts<unknown>)],
  ["isTrustedWindow", (a) => Budget.isTrustedWindow(a)],
  ["resolveWindow", (a) => Budget.resolveWindow(a as Budget.WindowCandidates)],
  ["effectiveBudget", (a, b) => Budget.effectiveBudget(a as number, b as number)],
  ["reserve", (a, b, c) => Budget.reserve(a as number, b as number, c as number)],
  ["available", (a, b, c) => Budget.available(a as number, b as number, c as number)],
  ["shouldCompactContext", (a) => Budget.shouldCompactContext(a as Budget.ContextTriggerInput)],
  ["charRuleFires", (a) => Budget.charRuleFires(a as Budget.CharRuleInput)],
  ["runTokenBudget", (a) => Budget.runTokenBudget(a as number)],
  ["readUsage", (a) => Budget.readUsage(a)],
  ["promptTokens", (a) => Budget.promptTokens(a)],
  ["makeUsageLedger", (a) => Budget.makeUsageLedger(a as { model?: string })],
  ["recordUsage", (a, b) => Budget.recordUsage(a as Budget.UsageLedger, b as Budget.UsageReport)],
  ["clearUsageLedger", (a, b) => Budget.clearUsageLedger(a as Budget.UsageLedger, b as Budget.LedgerClearReason)],
  ["ledgerUsed", (a, b) => Budget.ledgerUsed(a as Budget.UsageLedger, b as Budget.LedgerUsedOptions<unknown>)],
  ["calibrate", (a, b) => Budget.calibrate(a as Budget.Calibration, b as Budget.CalibrationInput)],
  ["applyCalibration", (a, b) => Budget.applyCalibration(a as number, b as Budget.Calibration)],
  ["contextBar", (a) => Budget.contextBar(a as { used: number })],
  ["formatContextBar", (a) => Budget.formatContextBar(Budget.contextBar(a as { used: number }))]
]

const check = (name: string, result: unknown): void => {
  // Diagnostics carry the offending value as text; every number in a result must be finite.
  assert.deepStrictEqual(nonFiniteNumbers(result), [], name)
}

describe("bad input: every entry point", () => {
  for (const [name, call] of entries) {
    it(`${name}: never throws, never returns a non-finite number, on anything`, () => {
      fc.assert(
        fc.property(hostile, hostile, hostile, (a, b, c) => {
          check(name, call(a, b, c))
        }),
        { numRuns: runs.more }
      )
    })
  }

  it("objects with hostile fields: windows, budgets, measures and settings", () => {
    const record = fc.record(
      {
        usedTokens: numbers,
        requestChars: numbers,
        conversationChars: numbers,
        charsAfterLastAutoCompaction: numbers,
        window: numbers,
        maxContextChars: numbers,
        threshold: numbers,
        maxTokens: numbers,
        auto: fc.anything(),
        configured: numbers,
        catalog: numbers,
        probe: numbers,
        fallback: numbers,
        used: numbers,
        tokens: numbers,
        estimate: numbers,
        truncated: fc.anything(),
        messagesAtRequest: numbers,
        epoch: numbers,
        perMessageOverhead: numbers,
        fixedTokens: numbers,
        messages: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 })
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(record, (input) => {
        for (const [name, call] of entries) {
          check(name, call(input, input, input))
          check(name, call(Budget.makeUsageLedger(), input, input))
          check(name, call(Budget.uncalibrated, input, input))
          // L9: works on the deep-frozen input, and gives the same result twice.
          assert.deepStrictEqual(purityViolations((x) => call(x, x, x), input), [], name)
        }
      }),
      { numRuns: runs.many }
    )
  })

  it("deep-frozen inputs are read, never written", () => {
    const messages = deepFreeze([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }])
    const ledger = deepFreeze(Budget.makeUsageLedger())
    const calibration = deepFreeze(Budget.uncalibrated)
    const tools = deepFreeze([{ name: "ls", input_schema: { type: "object" } }])
    assert.doesNotThrow(() => {
      Budget.conversationCost(messages, { cache: Budget.makeCostCache() })
      Budget.requestChars(deepFreeze({ instructions: ["a", "b"], messages, tools }))
      Budget.toolCatalogCost(tools)
      Budget.recordUsage(ledger, deepFreeze({ usage: { prompt_tokens: 5 }, messagesAtRequest: 1, truncated: false }))
      Budget.clearUsageLedger(ledger, "clearing")
      Budget.ledgerUsed(ledger, deepFreeze({ messages }))
      Budget.calibrate(calibration, deepFreeze({ tokens: 5, estimate: 4, truncated: false }))
    })
  })

  it("tool catalogs that resist serialization: cycles, bigints, deep nesting, throwing toJSON", () => {
    assert.strictEqual(Budget.serializeToolCatalog([cyclic]), "{\"name\":\"loop\",\"self\":\"[Circular]\"}")
    assert.strictEqual(Budget.serializeToolCatalog([{ max: 10n }]), "{\"max\":\"10\"}")
    const shared = { type: "string" }
    // The same object twice, side by side, is not a cycle.
    assert.strictEqual(
      Budget.serializeToolCatalog({ a: shared, b: shared }),
      "{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"}}"
    )
    const throwing = {
      toJSON: () => {
        throw new Error("no")
      }
    }
    const unreadable = Budget.toolCatalogCost([throwing])
    assert.strictEqual(unreadable.tokens, 0)
    assert.strictEqual(unreadable.diagnostics[0]?._tag, "CatalogUnreadable")
    const tooDeep = Budget.toolCatalogCost([deep(100_000)])
    assert.deepStrictEqual(nonFiniteNumbers(tooDeep), [])
    assert.strictEqual(tooDeep.diagnostics[0]?._tag, "CatalogUnreadable")
    assert.strictEqual(Budget.toolCatalogCost(undefined).tokens, 0)
  })

  it("a 50 MB message, tool catalog and instructions with the approximate counter", () => {
    const big = "z".repeat(50_000_000)
    assert.strictEqual(Budget.estimateTokens(big).tokens, 12_500_000)
    assert.strictEqual(Budget.toolCatalogCost(big).tokens, 12_500_000)
    const chars = Budget.requestChars({ instructions: big, messages: [{ role: "user", content: big }], tools: big })
    assert.strictEqual(chars.request, 150_000_000)
    assert.strictEqual(chars.conversation, 100_000_000)
    assert.isTrue(
      Budget.shouldCompactContext({ usedTokens: 25_000_008, requestChars: chars.request }).compact
    )
  })

  it("surrogate pairs, lone surrogates, combining marks and NUL count like any text", () => {
    for (const text of ["\uD83D\uDE80", "\uD83D", "\uDE00x", "e\u0301\u0301", "\u0000\u0000nul", "👩‍👩‍👧"]) {
      const estimate = Budget.estimateTokens(text)
      assert.strictEqual(estimate.tokens, Math.ceil(text.length / 4))
      assert.deepStrictEqual(Budget.conversationCost([{ role: "user", content: text }]).diagnostics, [])
    }
  })
})
