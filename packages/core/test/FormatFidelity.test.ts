/**
 * Law L18, format fidelity: on a conversation in one wire format, `formats.auto` reads every message exactly as
 * that format does — the same groups and diagnostics, texts, roles and flags (`fidelityViolations` of
 * `@ctxkit/testing`) and the same costs — and `detectFormat` names the format.
 */
import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { formats, type MessageFormat } from "@ctxkit/core"
import { conversation, formatFidelity, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const cost = (messages: ReadonlyArray<unknown>, format: MessageFormat<unknown>) =>
  conversationCost(messages, { format, counter: approximateCounter }).costs

describe("L18 format fidelity: formats.auto reads a one-format conversation as that format does", () => {
  for (const name of formatNames) {
    it(`${name}: same groups, diagnostics, texts and flags`, () => {
      fc.assert(formatFidelity(name, { huge: false }), { numRuns: 150 })
    })

    it(`${name}: same costs, message by message`, () => {
      fc.assert(
        fc.property(conversation(name, { huge: false }), (rendered) => {
          assert.deepStrictEqual(cost(rendered.messages, formats.auto), cost(rendered.messages, formatOf(name)))
        }),
        { numRuns: 100 }
      )
    })
  }
})
