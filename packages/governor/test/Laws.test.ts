/**
 * Law L10 (quality.md) as fast-check properties, in every wire format: `shadow` deep-equals `off`; `on` changes only
 * the text of eligible results, to one ASCII line shorter than the original; the stored history is untouched; between
 * epochs each request is a prefix of the next.
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { govern, seedToolKinds } from "@ctxkit/governor"
import type { GovernOptions } from "@ctxkit/governor/Govern"
import { conversation, deepEqual, deepFreeze, type FormatName, formatNames, formatOf, render } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { governedScenario } from "./scenarios.ts"

const NON_ASCII_LINE = /[^\x20-\x7e]/

const options = (format: MessageFormat<unknown>, extra: GovernOptions<unknown> = {}): GovernOptions<unknown> => ({
  format,
  toolKinds: seedToolKinds,
  minAgeTurns: 1,
  epochMessages: 0,
  ...extra
})

/** Checks L10's single-request parts on one history; returns the number of elisions. */
const checkRequest = (
  messages: ReadonlyArray<unknown>,
  format: MessageFormat<unknown>,
  extra: GovernOptions<unknown> = {}
): number => {
  const snapshot = structuredClone(messages)
  const history = deepFreeze(messages)
  const off = govern(history, options(format, { ...extra, mode: "off" }))
  const shadow = govern(history, options(format, { ...extra, mode: "shadow" }))
  const on = govern(history, options(format, { ...extra, mode: "on" }))
  // shadow sends byte for byte what off sends (the same array, even).
  assert.strictEqual(off.messages, history)
  assert.strictEqual(shadow.messages, history)
  assert.isTrue(deepEqual(shadow.messages, off.messages))
  assert.deepStrictEqual(shadow.elisions, on.elisions)
  // on: same length, roles, ids and calls; untouched messages are the same objects.
  assert.strictEqual(on.messages.length, history.length)
  const byCall = new Map(on.elisions.map((e) => [e.callId, e]))
  let changedResults = 0
  on.messages.forEach((message, i) => {
    const original = history[i]
    if (message === original) return
    assert.strictEqual(format.role(message), format.role(original))
    assert.strictEqual(format.id(message), format.id(original))
    assert.deepStrictEqual(format.toolCalls(message), format.toolCalls(original))
    const before = format.toolResults(original)
    const after = format.toolResults(message)
    assert.deepStrictEqual(after.map((r) => [r.callId, r.isError]), before.map((r) => [r.callId, r.isError]))
    let restored: unknown = message
    after.forEach((r, k) => {
      const was = before[k]
      if (was === undefined || r.text === was.text) return
      changedResults++
      const elision = byCall.get(r.callId)
      assert.isDefined(elision, `changed result ${r.callId} is an elision`)
      assert.strictEqual(elision?.index, i)
      assert.strictEqual(r.text, elision?.stub)
      assert.notMatch(r.text, NON_ASCII_LINE)
      assert.isBelow(r.text.length, was.text.length)
      assert.isFalse(was.isError)
      restored = format.withResultText(restored, r.callId, was.text)
    })
    // Putting the original texts back gives the original message as the lens rewrites it (a format may normalize
    // a result's shape when its text is replaced, e.g. AI SDK `content` outputs become `text`): only texts changed.
    let normalized: unknown = original
    for (const r of before) normalized = format.withResultText(normalized, r.callId, r.text)
    assert.isTrue(
      deepEqual(restored, original) || deepEqual(restored, normalized),
      `only result texts changed in message ${i}`
    )
  })
  assert.strictEqual(changedResults, on.elisions.length)
  // The stored history is untouched (it is frozen, and equal to its snapshot).
  assert.isTrue(deepEqual(history, snapshot))
  return on.elisions.length
}

const FORMATS: ReadonlyArray<FormatName> = formatNames

describe("L10 governor laws", () => {
  for (const name of FORMATS) {
    it(`${name}: shadow = off; on changes only eligible result texts to shorter ASCII lines; history untouched`, () => {
      const format = formatOf(name)
      let elisions = 0
      fc.assert(
        fc.property(governedScenario, fc.boolean(), (scenario, hashReads) => {
          elisions += checkRequest(render(name, scenario).messages, format, { hashReads })
        }),
        { numRuns: runs.standard }
      )
      // The generator is rich enough for the property to mean something.
      assert.isAbove(elisions, 100)
    })
  }

  it("auto: the same laws when the format is detected per message", () => {
    fc.assert(
      fc.property(governedScenario, fc.constantFrom(...FORMATS), (scenario, name) => {
        checkRequest(render(name, scenario).messages, formats.auto)
        checkRequest(render(name, scenario).messages, formatOf(name), { epochMessages: 4, minAgeTurns: 2 })
      }),
      { numRuns: runs.some }
    )
  })

  for (const name of ["canonical", "openaiResponses", "anthropic", "langchain"] as const) {
    it(`${name}: the generic conversations of @ctxkit/testing (huge, non-ASCII, orphans, dangling calls) obey the laws`, () => {
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true, maxTurns: 30 }), (rendered) => {
          checkRequest(rendered.messages, formatOf(name))
        }),
        { numRuns: runs.some }
      )
    })
  }

  for (const name of ["canonical", "openaiChat", "anthropic", "aiSdk"] as const) {
    it(`${name}: between epochs, each request of a growing history is a prefix of the next`, () => {
      const format = formatOf(name)
      let boundaries = 0
      let elided = 0
      fc.assert(
        fc.property(governedScenario, fc.constantFrom(3, 4, 8), (scenario, epochMessages) => {
          const messages = render(name, scenario).messages
          let previous =
            govern(messages.slice(0, 0), options(format, { mode: "on", epochMessages, hashReads: true })).messages
          for (let n = 1; n <= messages.length; n++) {
            const step = govern(messages.slice(0, n), options(format, { mode: "on", epochMessages, hashReads: true }))
            const current = step.messages
            elided += step.elisions.length
            if (Math.floor((n - 1) / epochMessages) === Math.floor(n / epochMessages)) {
              previous.forEach((m, i) =>
                assert.isTrue(deepEqual(m, current[i]), `request ${n - 1} is a prefix of ${n}`)
              )
            } else boundaries++
            previous = current
          }
        }),
        { numRuns: runs.some }
      )
      assert.isAbove(boundaries, 0)
      assert.isAbove(elided, 100)
    })
  }

  it("is deterministic: the same history gives the same stubs and the same event", () => {
    fc.assert(
      fc.property(governedScenario, (scenario) => {
        const messages = render("openaiChat", scenario).messages
        const a = govern(messages, options(formatOf("openaiChat"), { mode: "on", usage: true }))
        const b = govern(structuredClone(messages), options(formatOf("openaiChat"), { mode: "on", usage: true }))
        assert.isTrue(deepEqual(a.messages, b.messages))
        assert.deepStrictEqual(a.elisions, b.elisions)
        assert.deepStrictEqual(a.event, b.event)
      }),
      { numRuns: runs.some }
    )
  })
})
