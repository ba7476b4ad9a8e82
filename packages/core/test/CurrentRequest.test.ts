import { formats, type OpenAiChatMessage } from "@ctxkit/core"
import { currentRequest } from "@ctxkit/core/CurrentRequest"
import { checkpointHeader } from "@ctxkit/core/InsertedText"
import { assert, describe, it } from "@effect/vitest"

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
