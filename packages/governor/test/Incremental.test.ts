/**
 * The analysis kept between requests (`GovernResult.analysis`, passed back as the `analysis` option): over a
 * growing history, extending the previous analysis gives exactly what a fresh analysis gives — messages,
 * elisions, event, report and usage — in every wire format, and a kept analysis never changes.
 */
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { contextReport, govern, seedToolKinds, usageSummary } from "@ctxkit/governor"
import type { GovernOptions } from "@ctxkit/governor/Govern"
import { deepEqual, formatOf, render } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { body, call, read, result, say, user } from "./helpers.ts"
import { governedScenario } from "./scenarios.ts"

const options = (format: MessageFormat<unknown>, extra: GovernOptions<unknown>): GovernOptions<unknown> => ({
  format,
  toolKinds: seedToolKinds,
  minAgeTurns: 1,
  hashReads: true,
  ...extra
})

/** Asserts that two governor results are the same request, elisions and event. */
const sameResult = (a: ReturnType<typeof govern>, b: ReturnType<typeof govern>, label: string): void => {
  assert.isTrue(deepEqual(a.messages, b.messages), `${label}: messages`)
  assert.deepStrictEqual(a.elisions, b.elisions, `${label}: elisions`)
  assert.deepStrictEqual(a.event, b.event, `${label}: event`)
  assert.strictEqual(a.analysis?.messages, b.analysis?.messages, `${label}: analysed length`)
}

describe("govern with the previous analysis", () => {
  for (const name of ["canonical", "openaiChat", "anthropic", "aiSdk"] as const) {
    it(`${name}: extending the previous analysis, turn by turn, equals analysing from scratch`, () => {
      const format = formatOf(name)
      let elided = 0
      fc.assert(
        fc.property(
          governedScenario,
          fc.constantFrom(0, 3, 8),
          fc.integer({ min: 1, max: 4 }),
          fc.constantFrom("on" as const, "shadow" as const),
          (scenario, epochMessages, step, mode) => {
            const messages = render(name, scenario).messages
            let previous = govern(messages.slice(0, 0), options(format, { mode, epochMessages })).analysis
            for (let n = 1; n <= messages.length; n += step) {
              const history = messages.slice(0, n)
              const fresh = govern(history, options(format, { mode, epochMessages, usage: true }))
              const extended = govern(
                history,
                options(format, { mode, epochMessages, usage: true, analysis: previous })
              )
              sameResult(extended, fresh, `${n} messages`)
              elided += fresh.elisions.length
              previous = extended.analysis
            }
          }
        ),
        { numRuns: 15 }
      )
      // The property is only worth something when the histories elide.
      assert.isAbove(elided, 50)
    })
  }

  it("a kept analysis never changes: extending it twice, or going back to it, gives the fresh results", () => {
    const format = formatOf("openaiChat")
    fc.assert(
      fc.property(governedScenario, fc.nat(), fc.nat(), (scenario, a, b) => {
        const messages = render("openaiChat", scenario).messages
        const cut = a % (messages.length + 1)
        const other = b % (messages.length + 1)
        const o = options(format, { mode: "on", epochMessages: 0 })
        const base = govern(messages.slice(0, cut), o)
        // Two branches from one base: the longer one first, then a shorter one, then the base itself.
        const long = govern(messages, { ...o, analysis: base.analysis })
        const short = govern(messages.slice(0, Math.max(cut, other)), { ...o, analysis: base.analysis })
        const again = govern(messages.slice(0, cut), { ...o, analysis: base.analysis })
        sameResult(long, govern(messages, o), "long branch")
        sameResult(short, govern(messages.slice(0, Math.max(cut, other)), o), "short branch")
        sameResult(again, base, "the base again")
        // A history that differs after the base (another user message there) after the ledger grew past it.
        const diverged = [
          ...messages.slice(0, cut),
          { role: "user", content: "something else" },
          ...messages.slice(cut)
        ]
        const fresh = govern(diverged, o)
        sameResult(govern(diverged, { ...o, analysis: base.analysis }), fresh, "a diverging branch")
        sameResult(govern(diverged, { ...o, analysis: long.analysis }), fresh, "a diverging branch of the long one")
      }),
      { numRuns: 25 }
    )
  })

  it("the report and the usage summary take the analysis too, with the same results", () => {
    const format = formatOf("anthropic")
    fc.assert(
      fc.property(governedScenario, fc.nat(), (scenario, a) => {
        const messages = render("anthropic", scenario).messages
        const cut = a % (messages.length + 1)
        const o = options(format, { mode: "on", epochMessages: 4 })
        const { analysis } = govern(messages.slice(0, cut), o)
        assert.deepStrictEqual(contextReport(messages, { ...o, analysis }), contextReport(messages, o))
        assert.deepStrictEqual(usageSummary(messages, { ...o, analysis }), usageSummary(messages, o))
      }),
      { numRuns: 60 }
    )
  })

  it("reads the history anew when it does not extend the analysed one, or the mapping or format changed", () => {
    const history: Array<Message> = [
      user("Fix a.ts"),
      read("r1", "a.ts"),
      result("r1", body("v1")),
      call("e1", "edit_file", { path: "a.ts" }),
      result("e1", "ok"),
      say("done"),
      user("thanks")
    ]
    const o: GovernOptions<Message> = { mode: "on", epochMessages: 0, format: formats.canonical }
    const first = govern(history, o)
    assert.deepStrictEqual(first.elisions.map((e) => e.callId), ["r1"])
    // The same history rebuilt (other objects, another text for r1's result): the kept analysis is not used.
    const rebuilt = history.map((m) => structuredClone(m))
    rebuilt[2] = result("r1", "short")
    assert.deepStrictEqual(govern(rebuilt, { ...o, analysis: first.analysis }).elisions, [])
    // Another tool mapping: nothing is a read any more.
    assert.deepStrictEqual(govern(history, { ...o, analysis: first.analysis, toolKinds: {} }).elisions, [])
    // Not an analysis at all (a JavaScript caller's mistake): read anew, same result.
    const junk = { messages: 7 } as unknown as GovernOptions<Message>["analysis"]
    assert.deepStrictEqual(govern(history, { ...o, analysis: junk }).elisions, first.elisions)
    // Off: nothing analysed, nothing to keep.
    assert.isUndefined(govern(history, { ...o, mode: "off" }).analysis)
    assert.strictEqual(first.analysis?.messages, history.length)
  })
})
