import {
  type AiSdkMessage,
  type EffectAiMessage,
  formats,
  type MessageFormat,
  repairPairs,
  toolGroups
} from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"

// The two formats with tool approvals write the call and its result differently and the approval parts
// the same way (`effect/ai` `Prompt`: `id`/`name`/`params`, `isFailure`/`result`).
type M = unknown
interface Dialect {
  readonly name: string
  readonly format: MessageFormat<M>
  readonly call: (id: string, approvalId?: string) => AiSdkMessage | EffectAiMessage
  readonly result: (id: string) => AiSdkMessage | EffectAiMessage
}

const approvalRequest = (approvalId: string, toolCallId: string) =>
  ({ type: "tool-approval-request", approvalId, toolCallId }) as const
const approvalResponse = (approvalId: string, approved: boolean) =>
  ({ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved }] }) as const

const aiSdk: Dialect = {
  name: "aiSdk",
  format: formats.aiSdk as MessageFormat<M>,
  call: (id, approvalId) => ({
    role: "assistant",
    content: [
      { type: "tool-call", toolCallId: id, toolName: "deploy", input: { env: "prod" } },
      ...(approvalId === undefined ? [] : [approvalRequest(approvalId, id)])
    ]
  }),
  result: (id) => ({
    role: "tool",
    content: [{ type: "tool-result", toolCallId: id, toolName: "deploy", output: { type: "text", value: "done" } }]
  })
}

const effectAi: Dialect = {
  name: "effectAi",
  format: formats.effectAi as MessageFormat<M>,
  call: (id, approvalId) => ({
    role: "assistant",
    content: [
      { type: "tool-call", id, name: "deploy", params: { env: "prod" } },
      ...(approvalId === undefined ? [] : [approvalRequest(approvalId, id)])
    ]
  }),
  result: (id) => ({
    role: "tool",
    content: [{ type: "tool-result", id, name: "deploy", isFailure: false, result: "done" }]
  })
}

const user = (text: string) => ({ role: "user", content: text }) as const

const tags = (diagnostics: ReadonlyArray<{ readonly _tag: string }>) => diagnostics.map((d) => d._tag)

const run = (d: Dialect) =>
  describe(`approvals in ${d.name}`, () => {
    const { format } = d
    it("an approval response whose request is gone is an orphan: diagnosed, and dropped by repairPairs", () => {
      // The request went with an earlier turn (a compaction, a hand-trimmed history); its response stayed.
      const messages: ReadonlyArray<M> = deepFreeze([user("deploy"), approvalResponse("apr_gone", true), user("and?")])
      const { diagnostics, groups } = toolGroups(messages, format)
      assert.deepStrictEqual(groups, [[0], [1], [2]])
      assert.deepStrictEqual(tags(diagnostics), ["OrphanApprovalResponse"])
      const orphan = diagnostics[0]!
      assert.strictEqual(orphan._tag === "OrphanApprovalResponse" ? orphan.approvalId : "", "apr_gone")
      assert.include(orphan.message, "repairPairs")

      const repaired = repairPairs(messages, { format })
      assert.deepStrictEqual(repaired.messages, [messages[0], messages[2]])
      assert.deepStrictEqual(repaired.changes.map((c) => [c._tag, c.index]), [["ApprovalDropped", 1], [
        "MessageDropped",
        1
      ]])
      assert.deepStrictEqual(toolGroups(repaired.messages, format).diagnostics, [])
      // Kept when asked to.
      assert.strictEqual(repairPairs(messages, { format, orphans: "keep" }).messages, messages)
    })

    it("an approved call with no result awaits execution: not dangling, never stubbed or dropped", () => {
      const messages: ReadonlyArray<M> = deepFreeze([
        user("deploy to prod"),
        d.call("c1", "apr_1"),
        approvalResponse("apr_1", true)
      ])
      const { diagnostics, groups } = toolGroups(messages, format)
      assert.deepStrictEqual(groups, [[0], [1, 2]])
      assert.deepStrictEqual(
        diagnostics.map((x) =>
          x._tag === "AwaitingExecution" ? [x._tag, x.callId, x.approvalId, x.approved] : [x._tag]
        ),
        [["AwaitingExecution", "c1", "apr_1", true]]
      )
      for (const dangling of ["stub", "drop", "keep"] as const) {
        const repaired = repairPairs(messages, { format, dangling })
        assert.strictEqual(repaired.messages, messages, dangling)
        assert.deepStrictEqual(repaired.changes, [])
      }
    })

    it("a denied call with no result yet is not dangling either", () => {
      const messages: ReadonlyArray<M> = deepFreeze([d.call("c1", "apr_1"), approvalResponse("apr_1", false)])
      assert.deepStrictEqual(
        toolGroups(messages, format).diagnostics.map((x) => x._tag === "AwaitingExecution" ? x.approved : x._tag),
        [false]
      )
      assert.strictEqual(repairPairs(messages, { format }).messages, messages)
    })

    it("a call approved and executed has no diagnostic; one only requested is dangling", () => {
      const done: ReadonlyArray<M> = [d.call("c1", "apr_1"), approvalResponse("apr_1", true), d.result("c1")]
      assert.deepStrictEqual(toolGroups(done, format), { groups: [[0, 1, 2]], groupOf: [0, 0, 0], diagnostics: [] })
      const asked: ReadonlyArray<M> = deepFreeze([user("deploy"), d.call("c1", "apr_1")])
      assert.deepStrictEqual(tags(toolGroups(asked, format).diagnostics), ["DanglingCall"])
      // Dropping the call drops its approval request with it: nothing is left of the message.
      const dropped = repairPairs(asked, { format, dangling: "drop" })
      assert.deepStrictEqual(dropped.messages, [asked[0]])
      assert.deepStrictEqual(tags(dropped.changes), ["CallDropped", "ApprovalDropped", "MessageDropped"])
    })

    it("dropping an orphan result's id drops an approval request and response that name it", () => {
      // The call is gone but its approval request survived in a message of its own, its response far away.
      const request = { role: "assistant", content: [approvalRequest("apr_9", "c9")] }
      const messages: ReadonlyArray<M> = deepFreeze([
        user("go"),
        request,
        user("approved"),
        approvalResponse("apr_9", true),
        d.result("c9"),
        user("next")
      ])
      assert.deepStrictEqual(tags(toolGroups(messages, format).diagnostics), ["OrphanResult"])
      const repaired = repairPairs(messages, { format })
      assert.deepStrictEqual(repaired.messages, [messages[0], messages[2], messages[5]])
      assert.deepStrictEqual(toolGroups(repaired.messages, format).diagnostics, [])
    })
  })

run(aiSdk)
run(effectAi)

describe("approvals through formats.auto", () => {
  it("reads the same diagnostics as the AI SDK format", () => {
    const messages = [aiSdk.call("c1", "apr_1"), approvalResponse("apr_1", true), approvalResponse("apr_x", true)]
    assert.deepStrictEqual(
      tags(toolGroups(messages).diagnostics),
      tags(toolGroups(messages, formats.aiSdk as MessageFormat<M>).diagnostics)
    )
    assert.deepStrictEqual(tags(toolGroups(messages).diagnostics), ["AwaitingExecution", "OrphanApprovalResponse"])
  })
})
