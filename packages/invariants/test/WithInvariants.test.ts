import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { renderInvariants, withInvariants } from "@ctxkit/invariants"
import { deepFreeze, formatNames, formatOf, render } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"

const BLOCK = renderInvariants({ compacted: true, instructions: ["Never use semicolons in generated code"] }) ??
  assert.fail("a compacted session has a block")

describe("withInvariants", () => {
  it("appends the block as one extra user message at the end, made by the format, leaving the input untouched", () => {
    const scenario = {
      turns: [
        { kind: "system" as const, text: "You are a coding agent.", source: "system" as const, pinned: false },
        { kind: "user" as const, text: "Refactor the parser.", pinned: false, summary: false },
        { kind: "assistant" as const, text: "Done.", reasoning: undefined, calls: [] }
      ]
    }
    for (const name of formatNames) {
      const format = formatOf(name)
      const messages = deepFreeze(render(name, scenario).messages)
      const sent = withInvariants(messages, BLOCK, { format })
      assert.notStrictEqual(sent, messages)
      assert.strictEqual(sent.length, messages.length + 1, name)
      assert.isTrue(messages.every((m, i) => sent[i] === m), name)
      const note = sent[sent.length - 1]
      assert.deepStrictEqual(note, format.makeNote(BLOCK, { role: "user", kind: "invariants" }), name)
      assert.strictEqual(format.role(note), "user", name)
      assert.strictEqual(format.text(note), BLOCK, name)
      assert.isFalse(format.isSummary(note), name)
      assert.deepStrictEqual(format.validate(note, "messages[3]"), [], name)
    }
  })

  it("makes a plain { role, content } user message with the default format", () => {
    const messages: ReadonlyArray<Message> = deepFreeze([{ role: "user", content: "Go on." }])
    assert.deepStrictEqual(withInvariants(messages, BLOCK), [...messages, { role: "user", content: BLOCK }])
  })

  it("returns the input itself when there is no block (before the first compaction)", () => {
    const messages = deepFreeze([{ role: "user", content: "Go on." }])
    const block = renderInvariants({ compacted: false, instructions: ["x"] })
    assert.strictEqual(withInvariants(messages, block), messages)
    assert.strictEqual(withInvariants(messages, ""), messages)
    assert.deepStrictEqual(withInvariants(null as never, BLOCK), [{ role: "user", content: BLOCK }])
  })

  it("is data-last too", () => {
    const messages = [{ role: "user", content: "Go on." }]
    const format = formats.openaiChat as MessageFormat<unknown>
    assert.deepStrictEqual(pipe(messages, withInvariants(BLOCK, { format })), [...messages, {
      role: "user",
      content: BLOCK
    }])
    assert.strictEqual(pipe(messages, withInvariants(undefined)), messages)
  })
})
