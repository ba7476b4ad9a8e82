import { type OpenAiChatMessage, repairPairs, toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { openaiChat } from "../../src/formats/OpenAiChat.ts"

// A Chat Completions exchange: developer prompt, parallel calls, a multimodal user turn, a refusal.
const chat: ReadonlyArray<OpenAiChatMessage> = deepFreeze([
  { role: "developer", content: "Answer in English." },
  {
    role: "user",
    content: [{ type: "text", text: "What is in this repo?" }, { type: "image_url", image_url: { url: "data:," } }]
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_ls", type: "function", function: { name: "list_dir", arguments: "{\"path\":\".\"}" } },
      { id: "call_pkg", type: "function", function: { name: "read_file", arguments: "{\"path\":\"package.json\"}" } }
    ]
  },
  { role: "tool", tool_call_id: "call_ls", content: "src\npackage.json" },
  { role: "tool", tool_call_id: "call_pkg", content: [{ type: "text", text: "{\"name\":\"demo\"}" }] },
  { role: "assistant", content: "A demo package.", refusal: null },
  { role: "user", content: "Thanks", pinned: true }
])

describe("formats.openaiChat", () => {
  it("reads roles, calls, results, text", () => {
    assert.deepStrictEqual(chat.map(openaiChat.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "user"
    ])
    assert.deepStrictEqual(openaiChat.toolCalls(chat[2]!), [
      { id: "call_ls", name: "list_dir", arguments: "{\"path\":\".\"}" },
      { id: "call_pkg", name: "read_file", arguments: "{\"path\":\"package.json\"}" }
    ])
    assert.deepStrictEqual(openaiChat.toolResults(chat[4]!), [
      { callId: "call_pkg", name: undefined, isError: false, text: "{\"name\":\"demo\"}" }
    ])
    assert.strictEqual(openaiChat.text(chat[1]!), "What is in this repo?")
    assert.deepStrictEqual(chat.map(openaiChat.isProtected), [true, false, false, false, false, false, true])
    assert.deepStrictEqual(toolGroups(chat, openaiChat).groups, [[0], [1], [2, 3, 4], [5], [6]])
  })

  it("rewrites keep ids and other parts", () => {
    const user = openaiChat.withText(chat[1]!, "What's here?")
    assert.deepStrictEqual(user.content, [{ type: "text", text: "What's here?" }, {
      type: "image_url",
      image_url: { url: "data:," }
    }])
    assert.deepStrictEqual(openaiChat.withResultText(chat[3]!, "call_ls", "[stub]"), {
      role: "tool",
      tool_call_id: "call_ls",
      content: "[stub]"
    })
    const one = openaiChat.withoutToolParts(chat[2]!, new Set(["call_ls"]))
    assert.deepStrictEqual(one?.tool_calls?.map((c) => c.id), ["call_pkg"])
    assert.strictEqual(openaiChat.withoutToolParts(chat[2]!, new Set(["call_ls", "call_pkg"])), undefined)
  })

  it("repairs a conversation whose last calls never got results", () => {
    const cut = chat.slice(0, 4)
    const { messages } = repairPairs(cut, { format: openaiChat })
    assert.deepStrictEqual(messages.map((m) => m.tool_call_id ?? m.role), [
      "developer",
      "user",
      "assistant",
      "call_ls",
      "call_pkg"
    ])
  })

  it("validates with paths and is total on garbage", () => {
    assert.deepStrictEqual(
      openaiChat.validate({ role: "tool", content: 5 }, "messages[2]").map((i) => i.path),
      ["messages[2].content", "messages[2].tool_call_id"]
    )
    assert.deepStrictEqual(
      openaiChat.validate({ role: "assistant", tool_calls: [{ function: {} }] }, "messages[0]").map((i) => i.path),
      ["messages[0].tool_calls[0].id"]
    )
    for (const junk of [null, 1, "s", [], {}, { tool_calls: {} }] as unknown as ReadonlyArray<never>) {
      assert.deepStrictEqual(openaiChat.links(junk), [])
      assert.strictEqual(typeof openaiChat.text(junk), "string")
    }
  })
})
