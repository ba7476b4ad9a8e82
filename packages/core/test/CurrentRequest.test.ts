import { formats, type Message, type OpenAiChatMessage } from "@ctxkit/core"
import { currentRequest, REQUEST_READING, startsTurn, type TurnReading, turnStart } from "@ctxkit/core/CurrentRequest"
import { checkpointHeader } from "@ctxkit/core/InsertedText"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const chat = formats.openaiChat

describe("currentRequest: the last user message that is not a summary", () => {
  it("is the last user message; tool results, replies and summaries are passed over", () => {
    const messages: ReadonlyArray<OpenAiChatMessage> = [
      { role: "system", content: "be brief" },
      { role: "user", content: "read a.ts" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }]
      },
      { role: "tool", tool_call_id: "c1", content: "export {}" },
      { role: "assistant", content: "It is empty." }
    ]
    assert.strictEqual(currentRequest(messages, chat), 1)
    const withSummary: ReadonlyArray<OpenAiChatMessage> = [...messages, {
      role: "user",
      content: `${checkpointHeader(4)}\n\n## Goal\nread a.ts`
    }]
    assert.strictEqual(currentRequest(withSummary, chat), 1)
  })

  it("skip passes over a host's own notes; none at all is -1", () => {
    const messages: ReadonlyArray<OpenAiChatMessage> = [{ role: "user", content: "first" }, {
      role: "user",
      content: "note"
    }]
    assert.strictEqual(currentRequest(messages, chat), 1)
    assert.strictEqual(currentRequest(messages, chat, (i) => i === 1), 0)
    assert.strictEqual(currentRequest([{ role: "assistant", content: "hi" }], chat), -1)
    assert.strictEqual(currentRequest([], chat), -1)
  })
})

describe("startsTurn and turnStart: one reading of turns, its differences explicit", () => {
  const canonical = formats.canonical
  const invariantsBlock: Message = { role: "user", content: "<invariants policy=\"1\">\n- Use tabs.\n</invariants>" }
  const checkpoint: Message = { role: "user", content: `${checkpointHeader(6)}\n\n## Goal\nship it` }
  const request: Message = { role: "user", content: "ship it" }
  const readings: ReadonlyArray<TurnReading> = [
    { checkpoints: false, invariantsBlock: false },
    { checkpoints: false, invariantsBlock: true },
    { checkpoints: true, invariantsBlock: false },
    { checkpoints: true, invariantsBlock: true }
  ]

  it("a checkpoint starts a turn only with checkpoints, the invariants block only with invariantsBlock", () => {
    for (const reading of readings) {
      assert.strictEqual(startsTurn(request, canonical, reading), true)
      assert.strictEqual(startsTurn(checkpoint, canonical, reading), reading.checkpoints)
      assert.strictEqual(startsTurn(invariantsBlock, canonical, reading), reading.invariantsBlock)
      assert.strictEqual(startsTurn({ role: "assistant", content: "ok" }, canonical, reading), false)
      assert.strictEqual(startsTurn({ role: "tool", toolCallId: "c1", content: "out" }, canonical, reading), false)
    }
  })

  it("the current request is the request reading: the invariants block counts, a checkpoint does not", () => {
    const messages = [request, { role: "assistant", content: "ok" } as Message, checkpoint, invariantsBlock]
    assert.strictEqual(currentRequest(messages, canonical), 3)
    assert.strictEqual(currentRequest(messages, canonical), turnStart(messages, canonical, REQUEST_READING))
    assert.strictEqual(turnStart(messages, canonical, { checkpoints: false, invariantsBlock: false }), 0)
    assert.strictEqual(turnStart(messages, canonical, { checkpoints: true, invariantsBlock: false }), 2)
    assert.strictEqual(turnStart(messages, canonical, { checkpoints: true, invariantsBlock: true }, { turns: 3 }), 0)
  })

  // A hand-written reference: every position that starts a turn, then count back `turns` of them below `before`.
  const reference = (
    messages: ReadonlyArray<Message>,
    reading: TurnReading,
    turns: number,
    before: number
  ): number => {
    const starts = messages.flatMap((m, i) => {
      if (i >= before || m.role !== "user") return []
      const text = typeof m.content === "string" ? m.content : ""
      if (text.startsWith("[Checkpoint")) return reading.checkpoints ? [i] : []
      if (text.startsWith("<invariants")) return reading.invariantsBlock ? [i] : []
      return [i]
    })
    return starts.length >= turns ? starts[starts.length - turns] ?? -1 : -1
  }

  it("property: turnStart is the turns-th last turn start below before, under every reading", () => {
    const message = fc.constantFrom<Message>(
      request,
      checkpoint,
      invariantsBlock,
      { role: "assistant", content: "ok" },
      { role: "system", content: "be brief" }
    )
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 30 }),
        fc.constantFrom(...readings),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 35 }),
        (messages, reading, turns, before) => {
          assert.strictEqual(
            turnStart(messages, canonical, reading, { turns, before }),
            reference(messages, reading, turns, before)
          )
        }
      ),
      { numRuns: runs.some }
    )
  })
})
