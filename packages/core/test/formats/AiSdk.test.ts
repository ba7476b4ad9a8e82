import type { AiSdkMessage } from "@ctxkit/core"
import { toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { aiSdk as fmt } from "../../src/formats/AiSdk.ts"

// A release engineer's session: reasoning before parallel calls (one needing approval), the approval,
// a result far from its call, a pinned instruction in between, a provider-executed web search answered
// inside the assistant message, a second approval that is denied, and one tool message answering two calls.
const session: ReadonlyArray<AiSdkMessage> = deepFreeze([
  { role: "system", content: "You operate the release pipeline. Production changes need approval." },
  { role: "user", content: "Ship api 2.14 to staging and tell me how full db-1's disk is." },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Deploy needs approval; the disk check does not." },
      { type: "text", text: "Starting both." },
      { type: "tool-call", toolCallId: "tc_deploy", toolName: "deploy", input: { service: "api", version: "2.14" } },
      { type: "tool-approval-request", approvalId: "apr_deploy", toolCallId: "tc_deploy" },
      { type: "tool-call", toolCallId: "tc_disk", toolName: "disk_usage", input: { host: "db-1" } }
    ]
  },
  { role: "tool", content: [{ type: "tool-approval-response", approvalId: "apr_deploy", approved: true }] },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "tc_disk",
      toolName: "disk_usage",
      output: { type: "json", value: { used: "81%" } }
    }]
  },
  { role: "user", content: [{ type: "text", text: "Whatever happens, do not restart db-1." }], pinned: true },
  {
    role: "assistant",
    content: [
      {
        type: "tool-call",
        toolCallId: "ws_1",
        toolName: "web_search",
        input: { query: "api 2.14 changelog" },
        providerExecuted: true
      },
      {
        type: "tool-result",
        toolCallId: "ws_1",
        toolName: "web_search",
        output: { type: "content", value: [{ type: "text", text: "2.14: connection pool fix" }] }
      },
      { type: "text", text: "2.14 only fixes the connection pool." }
    ]
  },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "tc_deploy",
      toolName: "deploy",
      output: { type: "error-text", value: "rollout timed out after 300s" }
    }]
  },
  {
    role: "assistant",
    content: [
      { type: "tool-call", toolCallId: "tc_logs", toolName: "fetch_logs", input: { service: "api", lines: 50 } },
      { type: "tool-call", toolCallId: "tc_rollback", toolName: "rollback", input: { service: "api" } },
      { type: "tool-approval-request", approvalId: "apr_rollback", toolCallId: "tc_rollback" }
    ]
  },
  {
    role: "tool",
    content: [{
      type: "tool-approval-response",
      approvalId: "apr_rollback",
      approved: false,
      reason: "Not before 18:00."
    }]
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "tc_logs",
        toolName: "fetch_logs",
        output: { type: "text", value: "pod api-7 OOMKilled" }
      },
      {
        type: "tool-result",
        toolCallId: "tc_rollback",
        toolName: "rollback",
        output: { type: "execution-denied", reason: "Not before 18:00." }
      }
    ]
  },
  { role: "assistant", content: "The deploy failed (api-7 ran out of memory); rollback waits until 18:00." }
])

const at = (i: number): AiSdkMessage => {
  const message = session[i]
  if (message === undefined) throw new Error(`no message ${i}`)
  return message
}

const garbage: ReadonlyArray<unknown> = [
  null,
  42,
  "hello",
  [],
  {},
  { content: {} },
  { role: "assistant", content: [null, 42, "x", {}, { type: "tool-call" }, { type: "tool-result", output: null }] },
  { role: "tool", content: [{ type: "tool-approval-request" }, { type: "tool-approval-response", approvalId: 7 }] },
  { role: "wizard", content: "abracadabra" }
]

describe("formats.aiSdk", () => {
  it("reads roles, pins and protection", () => {
    assert.deepStrictEqual(session.map(fmt.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
      "assistant"
    ])
    assert.deepStrictEqual(session.map(fmt.isPinned), session.map((_, i) => i === 5))
    assert.deepStrictEqual(session.map(fmt.isProtected), session.map((_, i) => i === 0 || i === 5))
    const viaOptions: AiSdkMessage = {
      role: "user",
      content: "keep me",
      providerOptions: { ctxkit: { pinned: true, relevance: 3 } }
    }
    assert.isTrue(fmt.isPinned(viaOptions))
    assert.deepStrictEqual(fmt.meta(viaOptions), { pinned: true, relevance: 3 })
    assert.isFalse(fmt.isPinned({ role: "user", content: "x", providerOptions: { openai: { pinned: true } } }))
    assert.isFalse(fmt.attachesToNext(at(2)))
  })

  it("reads calls, results, links and text", () => {
    assert.deepStrictEqual(fmt.toolCalls(at(2)), [
      { id: "tc_deploy", name: "deploy", arguments: "{\"service\":\"api\",\"version\":\"2.14\"}" },
      { id: "tc_disk", name: "disk_usage", arguments: "{\"host\":\"db-1\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(2)), [])
    assert.deepStrictEqual(fmt.toolResults(at(4)), [
      { callId: "tc_disk", name: "disk_usage", isError: false, text: "{\"used\":\"81%\"}" }
    ])
    assert.deepStrictEqual(fmt.toolCalls(at(6)), [
      { id: "ws_1", name: "web_search", arguments: "{\"query\":\"api 2.14 changelog\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(6)), [
      { callId: "ws_1", name: "web_search", isError: false, text: "2.14: connection pool fix" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(7)), [
      { callId: "tc_deploy", name: "deploy", isError: true, text: "rollout timed out after 300s" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(10)), [
      { callId: "tc_logs", name: "fetch_logs", isError: false, text: "pod api-7 OOMKilled" },
      { callId: "tc_rollback", name: "rollback", isError: true, text: "Not before 18:00." }
    ])
    assert.deepStrictEqual(fmt.toolCalls(at(3)), [])
    assert.deepStrictEqual(fmt.toolResults(at(3)), [])

    assert.deepStrictEqual(fmt.links(at(1)), [])
    assert.deepStrictEqual(fmt.links(at(2)), [
      { kind: "call", id: "tc_deploy" },
      { kind: "ref", key: "call:tc_deploy" },
      { kind: "ref", key: "approval:apr_deploy" },
      { kind: "ref", key: "call:tc_deploy" },
      { kind: "call", id: "tc_disk" },
      { kind: "ref", key: "call:tc_disk" }
    ])
    assert.deepStrictEqual(fmt.links(at(3)), [{ kind: "ref", key: "approval:apr_deploy" }])
    assert.deepStrictEqual(fmt.links(at(6)), [
      { kind: "call", id: "ws_1" },
      { kind: "ref", key: "call:ws_1" },
      { kind: "result", id: "ws_1" }
    ])
    assert.deepStrictEqual(fmt.links(at(10)), [
      { kind: "result", id: "tc_logs" },
      { kind: "result", id: "tc_rollback" }
    ])

    assert.strictEqual(
      fmt.text(at(2)),
      "Deploy needs approval; the disk check does not.\nStarting both.\n" +
        "deploy {\"service\":\"api\",\"version\":\"2.14\"}\ndisk_usage {\"host\":\"db-1\"}"
    )
    assert.strictEqual(fmt.text(at(9)), "Not before 18:00.")
    assert.strictEqual(fmt.text(at(10)), "pod api-7 OOMKilled\nNot before 18:00.")
    assert.strictEqual(fmt.text(at(11)), "The deploy failed (api-7 ran out of memory); rollback waits until 18:00.")
  })

  it("groups calls with their approvals and far results; provider-executed pairs stand alone", () => {
    const { diagnostics, groupOf, groups } = toolGroups(session, fmt)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3, 4, 7], [5], [6], [8, 9, 10], [11]])
    assert.deepStrictEqual(groupOf, [0, 1, 2, 2, 2, 3, 4, 2, 5, 5, 5, 6])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("reports dangling calls and orphan results; a call whose approval was answered awaits execution", () => {
    const { diagnostics, groups } = toolGroups([at(8), at(9)], fmt)
    assert.deepStrictEqual(groups, [[0, 1]])
    // The denied rollback has its approval response: the AI SDK answers it itself, so it is not dangling.
    assert.deepStrictEqual(
      diagnostics.map((d) => [d._tag, "callId" in d ? d.callId : "approvalId" in d ? d.approvalId : ""]),
      [
        ["DanglingCall", "tc_logs"],
        ["AwaitingExecution", "tc_rollback"]
      ]
    )
    assert.deepStrictEqual(toolGroups([at(10)], fmt).diagnostics.map((d) => [d._tag, "callId" in d ? d.callId : ""]), [
      ["OrphanResult", "tc_logs"],
      ["OrphanResult", "tc_rollback"]
    ])
  })

  it("reads the v4 names `args` and `result`", () => {
    const call: AiSdkMessage = {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "v4_1", toolName: "weather", args: { city: "Lyon" } }]
    }
    const result: AiSdkMessage = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "v4_1", toolName: "weather", result: { tempC: 14 }, isError: true }]
    }
    assert.deepStrictEqual(fmt.toolCalls(call), [{ id: "v4_1", name: "weather", arguments: "{\"city\":\"Lyon\"}" }])
    assert.deepStrictEqual(fmt.toolResults(result), [{
      callId: "v4_1",
      name: "weather",
      isError: true,
      text: "{\"tempC\":14}"
    }])
    assert.deepStrictEqual(fmt.withResultText(result, "v4_1", "cut").content, [
      { type: "tool-result", toolCallId: "v4_1", toolName: "weather", result: "cut", isError: true }
    ])
    // Answers follow the issuer's dialect.
    assert.deepStrictEqual(fmt.makeToolResults(call, fmt.toolCalls(call), "unknown", { isError: true }), [
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "v4_1", toolName: "weather", result: "unknown", isError: true }]
      }
    ])
  })

  it("rewrites only text parts and the named result, keeping ids and other parts", () => {
    const rewritten = fmt.withText(at(2), "Working on it.")
    assert.deepStrictEqual(rewritten.content, [
      { type: "reasoning", text: "Deploy needs approval; the disk check does not." },
      { type: "text", text: "Working on it." },
      { type: "tool-call", toolCallId: "tc_deploy", toolName: "deploy", input: { service: "api", version: "2.14" } },
      { type: "tool-approval-request", approvalId: "apr_deploy", toolCallId: "tc_deploy" },
      { type: "tool-call", toolCallId: "tc_disk", toolName: "disk_usage", input: { host: "db-1" } }
    ])
    assert.deepStrictEqual(fmt.links(rewritten), fmt.links(at(2)))
    assert.deepStrictEqual(fmt.withText(at(11), "Short.").content, "Short.")
    assert.deepStrictEqual(fmt.withText(at(8), "Fetching logs.").content.slice(-1), [{
      type: "text",
      text: "Fetching logs."
    }])

    // A message made only of results: the first takes the text, the others are emptied.
    const results = fmt.withText(at(10), "[logs elided]")
    assert.deepStrictEqual(fmt.toolResults(results), [
      { callId: "tc_logs", name: "fetch_logs", isError: false, text: "[logs elided]" },
      { callId: "tc_rollback", name: "rollback", isError: true, text: "" }
    ])
    assert.strictEqual(fmt.text(results), "[logs elided]")
    // A tool message without results has no text to replace.
    assert.strictEqual(fmt.withText(at(3), "x"), at(3))

    assert.deepStrictEqual(fmt.withResultText(at(7), "tc_deploy", "timed out").content, [
      {
        type: "tool-result",
        toolCallId: "tc_deploy",
        toolName: "deploy",
        output: { type: "error-text", value: "timed out" }
      }
    ])
    assert.deepStrictEqual(fmt.withResultText(at(4), "tc_disk", "81% used").content, [
      {
        type: "tool-result",
        toolCallId: "tc_disk",
        toolName: "disk_usage",
        output: { type: "text", value: "81% used" }
      }
    ])
    assert.deepStrictEqual(fmt.withResultText(at(10), "tc_rollback", "denied").content, [
      {
        type: "tool-result",
        toolCallId: "tc_logs",
        toolName: "fetch_logs",
        output: { type: "text", value: "pod api-7 OOMKilled" }
      },
      {
        type: "tool-result",
        toolCallId: "tc_rollback",
        toolName: "rollback",
        output: { type: "execution-denied", reason: "denied" }
      }
    ])
    const search = fmt.withResultText(at(6), "ws_1", "[search results elided]")
    assert.deepStrictEqual(fmt.toolResults(search), [
      { callId: "ws_1", name: "web_search", isError: false, text: "[search results elided]" }
    ])
    assert.strictEqual(
      fmt.text(search),
      "web_search {\"query\":\"api 2.14 changelog\"}\n[search results elided]\n2.14 only fixes the connection pool."
    )
    assert.strictEqual(fmt.withResultText(at(10), "tc_other", "x"), at(10))
    assert.strictEqual(fmt.withResultText(at(11), "tc_logs", "x"), at(11))
  })

  it("removes tool parts by id, approvals with their call, and the message when nothing meaningful is left", () => {
    const kept = fmt.withoutToolParts(at(2), new Set(["tc_deploy"]))
    assert.deepStrictEqual(kept?.content, [
      { type: "reasoning", text: "Deploy needs approval; the disk check does not." },
      { type: "text", text: "Starting both." },
      { type: "tool-call", toolCallId: "tc_disk", toolName: "disk_usage", input: { host: "db-1" } }
    ])
    assert.deepStrictEqual(kept === undefined ? [] : fmt.links(kept), [
      { kind: "call", id: "tc_disk" },
      { kind: "ref", key: "call:tc_disk" }
    ])
    assert.strictEqual(fmt.withoutToolParts(at(8), new Set(["tc_logs", "tc_rollback"])), undefined)
    assert.deepStrictEqual(fmt.withoutToolParts(at(8), new Set(["tc_rollback"]))?.content, [
      { type: "tool-call", toolCallId: "tc_logs", toolName: "fetch_logs", input: { service: "api", lines: 50 } }
    ])
    assert.deepStrictEqual(fmt.toolResults(fmt.withoutToolParts(at(10), new Set(["tc_logs"])) ?? at(0)), [
      { callId: "tc_rollback", name: "rollback", isError: true, text: "Not before 18:00." }
    ])
    assert.strictEqual(fmt.withoutToolParts(at(10), new Set(["tc_logs", "tc_rollback"])), undefined)
    // Provider-executed pair: both halves go, the text stays.
    assert.deepStrictEqual(fmt.withoutToolParts(at(6), new Set(["ws_1"]))?.content, [
      { type: "text", text: "2.14 only fixes the connection pool." }
    ])
    // Reasoning alone is not worth keeping.
    const thinking: AiSdkMessage = deepFreeze({
      role: "assistant",
      content: [{ type: "reasoning", text: "check" }, { type: "tool-call", toolCallId: "t", toolName: "x", input: {} }]
    })
    assert.strictEqual(fmt.withoutToolParts(thinking, new Set(["t"])), undefined)
    // A response whose request is in the same message goes with it; elsewhere the group keeps them together.
    const both: AiSdkMessage = deepFreeze({
      role: "assistant",
      content: [
        { type: "text", text: "Asking." },
        { type: "tool-approval-request", approvalId: "a9", toolCallId: "t9" },
        { type: "tool-approval-response", approvalId: "a9", approved: true }
      ]
    })
    assert.deepStrictEqual(fmt.withoutToolParts(both, new Set(["t9"]))?.content, [{ type: "text", text: "Asking." }])
    assert.strictEqual(fmt.withoutToolParts(at(9), new Set(["tc_rollback"])), at(9))
    assert.strictEqual(fmt.withoutToolParts(at(2), new Set(["nope"])), at(2))
    assert.strictEqual(fmt.withoutToolParts(at(11), new Set(["tc_logs"])), at(11))
  })

  it("makes notes and one tool message answering several calls", () => {
    assert.deepStrictEqual(fmt.makeNote("Summary so far: deploy failed.", { role: "user", kind: "summary" }), {
      role: "user",
      content: "Summary so far: deploy failed.",
      providerOptions: { ctxkit: { summary: true } }
    })
    assert.deepStrictEqual(fmt.makeNote("Never restart db-1.", { role: "system", kind: "invariants" }), {
      role: "system",
      content: "Never restart db-1."
    })
    assert.deepStrictEqual(fmt.makeNote("n", { role: "user", kind: "note", id: "note_1" }), {
      role: "user",
      content: "n",
      providerOptions: { ctxkit: { id: "note_1" } }
    })
    const note = fmt.makeNote("s", { role: "user", kind: "summary", id: "sum_1" })
    assert.isTrue(fmt.isSummary(note))
    assert.strictEqual(fmt.id(note), "sum_1")
    assert.isFalse(fmt.isSummary(at(1)))

    const stubs = fmt.makeToolResults(at(8), fmt.toolCalls(at(8)), "Outcome unknown.", { isError: true })
    assert.deepStrictEqual(stubs, [{
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "tc_logs",
          toolName: "fetch_logs",
          output: { type: "error-text", value: "Outcome unknown." }
        },
        {
          type: "tool-result",
          toolCallId: "tc_rollback",
          toolName: "rollback",
          output: { type: "error-text", value: "Outcome unknown." }
        }
      ]
    }])
    assert.deepStrictEqual(
      fmt.makeToolResults(at(2), [{ id: "tc_disk", name: "disk_usage", arguments: "" }], "ok", { isError: false })[0]
        ?.content,
      [{ type: "tool-result", toolCallId: "tc_disk", toolName: "disk_usage", output: { type: "text", value: "ok" } }]
    )
    assert.deepStrictEqual(fmt.makeToolResults(at(2), [], "x", { isError: false }), [])
    assert.deepStrictEqual(session.flatMap((m, i) => fmt.validate(m, `messages[${i}]`)), [])
    assert.deepStrictEqual(stubs.flatMap((m) => fmt.validate(m, "stub")), [])
  })

  it("validates with path-named issues", () => {
    const paths = (message: unknown, path: string) => fmt.validate(message, path).map((i) => i.path)
    assert.deepStrictEqual(paths(null, "messages[0]"), ["messages[0]"])
    assert.deepStrictEqual(paths({ content: "hi" }, "messages[1]"), ["messages[1].role"])
    assert.deepStrictEqual(paths({ role: "system", content: [{ type: "text", text: "x" }] }, "messages[0]"), [
      "messages[0].content"
    ])
    assert.deepStrictEqual(
      paths({
        role: "assistant",
        content: [{ type: "text", text: "x" }, { type: "tool-call", toolName: "ls", input: {} }]
      }, "messages[2]"),
      ["messages[2].content[1].toolCallId"]
    )
    assert.deepStrictEqual(
      paths({
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c", toolName: "ls", output: { type: "text", value: 3 } }]
      }, "messages[4]"),
      ["messages[4].content[0].output.value"]
    )
    assert.deepStrictEqual(
      paths(
        { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a", approved: "yes" }] },
        "messages[5]"
      ),
      ["messages[5].content[0].approved"]
    )
    assert.deepStrictEqual(paths({ role: "tool", content: "done" }, "messages[6]"), ["messages[6].content"])
    assert.match(fmt.validate({ role: 7 }, "m")[0]?.message ?? "", /got 7$/)
    assert.isAbove(
      paths(
        { role: "user", content: [{ type: "tool-call", toolCallId: "c", toolName: "x", input: {} }] },
        "messages[7]"
      ).length,
      0
    )
  })

  it("is total on garbage", () => {
    const message = (u: unknown) => u as AiSdkMessage
    // Every lens method on these values (and on arbitrary ones) is exercised in test/BadInput.test.ts.
    assert.deepStrictEqual(garbage.map(message).map(fmt.role), [
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "assistant",
      "tool",
      "user"
    ])
    assert.deepStrictEqual(garbage.map(message).flatMap(fmt.links), [])
    assert.deepStrictEqual(garbage.map(message).flatMap(fmt.toolResults), [])
    assert.strictEqual(fmt.text(message(garbage[6])), "")
    assert.deepStrictEqual(garbage.map((junk, i) => fmt.validate(junk, `m[${i}]`).length > 0), garbage.map(() => true))
    assert.deepStrictEqual(toolGroups(garbage.map(message), fmt).groups, garbage.map((_, i) => [i]))
  })
})
