/**
 * Renders scenarios as OpenAI Chat Completions messages.
 *
 * @internal
 */
import type { OpenAiChatMessage } from "@ctxkit/core"
import type { Rendered, Scenario } from "../../Scenario.ts"

export const render = (scenario: Scenario): Rendered<OpenAiChatMessage> => {
  const messages: Array<OpenAiChatMessage> = []
  const keys: Array<ReadonlyArray<string>> = []
  turns: for (const turn of scenario.turns) {
    switch (turn.kind) {
      case "system":
        messages.push({
          role: "system",
          content: turn.text,
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.source === "system" ? {} : { meta: { source: turn.source } })
        })
        keys.push([])
        continue turns
      case "user":
        messages.push({ role: "user", content: turn.text, ...(turn.pinned ? { pinned: true } : {}) })
        keys.push([])
        continue turns
      case "assistant":
        messages.push({
          role: "assistant",
          content: turn.calls.length > 0 && turn.text === "" ? null : turn.text,
          ...(turn.calls.length > 0
            ? {
              tool_calls: turn.calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments }
              }))
            }
            : {})
        })
        keys.push(turn.calls.map((c) => `call:${c.id}`))
        continue turns
      case "results":
        for (const result of turn.results) {
          messages.push({ role: "tool", tool_call_id: result.callId, content: result.text })
          keys.push([`call:${result.callId}`])
        }
        continue turns
      case "approval":
        messages.push({ role: "user", content: turn.approved ? "Approved." : "Denied." })
        keys.push([])
        continue turns
    }
  }
  return { messages, keys }
}
