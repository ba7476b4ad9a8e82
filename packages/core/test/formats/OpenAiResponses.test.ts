import { type OpenAiResponsesItem, toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { openaiResponses as fmt } from "../../src/formats/OpenAiResponses.ts"

// Fixtures are fixed literals: `fixture[i]!` below indexes an element that exists.
// A release session: developer prompt, a reasoning item before parallel calls, a user turn between a call
// and its result, an MCP approval round trip, a custom tool, a provider-side search, an item reference.
const session: ReadonlyArray<OpenAiResponsesItem> = deepFreeze([
  { role: "developer", content: "You are the release assistant. Never push to main." },
  {
    role: "user",
    content: [
      { type: "input_text", text: "Bump the minor version and summarise the changes." },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" }
    ]
  },
  {
    type: "reasoning",
    id: "rs_01",
    summary: [{ type: "summary_text", text: "Need the current version and the log since the last tag." }],
    encrypted_content: "gAAAAABpZ2VuY3J5cHRlZA=="
  },
  {
    type: "function_call",
    id: "fc_01",
    call_id: "call_ver",
    name: "read_file",
    arguments: "{\"path\":\"package.json\"}"
  },
  { type: "function_call", id: "fc_02", call_id: "call_log", name: "git_log", arguments: "{\"since\":\"v1.3.0\"}" },
  { type: "function_call_output", call_id: "call_ver", output: "{\"version\":\"1.3.0\"}" },
  { role: "user", content: "and skip the docs-only commits" },
  {
    type: "function_call_output",
    call_id: "call_log",
    output: [
      { type: "input_text", text: "fix: retry on 502" },
      { type: "input_image", image_url: "data:image/png;base64,AAAA" },
      { type: "input_text", text: "feat: --dry-run flag" }
    ]
  },
  {
    type: "mcp_approval_request",
    id: "mcpr_7",
    server_label: "github",
    name: "create_release",
    arguments: "{\"tag\":\"v1.4.0\"}"
  },
  { type: "mcp_approval_response", approval_request_id: "mcpr_7", approve: true, reason: "looks right" },
  {
    type: "mcp_call",
    id: "mcp_9",
    approval_request_id: "mcpr_7",
    server_label: "github",
    name: "create_release",
    arguments: "{\"tag\":\"v1.4.0\"}",
    output: "release 118 created"
  },
  { type: "custom_tool_call", call_id: "call_patch", name: "apply_diff", input: "-  \"version\": \"1.3.0\"" },
  { type: "custom_tool_call_output", call_id: "call_patch", output: "1 hunk applied" },
  {
    type: "web_search_call",
    id: "ws_1",
    status: "completed",
    action: { type: "search", query: "semver minor bump" }
  },
  {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Released 1.4.0.", annotations: [] }]
  },
  { type: "item_reference", id: "msg_0" },
  { role: "user", content: "Remember: never force-push.", pinned: true }
])

// Typed tools: computer use, local shell, shell, apply patch, a failed MCP call, a refusal, a trailing reasoning.
const tools: ReadonlyArray<OpenAiResponsesItem> = deepFreeze([
  { type: "computer_call", id: "cu_1", call_id: "call_click", action: { type: "click", x: 40, y: 310 } },
  {
    type: "computer_call_output",
    call_id: "call_click",
    output: { type: "computer_screenshot", image_url: "data:image/png;base64,BBBB" }
  },
  { type: "local_shell_call", id: "ls_1", call_id: "call_sh", action: { type: "exec", command: ["ls", "-1"] } },
  { type: "local_shell_call_output", id: "call_sh", output: "README.md\nsrc" },
  { type: "shell_call", call_id: "call_test", action: { commands: ["npm test"] } },
  {
    type: "shell_call_output",
    call_id: "call_test",
    output: [{ stdout: "2 passed", stderr: "1 failed", outcome: { type: "exit", exit_code: 1 } }]
  },
  { type: "apply_patch_call", call_id: "call_ap", operation: { type: "update_file", path: "a.ts", diff: "@@" } },
  { type: "apply_patch_call_output", call_id: "call_ap", status: "failed", output: "hunk 1 did not apply" },
  {
    type: "mcp_call",
    id: "mcp_err",
    server_label: "jira",
    name: "create_issue",
    arguments: "{}",
    error: "401 Unauthorized"
  },
  {
    type: "message",
    role: "assistant",
    content: [{ type: "refusal", refusal: "I can't share that token." }]
  },
  { type: "reasoning", id: "rs_end", summary: [] }
])

const garbage: ReadonlyArray<unknown> = [
  null,
  42,
  "function_call",
  [],
  {},
  { content: {} },
  { type: 7 },
  { role: "user", content: [null, 3, { type: 5 }] },
  { type: "function_call" },
  { type: "function_call_output", output: { nested: [1, 2] } },
  { type: "reasoning", summary: "not a list" },
  { type: "mcp_call", error: null }
]

describe("formats.openaiResponses", () => {
  it("reads roles, ids, pins and protection", () => {
    assert.deepStrictEqual(session.map(fmt.role), [
      "system",
      "user",
      "assistant",
      "assistant",
      "assistant",
      "tool",
      "user",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "assistant",
      "tool",
      "assistant",
      "assistant",
      "assistant",
      "user"
    ])
    assert.deepStrictEqual(session.map(fmt.isProtected).flatMap((p, i) => p ? [i] : []), [0, 16])
    assert.deepStrictEqual(session.map(fmt.isPinned).flatMap((p, i) => p ? [i] : []), [16])
    assert.deepStrictEqual(session.map(fmt.attachesToNext).flatMap((p, i) => p ? [i] : []), [2])
    assert.deepStrictEqual(session.map(fmt.isSummary).filter(Boolean), [])
    assert.strictEqual(fmt.id(session[14]!), "msg_1")
    assert.strictEqual(fmt.id(session[0]!), undefined)
  })

  it("reads calls, results, links and text", () => {
    assert.deepStrictEqual(fmt.toolCalls(session[3]!), [
      { id: "call_ver", name: "read_file", arguments: "{\"path\":\"package.json\"}" }
    ])
    assert.deepStrictEqual(fmt.toolCalls(session[11]!), [
      { id: "call_patch", name: "apply_diff", arguments: "-  \"version\": \"1.3.0\"" }
    ])
    assert.deepStrictEqual(fmt.toolResults(session[7]!), [
      { callId: "call_log", isError: false, text: "fix: retry on 502\nfeat: --dry-run flag" }
    ])
    assert.deepStrictEqual(fmt.toolCalls(session[10]!), [
      { id: "mcp_9", name: "create_release", arguments: "{\"tag\":\"v1.4.0\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(session[10]!), [
      { callId: "mcp_9", name: "create_release", isError: false, text: "release 118 created" }
    ])
    assert.deepStrictEqual(fmt.links(session[10]!), [
      { kind: "call", id: "mcp_9" },
      { kind: "result", id: "mcp_9" },
      { kind: "ref", key: "approval:mcpr_7" }
    ])
    assert.deepStrictEqual(fmt.links(session[8]!), [{ kind: "ref", key: "approval:mcpr_7" }])
    assert.deepStrictEqual(fmt.links(session[9]!), [{ kind: "ref", key: "approval:mcpr_7" }])
    assert.deepStrictEqual(fmt.links(session[2]!), [])
    assert.deepStrictEqual(fmt.links(session[13]!), [])
    assert.deepStrictEqual(fmt.toolCalls(session[13]!), [])
    assert.deepStrictEqual(session.map(fmt.text), [
      "You are the release assistant. Never push to main.",
      "Bump the minor version and summarise the changes.",
      "Need the current version and the log since the last tag.",
      "read_file {\"path\":\"package.json\"}",
      "git_log {\"since\":\"v1.3.0\"}",
      "{\"version\":\"1.3.0\"}",
      "and skip the docs-only commits",
      "fix: retry on 502\nfeat: --dry-run flag",
      "create_release {\"tag\":\"v1.4.0\"}",
      "looks right",
      "create_release {\"tag\":\"v1.4.0\"}\nrelease 118 created",
      "apply_diff -  \"version\": \"1.3.0\"",
      "1 hunk applied",
      "semver minor bump",
      "Released 1.4.0.",
      "",
      "Remember: never force-push."
    ])
  })

  it("groups reasoning with the next item, calls with far results, approvals with their MCP call", () => {
    const { groups, diagnostics } = toolGroups(session, fmt)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3, 5], [4, 7], [6], [8, 9, 10], [11, 12], [13], [14], [15], [16]])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("reads typed tools, their outputs and failures", () => {
    assert.deepStrictEqual(tools.flatMap(fmt.toolCalls), [
      { id: "call_click", name: "computer", arguments: "{\"type\":\"click\",\"x\":40,\"y\":310}" },
      { id: "call_sh", name: "local_shell", arguments: "{\"type\":\"exec\",\"command\":[\"ls\",\"-1\"]}" },
      { id: "call_test", name: "shell", arguments: "{\"commands\":[\"npm test\"]}" },
      { id: "call_ap", name: "apply_patch", arguments: "{\"type\":\"update_file\",\"path\":\"a.ts\",\"diff\":\"@@\"}" },
      { id: "mcp_err", name: "create_issue", arguments: "{}" }
    ])
    assert.deepStrictEqual(tools.flatMap(fmt.toolResults), [
      { callId: "call_click", name: "computer", isError: false, text: "" },
      { callId: "call_sh", name: "local_shell", isError: false, text: "README.md\nsrc" },
      { callId: "call_test", name: "shell", isError: true, text: "2 passed\n1 failed" },
      { callId: "call_ap", name: "apply_patch", isError: true, text: "hunk 1 did not apply" },
      { callId: "mcp_err", name: "create_issue", isError: true, text: "401 Unauthorized" }
    ])
    assert.strictEqual(fmt.text(tools[9]!), "I can't share that token.")
    assert.strictEqual(fmt.role(tools[9]!), "assistant")
    const { groups, diagnostics } = toolGroups(tools, fmt)
    assert.deepStrictEqual(groups, [[0, 1], [2, 3], [4, 5], [6, 7], [8], [9], [10]])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("rewrites text and results, keeping ids and other parts", () => {
    const user = fmt.withText(session[1]!, "Bump the patch version.")
    assert.deepStrictEqual(user.content, [
      { type: "input_text", text: "Bump the patch version." },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" }
    ])
    const reply = fmt.withText(session[14]!, "Done.")
    assert.strictEqual(reply.id, "msg_1")
    assert.deepStrictEqual(reply.content, [{ type: "output_text", text: "Done.", annotations: [] }])
    assert.deepStrictEqual(fmt.withText(session[6]!, "skip docs"), { role: "user", content: "skip docs" })

    const log = fmt.withResultText(session[7]!, "call_log", "[2 commits]")
    assert.deepStrictEqual(log, {
      type: "function_call_output",
      call_id: "call_log",
      output: [{ type: "input_text", text: "[2 commits]" }, {
        type: "input_image",
        image_url: "data:image/png;base64,AAAA"
      }]
    })
    assert.strictEqual(fmt.withResultText(session[7]!, "call_ver", "x"), session[7])
    assert.strictEqual(fmt.withResultText(session[3]!, "call_ver", "x"), session[3])
    assert.deepStrictEqual(fmt.withResultText(session[5]!, "call_ver", "[version]").output, "[version]")
    assert.deepStrictEqual(fmt.withText(session[12]!, "ok").output, "ok")
    const mcp = fmt.withResultText(session[10]!, "mcp_9", "created")
    assert.strictEqual(mcp.id, "mcp_9")
    assert.strictEqual(mcp["approval_request_id"], "mcpr_7")
    assert.strictEqual(mcp.output, "created")
    assert.strictEqual(fmt.withResultText(tools[8]!, "mcp_err", "denied")["error"], "denied")
    assert.strictEqual(fmt.withResultText(tools[3]!, "call_sh", "2 files").output, "2 files")
    assert.deepStrictEqual(fmt.withResultText(tools[5]!, "call_test", "1 failed").output, [
      { stdout: "1 failed", stderr: "", outcome: { type: "exit", exit_code: 1 } }
    ])
    // A screenshot cannot carry text: the item comes back as it was.
    assert.strictEqual(fmt.withResultText(tools[1]!, "call_click", "clicked"), tools[1])
    // Calls have no text of their own.
    assert.strictEqual(fmt.withText(session[3]!, "x"), session[3])

    const thought = fmt.withText(session[2]!, "Check version and log.")
    assert.deepStrictEqual(thought, {
      type: "reasoning",
      id: "rs_01",
      summary: [{ type: "summary_text", text: "Check version and log." }],
      encrypted_content: "gAAAAABpZ2VuY3J5cHRlZA=="
    })
    assert.deepStrictEqual(fmt.withText(session[2]!, "").summary, [])
    assert.deepStrictEqual(fmt.withText(tools[9]!, "No.").content, [{ type: "refusal", refusal: "No." }])
    assert.deepStrictEqual(fmt.withText({ role: "assistant", content: [] }, "Hi").content, [
      { type: "output_text", text: "Hi", annotations: [] }
    ])
  })

  it("drops whole items by call id", () => {
    const ids = new Set(["call_ver", "mcp_9", "call_sh"])
    assert.strictEqual(fmt.withoutToolParts(session[3]!, ids), undefined)
    assert.strictEqual(fmt.withoutToolParts(session[5]!, ids), undefined)
    assert.strictEqual(fmt.withoutToolParts(session[10]!, ids), undefined)
    assert.strictEqual(fmt.withoutToolParts(tools[3]!, ids), undefined)
    assert.strictEqual(fmt.withoutToolParts(session[4]!, ids), session[4])
    assert.strictEqual(fmt.withoutToolParts(session[2]!, ids), session[2])
    assert.strictEqual(fmt.withoutToolParts(session[8]!, ids), session[8])
  })

  it("makes notes and tool results in kind", () => {
    assert.deepStrictEqual(fmt.makeNote("Summary so far: released 1.4.0.", { role: "user", kind: "summary" }), {
      role: "user",
      content: "Summary so far: released 1.4.0."
    })
    assert.deepStrictEqual(fmt.makeNote("Keep the API stable.", { role: "system", kind: "invariants", id: "inv" }), {
      role: "system",
      content: "Keep the API stable.",
      id: "inv"
    })
    const stub = "The outcome of this call is unknown."
    assert.deepStrictEqual(fmt.makeToolResults(session[3]!, fmt.toolCalls(session[3]!), stub, { isError: false }), [
      { type: "function_call_output", call_id: "call_ver", output: stub }
    ])
    assert.deepStrictEqual(fmt.makeToolResults(session[11]!, fmt.toolCalls(session[11]!), stub, { isError: true }), [
      { type: "custom_tool_call_output", call_id: "call_patch", output: stub }
    ])
    assert.deepStrictEqual(fmt.makeToolResults(tools[2]!, fmt.toolCalls(tools[2]!), stub, { isError: false }), [
      { type: "local_shell_call_output", id: "call_sh", output: stub }
    ])
    assert.deepStrictEqual(fmt.makeToolResults(tools[4]!, fmt.toolCalls(tools[4]!), stub, { isError: true }), [
      {
        type: "shell_call_output",
        call_id: "call_test",
        output: [{ stdout: "", stderr: stub, outcome: { type: "exit", exit_code: 1 } }]
      }
    ])
    const patch = fmt.makeToolResults(tools[6]!, fmt.toolCalls(tools[6]!), stub, { isError: true })
    assert.deepStrictEqual(patch, [{
      type: "apply_patch_call_output",
      call_id: "call_ap",
      status: "failed",
      output: stub
    }])
    assert.deepStrictEqual(fmt.toolResults(patch[0]!), [
      { callId: "call_ap", name: "apply_patch", isError: true, text: stub }
    ])
    // A stub closes the dangling call: its group is complete again.
    const cut = [
      ...session.slice(0, 5),
      ...fmt.makeToolResults(session[4]!, fmt.toolCalls(session[4]!), stub, { isError: false })
    ]
    assert.deepStrictEqual(toolGroups(cut, fmt).diagnostics.map((d) => d._tag), ["DanglingCall"])
    assert.deepStrictEqual(toolGroups(cut, fmt).groups, [[0], [1], [2, 3], [4, 5]])
  })

  it("validates with path-named issues", () => {
    const paths = (item: unknown, at: string) => fmt.validate(item, at).map((i) => i.path)
    assert.deepStrictEqual(session.flatMap((item, i) => paths(item, `messages[${i}]`)), [])
    assert.deepStrictEqual(tools.flatMap((item, i) => paths(item, `messages[${i}]`)), [])
    assert.deepStrictEqual(paths({ type: "function_call_output", output: "x" }, "messages[3]"), ["messages[3].call_id"])
    assert.deepStrictEqual(paths({ type: "function_call", call_id: 5 }, "messages[4]"), [
      "messages[4].call_id",
      "messages[4].name"
    ])
    assert.deepStrictEqual(paths({ role: "robot", content: 7 }, "messages[0]"), [
      "messages[0].role",
      "messages[0].content"
    ])
    assert.deepStrictEqual(paths({ role: "user", content: ["hi"] }, "messages[1]"), ["messages[1].content[0].type"])
    assert.deepStrictEqual(paths({ type: "mcp_approval_response", approve: "yes" }, "messages[2]"), [
      "messages[2].approval_request_id",
      "messages[2].approve"
    ])
    assert.deepStrictEqual(paths({ type: "local_shell_call_output", output: "" }, "messages[5]"), [
      "messages[5].call_id"
    ])
    assert.deepStrictEqual(paths(null, "messages[6]"), ["messages[6]"])
    assert.deepStrictEqual(paths({ type: 3 }, "messages[7]"), ["messages[7].type"])
    assert.match(fmt.validate(42, "messages[8]")[0]?.message ?? "", /got 42$/)
  })

  it("is total on garbage", () => {
    const item = (u: unknown) => u as OpenAiResponsesItem
    // Every lens method on these values (and on arbitrary ones) is exercised in test/BadInput.test.ts.
    assert.deepStrictEqual(garbage.map(item).map(fmt.role), [
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "assistant",
      "tool",
      "assistant",
      "assistant"
    ])
    assert.deepStrictEqual(garbage.map(item).flatMap(fmt.links), [])
    assert.deepStrictEqual(fmt.text(item({ role: "user", content: [null, 3, { type: 5 }] })), "")
  })
})
