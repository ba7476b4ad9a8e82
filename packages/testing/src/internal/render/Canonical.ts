/**
 * Renders scenarios as canonical ctxkit messages.
 *
 * @internal
 */
import type { Message } from "@ctxkit/core"
import type { Rendered, Scenario } from "../../Scenario.ts"

export const render = (scenario: Scenario): Rendered<Message> => {
  const messages: Array<Message> = []
  const keys: Array<ReadonlyArray<string>> = []
  for (const turn of scenario.turns) {
    switch (turn.kind) {
      case "system":
        messages.push({
          role: "system",
          content: turn.text,
          ...(turn.source === "system" ? {} : { source: turn.source }),
          ...(turn.pinned ? { pinned: true } : {})
        })
        keys.push([])
        break
      case "user":
        messages.push({
          role: "user",
          content: turn.text,
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.summary ? { summary: true } : {})
        })
        keys.push([])
        break
      case "assistant":
        messages.push({
          role: "assistant",
          content: turn.text,
          ...(turn.calls.length > 0
            ? { toolCalls: turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
            : {}),
          ...(turn.reasoning === undefined ? {} : { providerData: { reasoning: turn.reasoning } })
        })
        keys.push(turn.calls.map((c) => `call:${c.id}`))
        break
      case "results":
        for (const result of turn.results) {
          messages.push({
            role: "tool",
            toolCallId: result.callId,
            toolName: result.name,
            content: result.text,
            ...(result.isError ? { isError: true } : {})
          })
          keys.push([`call:${result.callId}`])
        }
        break
      case "approval":
        messages.push({ role: "user", content: turn.approved ? "Approved." : "Denied." })
        keys.push([])
        break
    }
  }
  return { messages, keys }
}
