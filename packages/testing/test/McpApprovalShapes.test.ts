/**
 * Issue 11: the OpenAI Responses generator produces the MCP approval flow — `mcp_approval_request`,
 * `mcp_approval_response` (orphans included), and the `mcp_call` that names its request — so every law run on
 * `conversation("openaiResponses")` covers MCP approvals; and the lens diagnoses and repairs them on every
 * generated conversation.
 */
import { formats, type OpenAiResponsesItem, repairPairs, toolGroups } from "@ctxkit/core"
import { conversation, groupsFromKeys } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const record = (m: unknown): Readonly<Record<string, unknown>> =>
  typeof m === "object" && m !== null ? m as Readonly<Record<string, unknown>> : {}
const generated = conversation("openaiResponses", { huge: false, orphans: true, dangling: true })
const format = formats.openaiResponses

/** The ids of the approval responses whose request is nowhere in `items`, computed from the items alone. */
const orphanResponses = (items: ReadonlyArray<unknown>): Array<string> => {
  const requested = new Set(
    items.filter((m) => record(m)["type"] === "mcp_approval_request").map((m) => String(record(m)["id"]))
  )
  return items
    .filter((m) => record(m)["type"] === "mcp_approval_response")
    .map((m) => String(record(m)["approval_request_id"]))
    .filter((id) => !requested.has(id))
}

describe("generated OpenAI Responses MCP approvals", () => {
  it("every shape appears: request, approved and denied responses, orphan responses, mcp_call naming its request", () => {
    const conversations = fc.sample(generated, { numRuns: runs.more, seed: 11 })
    const items = conversations.flatMap((r) => r.messages)
    const of = (type: string) => items.filter((m) => record(m)["type"] === type)
    assert.isAbove(of("mcp_approval_request").length, 0)
    const responses = of("mcp_approval_response")
    assert.isTrue(responses.some((m) => record(m)["approve"] === true))
    assert.isTrue(responses.some((m) => record(m)["approve"] === false))
    assert.isTrue(conversations.some((r) => orphanResponses(r.messages).length > 0))
    const calls = of("mcp_call")
    assert.isTrue(calls.some((m) => typeof record(m)["approval_request_id"] === "string"))
    // A request answered and not run yet: approved, with no mcp_call.
    assert.isTrue(
      conversations.some((r) =>
        r.messages.some((m) =>
          record(m)["type"] === "mcp_approval_response" && record(m)["approve"] === true &&
          !r.messages.some((c) =>
            record(c)["type"] === "mcp_call" && record(c)["approval_request_id"] === record(m)["approval_request_id"]
          )
        )
      )
    )
  })

  it("toolGroups reports exactly the orphan responses, groups match the keys, and repairPairs drops them", () => {
    fc.assert(
      fc.property(generated, (rendered) => {
        const items = rendered.messages as ReadonlyArray<OpenAiResponsesItem>
        const { diagnostics, groups } = toolGroups(items, format)
        assert.deepStrictEqual(groups, groupsFromKeys(rendered))
        const reported = diagnostics.flatMap((d) => d._tag === "OrphanApprovalResponse" ? [d.approvalId] : [])
        assert.deepStrictEqual([...reported].sort(), orphanResponses(items).sort())
        const repaired = repairPairs(items, { format })
        assert.deepStrictEqual(orphanResponses(repaired.messages), [])
        assert.isFalse(
          toolGroups(repaired.messages, format).diagnostics.some((d) => d._tag === "OrphanApprovalResponse")
        )
        // Every request kept by the repair keeps its response and its mcp_call.
        const kept = new Set(repaired.messages)
        for (const group of groups) {
          const members = group.map((i) => items[i]!)
          if (!members.some((m) => record(m)["type"] === "mcp_approval_request")) continue
          assert.isTrue(members.every((m) => kept.has(m)) || members.every((m) => !kept.has(m)))
        }
      }),
      { numRuns: runs.standard }
    )
  })
})
