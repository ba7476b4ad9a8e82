/**
 * Renders scenarios as OpenAI Responses API input items.
 *
 * @internal
 */
import type { OpenAiResponsesItem } from "@ctxkit/core"
import type { Rendered, Scenario } from "../../Scenario.ts"

/**
 * The scenario as Responses input items: system and user turns are messages (`pinned: true` when pinned;
 * memory and lorebook blocks, which the API cannot tell apart, are plain system messages); an assistant
 * turn is a `reasoning` item (key `next`), an assistant message (when it has text or nothing else), and
 * per call an `mcp_approval_request` (when the call asks for approval, key `approval:<id>`) then a
 * `function_call` (key `call:<id>`); a results turn is one `function_call_output` per result; an approval
 * turn is an `mcp_approval_response`.
 *
 * @example
 * ```ts
 * import { render } from "@ctxkit/testing"
 *
 * render("openaiResponses", { turns: [{ kind: "results", results: [{ callId: "c1", name: "ls", text: "a.txt", isError: false }] }] })
 * // { messages: [{ type: "function_call_output", call_id: "c1", output: "a.txt" }], keys: [["call:c1"]] }
 * ```
 *
 * @category renderers
 * @since 0.1.0
 */
export const render = (scenario: Scenario): Rendered<OpenAiResponsesItem> => {
  const messages: Array<OpenAiResponsesItem> = []
  const keys: Array<ReadonlyArray<string>> = []
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
            push({
              type: "mcp_approval_request",
              id: call.approvalId,
              server_label: "scenario",
              name: call.name,
              arguments: call.arguments
            }, [`approval:${call.approvalId}`])
          }
          push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments }, [
            `call:${call.id}`
          ])
        }
        return
      case "results":
        for (const result of turn.results) {
          push({ type: "function_call_output", call_id: result.callId, output: result.text }, [`call:${result.callId}`])
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
