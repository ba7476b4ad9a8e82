/**
 * Laws L11 (compaction plan) and L12 (tail reduction) of quality.md as fast-check properties, in every wire format
 * and through `formats.auto`, on generated conversations (parallel calls, far results, approvals, reasoning,
 * pinned and memory blocks, summaries, slash commands logged as two user messages; huge texts for the reduction);
 * L11's monotone clause over keepTurns 0 to 6 and 20. Inputs are deep-frozen (purity) and every
 * call is made twice (determinism). The plan is also checked against the renderer's link keys, an oracle
 * independent of `toolGroups`.
 */
import { planCompaction, reduceToBudget } from "@ctxkit/compaction"
import { formats, type MessageFormat } from "@ctxkit/core"
import {
  conversation,
  deepEqual,
  deepFreeze,
  type FormatName,
  formatNames,
  formatOf,
  groupsFromKeys,
  keepTurnsViolations,
  planViolations,
  reductionViolations
} from "@ctxkit/testing"
import type { ScenarioOptions } from "@ctxkit/testing/Arbitraries"
import type { Rendered } from "@ctxkit/testing/Scenario"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const auto = formats.auto as MessageFormat<unknown>

const checkPlan = (
  rendered: Rendered<unknown>,
  format: MessageFormat<unknown>,
  keepTurns: number,
  minKeepMessages: number
): void => {
  const input = deepFreeze(rendered.messages)
  const options = { format, keepTurns, minKeepMessages }
  const plan = planCompaction(input, options)
  assert.deepStrictEqual(planViolations(input, plan, format), [])
  assert.isTrue(deepEqual(plan, planCompaction(input, options)), "two calls gave different plans")
  // Every generated option is valid: nothing may be reported as replaced.
  assert.deepStrictEqual(plan.diagnostics, [])
  if (plan._tag !== "CompactionPlan") return
  // The cut splits no group of the renderer's own link keys.
  for (const group of groupsFromKeys(rendered)) {
    const before = group.filter((i) => i < plan.cut).length
    assert.isTrue(before === 0 || before === group.length, `cut ${plan.cut} splits key group [${group.join(", ")}]`)
  }
  const summarized = plan.cut - plan.retained.length
  assert.isAtLeast(summarized, 2)
  if (plan.midTurn) assert.isAtLeast(plan.kept.length, minKeepMessages)
  else if (plan.cut < input.length) assert.include(plan.turnStarts, plan.cut)
  else assert.strictEqual(keepTurns, 0)
}

const checkReduction = (
  rendered: Rendered<unknown>,
  format: MessageFormat<unknown>,
  share: number,
  caps: { readonly tool: number | undefined; readonly text: number | undefined }
): void => {
  const input = deepFreeze(rendered.messages)
  const target = Math.floor(JSON.stringify(input).length * share)
  const options = { format, maxToolResultChars: caps.tool, maxTextChars: caps.text }
  const reduced = reduceToBudget(input, target, options)
  assert.deepStrictEqual(
    reductionViolations(input, reduced, target, format, {
      minToolResultChars: Math.min(512, caps.tool ?? 512),
      minTextChars: Math.min(1_024, caps.text ?? 1_024)
    }),
    []
  )
  assert.isTrue(deepEqual(reduced, reduceToBudget(input, target, options)), "two calls gave different reductions")
}

const SOURCE = "Zeile 🚀 données \"数据\" —\n\ttabs\u0000 ".repeat(4_000)

/**
 * Conversations whose texts and results are rewritten (through the lens itself) to sizes from 0 to 40,000
 * characters of text that JSON escapes unevenly (quotes, newlines, NUL, surrogate pairs): most messages are then
 * clippable, at every cap.
 */
const bulky = (wire: FormatName, format: MessageFormat<unknown>): fc.Arbitrary<Rendered<unknown>> =>
  fc.tuple(
    conversation(wire, { huge: false }),
    fc.array(fc.integer({ min: 0, max: 40_000 }), { minLength: 1, maxLength: 50 }),
    fc.nat(1_000)
  ).map(([rendered, sizes, offset]) => ({
    keys: rendered.keys,
    messages: rendered.messages.map((m, i) => {
      const length = sizes[i % sizes.length] ?? 0
      const body = (k: number): string => SOURCE.slice(offset + k, offset + k + length)
      const results = format.toolResults(m)
      if (results.length > 0) {
        return results.reduce((acc, r, k) => format.withResultText(acc, r.callId, body(k * 7)), m)
      }
      const role = format.role(m)
      return role === "user" || role === "assistant" ? format.withText(m, body(0)) : m
    })
  }))

const keepTurns = fc.integer({ min: 0, max: 6 })
const minKeep = fc.integer({ min: 1, max: 8 })
const share = fc.oneof(
  fc.double({ min: 0, max: 1.2, noNaN: true }),
  fc.constantFrom(0, 0.1, 0.25, 0.5, 0.9, 1)
)
const caps = fc.record({
  tool: fc.constantFrom(undefined, 100, 3_000, 20_000),
  text: fc.constantFrom(undefined, 500, 5_000, 50_000)
})

const planProperty = (wire: FormatName, format: MessageFormat<unknown>, scenario: ScenarioOptions = {}) =>
  fc.property(conversation(wire, scenario), keepTurns, minKeep, (rendered, keep, min) => {
    checkPlan(rendered, format, keep, min)
  })

/** L11's last clause: over keepTurns 0 to 6 (and 20, the maximum), a larger keepTurns never keeps fewer messages. */
const monotoneProperty = (wire: FormatName, format: MessageFormat<unknown>, scenario: ScenarioOptions = {}) =>
  fc.property(conversation(wire, scenario), minKeep, (rendered, min) => {
    const input = deepFreeze(rendered.messages)
    const planFor = (keepTurns: number) => planCompaction(input, { format, keepTurns, minKeepMessages: min })
    assert.deepStrictEqual(keepTurnsViolations(input, planFor, [0, 1, 2, 3, 4, 5, 6, 20]), [])
  })

const reductionProperty = (wire: FormatName, format: MessageFormat<unknown>, scenario: ScenarioOptions = {}) =>
  fc.property(conversation(wire, scenario), share, caps, (rendered, s, c) => {
    checkReduction(rendered, format, s, c)
  })

describe("L11: the compaction plan, in every wire format", () => {
  for (const wire of formatNames) {
    it(`${wire}`, () => {
      fc.assert(planProperty(wire, formatOf(wire)), { numRuns: runs.more })
    })
    it(`${wire}, with open calls and orphan results`, () => {
      fc.assert(planProperty(wire, formatOf(wire), { dangling: true, orphans: true }), { numRuns: runs.standard })
    })
  }
  it("every format read with formats.auto", () => {
    for (const wire of formatNames) fc.assert(planProperty(wire, auto, { dangling: true }), { numRuns: runs.few })
  })
  for (const wire of formatNames) {
    it(`${wire}: a larger keepTurns never keeps fewer messages (doubled user turns included)`, () => {
      fc.assert(monotoneProperty(wire, formatOf(wire)), { numRuns: 100 })
    })
  }
  it("every format read with formats.auto: a larger keepTurns never keeps fewer messages", () => {
    for (const wire of formatNames) fc.assert(monotoneProperty(wire, auto), { numRuns: 30 })
  })
  it("long conversations", () => {
    fc.assert(planProperty("anthropic", formatOf("anthropic"), { maxTurns: 120 }), { numRuns: runs.few })
  })
})

describe("L12: the tail reduction, in every wire format (huge texts included)", () => {
  for (const wire of formatNames) {
    it(`${wire}`, () => {
      fc.assert(reductionProperty(wire, formatOf(wire)), { numRuns: runs.some })
    })
  }
  for (const wire of formatNames) {
    it(`${wire}, every message bulky`, () => {
      const format = formatOf(wire)
      fc.assert(
        fc.property(bulky(wire, format), share, caps, (rendered, s, c) => checkReduction(rendered, format, s, c)),
        { numRuns: runs.few }
      )
    })
  }
  it("every format read with formats.auto, with open calls and orphans", () => {
    for (const wire of formatNames) {
      fc.assert(reductionProperty(wire, auto, { dangling: true, orphans: true }), { numRuns: runs.fewest })
    }
  })
})
