/**
 * Renders scenarios as Anthropic Messages API messages.
 *
 * @internal
 */
import type { AnthropicMessage } from "@ctxkit/core"
import type { Rendered, Scenario } from "../../Scenario.ts"

/**
 * A `tool_use` input from the call's arguments: the parsed object, or the raw text when the model's JSON
 * is truncated or not an object (so that the lens reads back exactly what the model wrote).
 */
const inputOf = (args: string): unknown => {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : args
  } catch {
    return args
  }
}

/**
 * The scenario as Messages API messages: system turns are `system` messages (harnesses lift them into the
 * request's `system` field), user turns user messages (`pinned: true` when pinned); an assistant turn is
 * one message with a `thinking` block, a text block and `tool_use` blocks (plain text content when it has
 * neither reasoning nor calls); a results turn is one user message with a `tool_result` block per result.
 * The API has no approvals: an approval turn is a plain user message with no keys, and calls lose their
 * `approvalId`.
 *
 * @example
 * ```ts
 * import { render } from "./Anthropic.ts"
 *
 * render({ turns: [{ kind: "results", results: [{ callId: "c1", name: "ls", text: "a.txt", isError: false }] }] })
 * // { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "a.txt" }] }], keys: [["call:c1"]] }
 * ```
 *
 * @category renderers
 * @since 0.1.0
 */
export const render = (scenario: Scenario): Rendered<AnthropicMessage> => {
  const messages: Array<AnthropicMessage> = []
  const keys: Array<ReadonlyArray<string>> = []
  scenario.turns.forEach((turn, index) => {
    switch (turn.kind) {
      case "system":
      case "user":
        messages.push({
          role: turn.kind,
          content: turn.text,
          ...(turn.pinned ? { pinned: true } : {}),
          ...(turn.kind === "system" && turn.source !== "system" ? { meta: { source: turn.source } } : {})
        })
        keys.push([])
        return
      case "assistant": {
        if (turn.reasoning === undefined && turn.calls.length === 0) {
          messages.push({ role: "assistant", content: turn.text })
          keys.push([])
          return
        }
        const blocks: Array<unknown> = []
        if (turn.reasoning !== undefined) {
          blocks.push({ type: "thinking", thinking: turn.reasoning, signature: `sig_${index}` })
        }
        if (turn.text !== "") blocks.push({ type: "text", text: turn.text })
        for (const call of turn.calls) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: inputOf(call.arguments) })
        }
        messages.push({ role: "assistant", content: blocks })
        keys.push(turn.calls.map((call) => `call:${call.id}`))
        return
      }
      case "results":
        messages.push({
          role: "user",
          content: turn.results.map((result) => ({
            type: "tool_result",
            tool_use_id: result.callId,
            content: result.text,
            ...(result.isError ? { is_error: true } : {})
          }))
        })
        keys.push(turn.results.map((result) => `call:${result.callId}`))
        return
      case "approval":
        messages.push({ role: "user", content: turn.approved ? "Approved." : "Denied." })
        keys.push([])
        return
    }
  })
  return { messages, keys }
}
