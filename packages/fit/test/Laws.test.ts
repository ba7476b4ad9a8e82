import { formats, type Message } from "@ctxkit/core"
import { type ContextStrategy, strategies } from "@ctxkit/fit"
import { conversation, fitLaws, formatNames, type StrategyUnderTest } from "@ctxkit/testing"
import type { Rendered } from "@ctxkit/testing/Scenario"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const builtins: ReadonlyArray<ContextStrategy> = Object.values(strategies)
const compress = { compress: { threshold: 30, keep: 10 } }

/**
 * Canonical conversations whose messages carry `meta.relevance` (valid, out of range, NaN or absent) and
 * `meta.manualExcluded`, so that vector-recall and manual have something to read.
 */
const withMeta: fc.Arbitrary<Rendered<unknown>> = fc.tuple(
  conversation("canonical"),
  fc.array(
    fc.record({
      relevance: fc.oneof(
        fc.constant(undefined),
        fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
        fc.constantFrom(1.5, -0.2, Number.NaN, "high")
      ),
      manualExcluded: fc.boolean()
    }),
    { minLength: 1, maxLength: 40 }
  )
).map(([rendered, metas]) => ({
  keys: rendered.keys,
  messages: (rendered.messages as ReadonlyArray<Message>).map((m, i) => {
    const meta = metas[i % metas.length] ?? { relevance: undefined, manualExcluded: false }
    return {
      ...m,
      meta: {
        ...(meta.relevance === undefined ? {} : { relevance: meta.relevance }),
        ...(meta.manualExcluded ? { manualExcluded: true } : {})
      }
    }
  })
}))

describe("the fitting laws hold for every built-in strategy on every wire format", () => {
  for (const strategy of builtins) {
    // L6 minimality and L7 monotonicity are laws of truncation only.
    const truncating = strategy.id === "truncate"
    const laws = { minimality: truncating, monotonicity: truncating }
    for (const wire of formatNames) {
      it(`${strategy.id} on ${wire}`, () => {
        fc.assert(fitLaws(strategy, { wireFormat: wire, ...laws }), { numRuns: runs.standard })
      })
      it(`${strategy.id} on ${wire}, compressing`, () => {
        fc.assert(fitLaws(strategy, { wireFormat: wire, ...laws, fitOptions: compress }), { numRuns: runs.some })
      })
    }
    it(`${strategy.id} on every format read with formats.auto`, () => {
      for (const wire of formatNames) {
        fc.assert(fitLaws(strategy, { wireFormat: wire, format: formats.auto as never, ...laws }), {
          numRuns: runs.few
        })
      }
    })
    it(`${strategy.id} with relevance and manual marks, and without protecting the current request`, () => {
      fc.assert(fitLaws(strategy, { arbitrary: withMeta, ...laws }), { numRuns: runs.standard })
      fc.assert(
        fitLaws(strategy, {
          arbitrary: withMeta,
          ...laws,
          protectCurrentRequest: false,
          fitOptions: { protectCurrentRequest: false }
        }),
        { numRuns: runs.some }
      )
    })
    it(`${strategy.id} with orphans, dangling calls, and another counter and overhead`, () => {
      const words = (text: string): number => text.split(/\s+/).filter(Boolean).length * 1.5
      fc.assert(
        fitLaws(strategy, {
          wireFormat: "openaiResponses",
          scenario: { orphans: true, dangling: true },
          countTokens: words,
          perMessageOverhead: 0.5,
          ...laws
        }),
        { numRuns: runs.standard }
      )
    })
  }
})

/** Wraps the truncate strategy and breaks one law. */
const broken = (id: string, fit: StrategyUnderTest["fit"]): StrategyUnderTest => ({ id, fit })
const truncate: StrategyUnderTest = strategies.truncate

const misbehaving: ReadonlyArray<StrategyUnderTest> = [
  broken("drops-the-system-prompt", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    const first = r.kept[0]
    if (first === undefined || options.format.role(first) !== "system") return r
    return { ...r, kept: r.kept.slice(1), excluded: [...r.excluded, { message: first }] }
  }),
  broken("splits-groups", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    const tool = r.kept.find((m) => options.format.role(m) === "tool")
    if (tool === undefined) return r
    return { ...r, kept: r.kept.filter((m) => m !== tool), excluded: [...r.excluded, { message: tool }] }
  }),
  broken("ignores-the-budget", (messages, count, _budget, options) => ({
    ...truncate.fit(messages, count, Number.MAX_SAFE_INTEGER, options),
    fits: true,
    tokens: truncate.fit(messages, count, Number.MAX_SAFE_INTEGER, options).tokens
  })),
  broken("gives-up", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    return r.excluded.length > 0 ? { ...r, fits: false } : r
  }),
  broken("drops-too-much", (messages, count, budget, options) => truncate.fit(messages, count, budget * 0.5, options)),
  broken("reorders", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    return { ...r, kept: [...r.kept].reverse() }
  }),
  broken("mutates", (messages, count, budget, options) => {
    ;(messages as Array<unknown>).sort()
    return truncate.fit(messages, count, budget, options)
  }),
  broken("misreports-tokens", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    return { ...r, tokens: r.tokens + 1 }
  }),
  broken("rewrites-call-ids", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    const at = r.kept.findIndex((m) => options.format.role(m) === "tool")
    const original = r.kept[at]
    if (original === undefined) return r
    const copy = { ...(original as Message), toolCallId: "changed" }
    return { ...r, kept: r.kept.map((m, i) => i === at ? copy : m), truncated: [{ original, message: copy }] }
  }),
  broken("not-idempotent", (messages, count, budget, options) => {
    const r = truncate.fit(messages, count, budget, options)
    const [first, ...rest] = r.kept
    return first !== undefined && messages.length > 2
      ? { ...r, kept: rest, excluded: [...r.excluded, { message: first }], fits: r.fits }
      : r
  })
]

describe("the laws catch a misbehaving strategy", () => {
  for (const strategy of misbehaving) {
    it(strategy.id, () => {
      const result = fc.check(
        fitLaws(strategy, { wireFormat: "canonical", minimality: true, monotonicity: true }),
        { numRuns: runs.many }
      )
      assert.isTrue(result.failed, `${strategy.id} passed the laws`)
    })
  }
})
