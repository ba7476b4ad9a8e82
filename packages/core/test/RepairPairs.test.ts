import { formats, type Message, repairPairs, toolGroups, UNKNOWN_OUTCOME_TEXT } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames, formatOf, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "user", content: "go" },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "a", name: "ls", arguments: "{}" }, { id: "b", name: "cat", arguments: "{}" }]
  },
  { role: "tool", toolCallId: "a", content: "x.txt" },
  { role: "tool", toolCallId: "ghost", content: "from a removed turn" },
  { role: "user", content: "next" }
])

describe("repairPairs", () => {
  it("stubs a dangling call after the results that follow its issuer and drops orphans", () => {
    const { changes, messages: out } = repairPairs(messages, { format: formats.canonical })
    assert.deepStrictEqual(changes.map((c) => [c._tag, c.index]), [
      ["CallStubbed", 1],
      ["OrphanDropped", 3],
      ["MessageDropped", 3]
    ])
    assert.deepStrictEqual(out.map((m) => m.role === "tool" ? m.toolCallId : m.role), [
      "user",
      "assistant",
      "a",
      "b",
      "user"
    ])
    assert.deepStrictEqual(out[3], {
      role: "tool",
      toolCallId: "b",
      toolName: "cat",
      content: UNKNOWN_OUTCOME_TEXT,
      uncertain: true
    })
    assert.strictEqual(out[0], messages[0])
    assert.strictEqual(out[2], messages[2])
  })

  it("drops a dangling call, keeping the assistant's text", () => {
    const input: ReadonlyArray<Message> = [
      { role: "assistant", content: "Let me look.", toolCalls: [{ id: "a", name: "ls", arguments: "{}" }] }
    ]
    const { messages: out } = repairPairs(input, { dangling: "drop", format: formats.canonical })
    assert.deepStrictEqual(out, [{ role: "assistant", content: "Let me look." }])
  })

  it("removes an assistant message left with nothing", () => {
    const input = [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }]
      }
    ]
    const { changes, messages: out } = repairPairs(input, { dangling: "drop", format: formats.openaiChat })
    assert.deepStrictEqual(out, [])
    assert.deepStrictEqual(changes.map((c) => c._tag), ["CallDropped", "MessageDropped"])
  })

  it("keeps what it is told to keep, and returns the same array when nothing changes", () => {
    const kept = repairPairs(messages, { dangling: "keep", orphans: "keep" })
    assert.strictEqual(kept.messages, messages)
    assert.deepStrictEqual(kept.changes, [])
    assert.strictEqual(kept.diagnostics.length, 2)
    const clean: ReadonlyArray<Message> = [{ role: "user", content: "hi" }]
    assert.strictEqual(repairPairs(clean).messages, clean)
  })

  it("is data-last too", () => {
    const out = pipe(messages, repairPairs({ dangling: "drop", format: formats.canonical }))
    assert.deepStrictEqual(toolGroups(out.messages, formats.canonical).diagnostics, [])
  })
})

describe("repairPairs laws, on generated conversations in every format", () => {
  for (const name of formatNames) {
    const format = formatOf(name)
    for (const dangling of ["stub", "drop"] as const) {
      it(`${name}, dangling: ${dangling}: no orphan or dangling call is left; untouched messages are the same objects`, () => {
        fc.assert(
          fc.property(conversation(name, { orphans: true, dangling: true }), (rendered) => {
            const input = rendered.messages
            assert.deepStrictEqual(purityViolations((ms) => repairPairs(ms, { dangling, format }), input), [])
            const { changes, messages: out } = repairPairs(input, { dangling, format })
            const after = toolGroups(out, format).diagnostics
            // Calls awaiting execution are left as they are: their approval was answered.
            assert.deepStrictEqual(after.filter((d) => d._tag !== "ReusedCallId" && d._tag !== "AwaitingExecution"), [])
            const awaiting = (ms: ReadonlyArray<unknown>) =>
              toolGroups(ms, format).diagnostics.filter((d) => d._tag === "AwaitingExecution").length
            assert.strictEqual(awaiting(out), awaiting(input))
            // Messages not named by a change come through as the very same objects, in order.
            const touched = new Set(changes.filter((c) => c._tag !== "CallStubbed").map((c) => c.index))
            const untouched = input.filter((_, i) => !touched.has(i))
            const survivors = out.filter((m) => input.includes(m))
            assert.deepStrictEqual(survivors, untouched)
            assert.isTrue(survivors.every((m, k) => m === untouched[k]))
            // Idempotent: a repaired conversation needs no repair.
            assert.strictEqual(repairPairs(out, { dangling, format }).messages, out)
          }),
          { numRuns: runs.more }
        )
      })
    }
  }
})
