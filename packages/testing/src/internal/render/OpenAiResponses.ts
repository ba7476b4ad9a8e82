/**
 * Renders scenarios as OpenAI Responses API input items.
 *
 * @internal
 */
import type { OpenAiResponsesItem } from "@ctxkit/core"
import type { Rendered, Scenario, ScenarioCall } from "../../Scenario.ts"

/**
 * The scenario as Responses input items: system and user turns are messages (`pinned: true` when pinned;
 * memory and lorebook blocks, which the API cannot tell apart, are plain system messages); an assistant
 * turn is a `reasoning` item (key `next`), an assistant message (when it has text or nothing else), and
 * per call a `function_call` (key `call:<id>`) — or, when the call asks for approval, the MCP flow: an
 * `mcp_approval_request` (keys `approval:<id>` and `call:<id>`), answered by an approval turn's
 * `mcp_approval_response` (an orphan one when no request was made), and run as an `mcp_call` that names the
 * request (`approval_request_id`) and carries the result (`output`, or `error` when it failed or was denied, so
 * that every result of the scenario is in the conversation). Other results are `function_call_output` items.
 *
 * @example
 * ```ts
 * import { render } from "@ctxkit/testing"
 *
 * render("openaiResponses", { turns: [{ kind: "results", results: [{ callId: "c1", name: "ls", text: "a.txt", isError: false }] }] })
 * // { messages: [{ type: "function_call_output", call_id: "c1", output: "a.txt" }], keys: [["call:c1"]] }
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const render = (scenario: Scenario): Rendered<OpenAiResponsesItem> => {
  const messages: Array<OpenAiResponsesItem> = []
  const keys: Array<ReadonlyArray<string>> = []
  // Calls that asked for approval, by call id: their results are `mcp_call`s.
  const approvalCalls = new Map<string, ScenarioCall & { readonly approvalId: string }>()
  const push = (item: OpenAiResponsesItem, itemKeys: ReadonlyArray<string>): void => {
    messages.push(item)
    keys.push(itemKeys)
  }
  scenario.turns.forEach((turn, index) => {
    switch (turn.kind) {
      case "system":
      case "user":
        push({
          role: turn.kind,
          content: turn.text,
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.kind === "system" && turn.source !== "system" ? { meta: { source: turn.source } } : {})
        }, [])
        return
      case "assistant":
        if (turn.reasoning !== undefined) {
          push({
            type: "reasoning",
            id: `rs_${index}`,
            summary: turn.reasoning === "" ? [] : [{ type: "summary_text", text: turn.reasoning }]
          }, ["next"])
        }
        if (turn.text !== "" || turn.calls.length === 0) {
          push({
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: turn.text, annotations: [] }]
          }, [])
        }
        for (const call of turn.calls) {
          if (call.approvalId !== undefined) {
            approvalCalls.set(call.id, { ...call, approvalId: call.approvalId })
            push({
              type: "mcp_approval_request",
              id: call.approvalId,
              server_label: "scenario",
              name: call.name,
              arguments: call.arguments
            }, [`approval:${call.approvalId}`, `call:${call.id}`])
            continue
          }
          push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments }, [
            `call:${call.id}`
          ])
        }
        return
      case "results":
        for (const result of turn.results) {
          const call = approvalCalls.get(result.callId)
          if (call === undefined) {
            push({ type: "function_call_output", call_id: result.callId, output: result.text }, [
              `call:${result.callId}`
            ])
            continue
          }
          push({
            type: "mcp_call",
            id: call.id,
            server_label: "scenario",
            name: call.name,
            arguments: call.arguments,
            approval_request_id: call.approvalId,
            ...(result.isError ? { error: result.text } : { output: result.text })
          }, [`call:${call.id}`, `approval:${call.approvalId}`])
        }
        return
      case "approval":
        push({ type: "mcp_approval_response", approval_request_id: turn.approvalId, approve: turn.approved }, [
          `approval:${turn.approvalId}`
        ])
        return
    }
  })
  return { messages, keys }
}
