import { formats, toolGroups } from "@ctxkit/core"
import { conversation, deepFreeze, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"

// The one rule (docs/architecture.md): every pure function whose first parameter is the conversation is `dual`.
describe("toolGroups is dual: both forms give equal results", () => {
  it("on generated conversations (property)", () => {
    const format = formatOf("anthropic")
    fc.assert(fc.property(conversation("anthropic", { maxTurns: 10 }), (rendered) => {
      const m = deepFreeze(rendered.messages)
      assert.deepStrictEqual(pipe(m, toolGroups(format)), toolGroups(m, format))
      assert.deepStrictEqual(pipe(m, toolGroups()), toolGroups(m))
    }))
  })

  it("a value that is not a format is the conversation, not the data-last call", () => {
    for (const input of [null, undefined, 42, { messages: 3 }]) {
      assert.deepStrictEqual(toolGroups(input as unknown as ReadonlyArray<unknown>).groups, [])
    }
    assert.isFunction(toolGroups(formats.canonical))
  })
})
