/**
 * Renders scenarios as Vercel AI SDK `ModelMessage`s.
 *
 * @internal
 */
import type { AiSdkMessage, AiSdkPart } from "@ctxkit/core/formats/AiSdk"
import type { Rendered, Scenario, ScenarioCall } from "../../Scenario.ts"

/** The call's input: its arguments parsed when they are JSON that prints back identically, else the raw text. */
const inputOf = (call: ScenarioCall): unknown => {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return JSON.stringify(parsed) === call.arguments ? parsed : call.arguments
  } catch {
    return call.arguments
  }
}

/**
 * The reasoning and text parts of an assistant turn: a reasoning part when it has reasoning, then a text part —
 * left out when the text is empty and the turn has calls, or reasoning. So a turn with no calls gives the shapes
 * `auto` must read as the AI SDK with no tool part to tell it: `[reasoning, text]` and `[reasoning]` alone.
 */
const reasoningAndText = (reasoning: string | undefined, text: string, hasCalls: boolean): Array<AiSdkPart> => {
  const parts: Array<AiSdkPart> = []
  if (reasoning !== undefined) parts.push({ type: "reasoning", text: reasoning })
  if (text !== "" || (!hasCalls && reasoning === undefined)) parts.push({ type: "text", text })
  return parts
}

export const render = (scenario: Scenario): Rendered<AiSdkMessage> => {
  const messages: Array<AiSdkMessage> = []
  const keys: Array<ReadonlyArray<string>> = []
  scenario.turns.forEach((turn, index) => {
    switch (turn.kind) {
      case "system":
        // A source other than the system travels in ctxkit's provider options, where the lens reads it.
        messages.push({
          role: "system",
          content: turn.text,
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.source === "system" ? {} : { providerOptions: { ctxkit: { source: turn.source } } })
        })
        keys.push([])
        return
      case "user":
        messages.push({
          role: "user",
          // Alternate string and parts content, deterministically.
          content: index % 2 === 0 ? turn.text : [{ type: "text", text: turn.text }],
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.summary ? { providerOptions: { ctxkit: { summary: true } } } : {})
        })
        keys.push([])
        return
      case "assistant": {
        const content: Array<AiSdkPart> = reasoningAndText(turn.reasoning, turn.text, turn.calls.length > 0)
        const turnKeys: Array<string> = []
        for (const call of turn.calls) {
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: inputOf(call) })
          turnKeys.push(`call:${call.id}`)
          if (call.approvalId !== undefined) {
            content.push({ type: "tool-approval-request", approvalId: call.approvalId, toolCallId: call.id })
            turnKeys.push(`approval:${call.approvalId}`)
          }
        }
        messages.push({ role: "assistant", content })
        keys.push(turnKeys)
        return
      }
      case "results":
        messages.push({
          role: "tool",
          content: turn.results.map((result, k): AiSdkPart => ({
            type: "tool-result",
            toolCallId: result.callId,
            toolName: result.name,
            // Successful results alternate between the `text` and `content` output forms.
            output: result.isError
              ? { type: "error-text", value: result.text }
              : (index + k) % 3 === 1
              ? { type: "content", value: [{ type: "text", text: result.text }] }
              : { type: "text", value: result.text }
          }))
        })
        keys.push(turn.results.map((result) => `call:${result.callId}`))
        return
      case "approval":
        messages.push({
          role: "tool",
          content: [{ type: "tool-approval-response", approvalId: turn.approvalId, approved: turn.approved }]
        })
        keys.push([`approval:${turn.approvalId}`])
        return
    }
  })
  return { messages, keys }
}
