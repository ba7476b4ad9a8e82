/**
 * Issue 11: OpenAI Responses MCP approvals are approvals. An `mcp_approval_response` whose request is gone is an
 * orphan (diagnosed, dropped by repairPairs); a request, its response and the `mcp_call` that ran it are one group.
 */
import { formats, type OpenAiResponsesItem, repairPairs, toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"

const user = (text: string): OpenAiResponsesItem => ({ role: "user", content: text })
const request = (id: string): OpenAiResponsesItem => ({
  type: "mcp_approval_request",
  id,
  server_label: "deepwiki",
  name: "ask_question",
  arguments: "{\"repoName\":\"effect-ts/effect\"}"
})
const response = (id: string, approve: boolean): OpenAiResponsesItem => ({
  type: "mcp_approval_response",
  approval_request_id: id,
  approve
})
const mcpCall = (id: string, approvalId: string): OpenAiResponsesItem => ({
  type: "mcp_call",
  id,
  server_label: "deepwiki",
  name: "ask_question",
  arguments: "{\"repoName\":\"effect-ts/effect\"}",
  approval_request_id: approvalId,
  output: "Effect is a TypeScript library."
})
const tags = (diagnostics: ReadonlyArray<{ readonly _tag: string }>) => diagnostics.map((d) => d._tag)

describe("OpenAI Responses MCP approvals", () => {
  for (const format of [formats.openaiResponses, formats.auto]) {
    it(`${format.name}: the lens reads the request and the response as approvals`, () => {
      assert.deepStrictEqual(format.approvals(request("mcpr_1")), [{
        kind: "request",
        approvalId: "mcpr_1",
        callId: "mcpr_1"
      }])
      assert.deepStrictEqual(format.approvals(response("mcpr_1", false)), [{
        kind: "response",
        approvalId: "mcpr_1",
        approved: false
      }])
      assert.deepStrictEqual(format.approvals(mcpCall("mcp_1", "mcpr_1")), [])
    })

    it(`${format.name}: a response whose request is gone is an OrphanApprovalResponse, dropped by repairPairs`, () => {
      const messages = deepFreeze([user("ask deepwiki"), response("mcpr_gone", true), user("and?")])
      const { diagnostics, groups } = toolGroups(messages, format)
      assert.deepStrictEqual(groups, [[0], [1], [2]])
      assert.deepStrictEqual(tags(diagnostics), ["OrphanApprovalResponse"])
      const orphan = diagnostics[0]!
      assert.deepStrictEqual(
        orphan._tag === "OrphanApprovalResponse" ? [orphan.approvalId, orphan.index] : [],
        ["mcpr_gone", 1]
      )
      const repaired = repairPairs(messages, { format })
      assert.deepStrictEqual(repaired.messages, [messages[0], messages[2]])
      assert.deepStrictEqual(repaired.changes.map((c) => [c._tag, c.index]), [["ApprovalDropped", 1], [
        "MessageDropped",
        1
      ]])
      // Kept: nothing to repair once the orphan is gone.
      assert.deepStrictEqual(repairPairs(repaired.messages, { format }).changes, [])
      assert.deepStrictEqual(repairPairs(messages, { format, orphans: "keep" }).messages, messages)
    })

    it(`${format.name}: request, response and mcp_call are one group, nothing to diagnose or repair`, () => {
      const messages = deepFreeze([
        user("ask deepwiki"),
        request("mcpr_1"),
        user("yes, go ahead"),
        response("mcpr_1", true),
        mcpCall("mcp_1", "mcpr_1"),
        user("thanks")
      ])
      const { diagnostics, groups } = toolGroups(messages, format)
      assert.deepStrictEqual(groups, [[0], [1, 3, 4], [2], [5]])
      assert.deepStrictEqual(tags(diagnostics), [])
      const repaired = repairPairs(messages, { format })
      assert.strictEqual(repaired.messages, messages)
      // Approved and not run yet, or pending: neither dangling nor stubbed.
      const pending = deepFreeze([user("ask"), request("mcpr_2"), response("mcpr_2", true), user("go")])
      assert.deepStrictEqual(tags(toolGroups(pending, format).diagnostics), [])
      assert.strictEqual(repairPairs(pending, { format }).messages, pending)
    })
  }
})
