import { type Message, toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { canonical } from "../../src/formats/Canonical.ts"

// A short coding session as a harness built on ctxkit would store it.
const session: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are a careful coding agent.", id: "sys" },
  { role: "system", source: "memory", content: "The user prefers small commits." },
  { role: "user", content: "Why does `npm test` fail?", id: "u1", pinned: true },
  {
    role: "assistant",
    id: "a1",
    content: [{ type: "text", text: "Let me run it and read the config." }],
    toolCalls: [
      { id: "call_run", name: "run_command", arguments: "{\"command\":\"npm test\"}" },
      { id: "call_cfg", name: "read_file", arguments: "{\"path\":\"vitest.config.ts\"}" }
    ],
    providerData: { encrypted: "opaque-blob" }
  },
  { role: "tool", toolCallId: "call_run", toolName: "run_command", content: "1 failed", isError: true },
  {
    role: "tool",
    toolCallId: "call_cfg",
    content: [{ type: "text", text: "export default {}" }, { type: "image", mime: "image/png" }]
  },
  {
    role: "user",
    content: "Summary so far: tests fail.",
    summary: true,
    meta: { manualExcluded: true, relevance: 0.5 }
  }
])

describe("formats.canonical", () => {
  it("reads roles, calls, results and flags", () => {
    assert.deepStrictEqual(session.map(canonical.role), [
      "system",
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user"
    ])
    assert.deepStrictEqual(canonical.toolCalls(session[3]!).map((c) => c.id), ["call_run", "call_cfg"])
    assert.deepStrictEqual(canonical.toolResults(session[4]!), [
      { callId: "call_run", name: "run_command", isError: true, text: "1 failed" }
    ])
    assert.deepStrictEqual(canonical.toolResults(session[5]!), [
      { callId: "call_cfg", name: undefined, isError: false, text: "export default {}" }
    ])
    assert.deepStrictEqual(session.map(canonical.isProtected), [true, false, true, false, false, false, false])
    assert.deepStrictEqual(session.map(canonical.isSummary), [false, false, false, false, false, false, true])
    assert.strictEqual(canonical.source(session[1]!), "memory")
    assert.strictEqual(canonical.id(session[3]!), "a1")
    assert.deepStrictEqual(canonical.meta(session[6]!), { manualExcluded: true, relevance: 0.5 })
    assert.strictEqual(
      canonical.text(session[3]!),
      "Let me run it and read the config.\nrun_command {\"command\":\"npm test\"}\nread_file {\"path\":\"vitest.config.ts\"}"
    )
    assert.deepStrictEqual(toolGroups(session, canonical).groups, [[0], [1], [2], [3, 4, 5], [6]])
  })

  it("rewrites text without touching ids, calls, other parts or the input", () => {
    const shorter = canonical.withText(session[3]!, "Running.")
    assert.deepStrictEqual(shorter, { ...session[3]!, content: [{ type: "text", text: "Running." }] })
    const stub = canonical.withResultText(session[5]!, "call_cfg", "[read earlier]")
    assert.deepStrictEqual(stub, {
      ...session[5]!,
      content: [{ type: "text", text: "[read earlier]" }, { type: "image", mime: "image/png" }]
    })
    assert.strictEqual(canonical.withResultText(session[5]!, "other", "x"), session[5])
    const withoutRun = canonical.withoutToolParts(session[3]!, new Set(["call_run"]))
    assert.deepStrictEqual<unknown>(withoutRun, {
      role: "assistant",
      id: "a1",
      content: [{ type: "text", text: "Let me run it and read the config." }],
      toolCalls: [{ id: "call_cfg", name: "read_file", arguments: "{\"path\":\"vitest.config.ts\"}" }],
      providerData: { encrypted: "opaque-blob" }
    })
    assert.strictEqual(canonical.withoutToolParts(session[4]!, new Set(["call_run"])), undefined)
  })

  it("makes notes and stub results", () => {
    assert.deepStrictEqual(canonical.makeNote("[Summary]", { role: "user", kind: "summary" }), {
      role: "user",
      content: "[Summary]",
      summary: true
    })
    assert.deepStrictEqual(canonical.makeNote("<invariants/>", { role: "system", kind: "invariants" }), {
      role: "system",
      content: "<invariants/>"
    })
    assert.deepStrictEqual(
      canonical.makeToolResults(session[3]!, canonical.toolCalls(session[3]!).slice(0, 1), "?", { isError: false }),
      [
        { role: "tool", toolCallId: "call_run", toolName: "run_command", content: "?", uncertain: true }
      ]
    )
  })

  it("validates with paths", () => {
    assert.deepStrictEqual(canonical.validate(session[3], "messages[3]"), [])
    const issues = canonical.validate({ role: "tool", toolCallId: 42, content: "x" }, "messages[3]")
    assert.deepStrictEqual(issues.map((i) => i.path), ["messages[3].toolCallId"])
    assert.isAbove(canonical.validate(null, "messages[0]").length, 0)
  })

  it("is total on garbage", () => {
    for (
      const junk of [null, 42, "x", [], {}, { role: "assistant", toolCalls: "nope" }, {
        content: {}
      }] as unknown as ReadonlyArray<never>
    ) {
      assert.strictEqual(typeof canonical.role(junk), "string")
      assert.deepStrictEqual(canonical.toolCalls(junk), [])
      assert.strictEqual(typeof canonical.text(junk), "string")
      assert.doesNotThrow(() => canonical.withText(junk, "t"))
    }
  })
})
