/**
 * Recovering uncertain tool results: every open call gets a result that records the uncertainty, nothing else
 * changes, and afterwards the history can be planned for compaction.
 */
import { planCompaction, recoverUncertainResults } from "@ctxkit/compaction"
import { formats, type Message, toolGroups } from "@ctxkit/core"
import { conversation, deepEqual, deepFreeze, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { UNCERTAIN_RESULT_NOTE } from "../src/Recover.ts"

const crashed: ReadonlyArray<Message> = deepFreeze([
  { role: "user", content: "Deploy the site." },
  {
    role: "assistant",
    content: "Deploying and checking.",
    toolCalls: [{ id: "c1", name: "deploy", arguments: "{\"env\":\"prod\"}" }, {
      id: "c2",
      name: "status",
      arguments: "{}"
    }]
  },
  { role: "tool", toolCallId: "c2", toolName: "status", content: "green" },
  { role: "user", content: "Did it work?" },
  { role: "assistant", content: "", toolCalls: [{ id: "c3", name: "curl", arguments: "{}" }] }
])

describe("recoverUncertainResults", () => {
  it("the note says the session stopped, the effects were not verified, and it was not run again", () => {
    assert.strictEqual(
      UNCERTAIN_RESULT_NOTE,
      "[The session stopped before this tool reported a result. Its effects were not verified and it was not run again: check them before relying on them.]"
    )
  })

  it("answers every open call after its issuer and the results that follow it; canonical results are uncertain", () => {
    const { messages, recovered } = recoverUncertainResults(crashed, { format: formats.canonical })
    assert.deepStrictEqual(recovered, ["c1", "c3"])
    assert.deepStrictEqual(messages, [
      crashed[0],
      crashed[1],
      crashed[2],
      { role: "tool", toolCallId: "c1", toolName: "deploy", content: UNCERTAIN_RESULT_NOTE, uncertain: true },
      crashed[3],
      crashed[4],
      { role: "tool", toolCallId: "c3", toolName: "curl", content: UNCERTAIN_RESULT_NOTE, uncertain: true }
    ])
    for (const [out, at] of [[0, 0], [1, 1], [2, 2], [4, 3], [5, 4]] as const) {
      assert.strictEqual(messages[out], crashed[at])
    }
  })

  it("formats.auto reads canonical messages the same way", () => {
    const { messages } = recoverUncertainResults(crashed)
    assert.deepStrictEqual(messages[3], {
      role: "tool",
      toolCallId: "c1",
      toolName: "deploy",
      content: UNCERTAIN_RESULT_NOTE,
      uncertain: true
    })
  })

  it("a custom note", () => {
    const { messages } = recoverUncertainResults(crashed, { format: formats.canonical, note: "[interrupted]" })
    assert.strictEqual(messages[3]?.content, "[interrupted]")
    const blank = recoverUncertainResults(crashed, { format: formats.canonical, note: "  " })
    assert.strictEqual(blank.messages[3]?.content, UNCERTAIN_RESULT_NOTE)
  })

  it("the same array when nothing is open; orphan results are kept", () => {
    const closed: ReadonlyArray<Message> = deepFreeze([
      { role: "user", content: "hi" },
      { role: "tool", toolCallId: "ghost", content: "from a removed turn" },
      { role: "assistant", content: "hello" }
    ])
    const result = recoverUncertainResults(closed, { format: formats.canonical })
    assert.strictEqual(result.messages, closed)
    assert.deepStrictEqual(result.recovered, [])
  })

  it("before recovery there is no plan (open-call); after it, planCompaction finds one", () => {
    const longer: ReadonlyArray<Message> = deepFreeze([
      { role: "user", content: "Set up the project." },
      { role: "assistant", content: "Done." },
      ...crashed
    ])
    const before = planCompaction(longer, { format: formats.canonical, keepTurns: 1 })
    assert.strictEqual(before._tag, "NoPlan")
    assert.isTrue(before._tag === "NoPlan" && before.reason === "open-call")
    const { messages } = recoverUncertainResults(longer, { format: formats.canonical })
    const after = planCompaction(messages, { format: formats.canonical, keepTurns: 1 })
    assert.strictEqual(after._tag, "CompactionPlan")
    assert.isTrue(after._tag === "CompactionPlan" && after.cut === 6)
  })

  it("OpenAI chat: the recovered result is a tool message with the note", () => {
    const history = deepFreeze([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }]
      }
    ])
    const { messages, recovered } = recoverUncertainResults(history, { format: formats.openaiChat })
    assert.deepStrictEqual(recovered, ["a"])
    assert.strictEqual(formats.openaiChat.role(messages[2] as never), "tool")
    assert.deepStrictEqual(formats.openaiChat.toolResults(messages[2] as never).map((r) => [r.callId, r.text]), [
      ["a", UNCERTAIN_RESULT_NOTE]
    ])
  })

  it("not an array: an empty recovery, no throw", () => {
    assert.deepStrictEqual(recoverUncertainResults(null as unknown as ReadonlyArray<Message>), {
      messages: [],
      recovered: []
    })
  })

  for (const name of formatNames) {
    it(`${name}: no call is left open, nothing is mutated, untouched messages are the same objects`, () => {
      const format = formatOf(name)
      fc.assert(
        fc.property(conversation(name, { dangling: true, orphans: true, huge: false }), (rendered) => {
          const input = deepFreeze(rendered.messages)
          const copy = structuredClone(input)
          const { messages, recovered } = recoverUncertainResults(input, { format })
          if (!deepEqual(input, copy)) return false
          const dangling = toolGroups(input, format).diagnostics.filter((d) => d._tag === "DanglingCall")
          if (dangling.length === 0) return messages === input && recovered.length === 0
          if (toolGroups(messages, format).diagnostics.some((d) => d._tag === "DanglingCall")) return false
          // Every input message is still there, as the same object, in order.
          let at = 0
          for (const m of messages) if (m === input[at]) at++
          return at === input.length && new Set(recovered).size === dangling.length
        }),
        { numRuns: runs.some }
      )
    })
  }
})
