/**
 * Issue 11, defect 6, in core: toolGroups and repairPairs read their input through conversationMessages, so a
 * JavaScript caller's wrong input is named with its fix, never an empty success; an effect/ai Prompt is read as
 * its messages.
 */
import { type EffectAiMessage, formats, type OpenAiChatMessage, repairPairs, toolGroups } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"

const messages = [
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "zzz", content: "stale result" }
]
// What a JavaScript caller passes by mistake, with the words the diagnostic must contain.
const wrong: ReadonlyArray<readonly [unknown, string]> = [
  [{ messages }, "pass its messages (value.messages)"],
  [{ input: messages }, "pass its input (value.input)"],
  ["hello", "\"hello\""],
  [null, "null"],
  [42, "pass the conversation as an array"]
]
// Cast through unknown, as a JavaScript caller's value reaches the function.
const asMessages = <M = unknown>(value: unknown) => value as ReadonlyArray<M>

describe("a wrong input is named by toolGroups and repairPairs (defect 6)", () => {
  it("toolGroups: no groups and one NotAConversation naming the input and the fix", () => {
    for (const [bad, named] of wrong) {
      for (
        const result of [
          toolGroups(asMessages(bad)),
          toolGroups(asMessages<OpenAiChatMessage>(bad), formats.openaiChat)
        ]
      ) {
        assert.deepStrictEqual(result.groups, [])
        assert.deepStrictEqual(result.groupOf, [])
        assert.deepStrictEqual(result.diagnostics.map((d) => d._tag), ["NotAConversation"])
        assert.include(result.diagnostics[0]!.message, named)
      }
    }
  })

  it("repairPairs, data-first and data-last: nothing repaired, NotAConversation, never a function", () => {
    for (const [bad, named] of wrong) {
      for (
        const result of [
          repairPairs(asMessages(bad)),
          repairPairs(asMessages<OpenAiChatMessage>(bad), { format: formats.openaiChat }),
          repairPairs({ format: formats.openaiChat })(asMessages<OpenAiChatMessage>(bad))
        ]
      ) {
        assert.deepStrictEqual(result.messages, [])
        assert.deepStrictEqual(result.changes, [])
        assert.deepStrictEqual(result.diagnostics.map((d) => d._tag), ["NotAConversation"])
        assert.include(result.diagnostics[0]!.message, named)
      }
    }
    // Options alone are still the data-last form.
    assert.isFunction(repairPairs({ dangling: "drop" }))
    assert.isFunction(repairPairs())
  })

  it("an effect/ai Prompt is read as its messages", () => {
    const prompt = Prompt.make([
      { role: "user", content: "deploy" },
      {
        role: "assistant",
        content: [{ type: "tool-call", id: "c1", name: "deploy", params: {}, providerExecuted: false }]
      }
    ])
    const grouped = toolGroups(asMessages<EffectAiMessage>(prompt), formats.effectAi)
    assert.deepStrictEqual(grouped.groups, [[0], [1]])
    assert.deepStrictEqual(grouped.diagnostics.map((d) => d._tag), ["DanglingCall"])
    const repaired = repairPairs(asMessages(prompt), { dangling: "drop" })
    assert.deepStrictEqual(repaired.changes.map((c) => c._tag), ["CallDropped", "MessageDropped"])
    assert.deepStrictEqual(repaired.messages, [prompt.content[0]])
    const byDataLast = repairPairs({ format: formats.effectAi, dangling: "drop" })(asMessages<EffectAiMessage>(prompt))
    assert.deepStrictEqual(byDataLast.messages, [prompt.content[0]])
  })
})
