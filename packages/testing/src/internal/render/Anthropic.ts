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
 * An assistant message as the Messages API returns it and harnesses (Claude Code among them) store it: the
 * response object `{ id, type: "message", role, model, content, stop_reason, stop_sequence, usage }`, content
 * always a list of blocks.
 */
const asResponseObject = (message: AnthropicMessage, index: number): AnthropicMessage => {
  const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
  const calls = Array.isArray(content) && content.some((block) => (block as { type?: unknown }).type === "tool_use")
  return {
    id: `msg_${String(index).padStart(4, "0")}`,
    type: "message",
    role: "assistant",
    model: "claude-opus-4-6",
    content,
    stop_reason: calls ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10 + index, output_tokens: 5 }
  }
}

/** Every other assistant turn (odd turn index) is rendered as a stored response object. */
const stored = (message: AnthropicMessage, index: number): AnthropicMessage =>
  index % 2 === 1 ? asResponseObject(message, index) : message

/**
 * The scenario as Messages API messages: system turns are `system` messages (harnesses lift them into the
 * request's `system` field), user turns user messages (`pinned: true` when pinned); an assistant turn is
 * one message with a `thinking` block, a text block and `tool_use` blocks (plain text content when it has
 * neither reasoning nor calls), and every other one (odd turn index) is stored as the API's response object
 * (`{ id, type: "message", model, content, stop_reason, usage }`, as Claude Code stores it); a results turn is
 * one user message with a `tool_result` block per result.
 * The API has no approvals: an approval turn is a plain user message with no keys, and calls lose their
 * `approvalId`.
 *
 * @example
 * ```ts
 * import { render } from "@ctxkit/testing"
 *
 * render("anthropic", { turns: [{ kind: "results", results: [{ callId: "c1", name: "ls", text: "a.txt", isError: false }] }] })
 * // { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "a.txt" }] }], keys: [["call:c1"]] }
 * ```
 *
 * @category formats
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
          messages.push(stored({ role: "assistant", content: turn.text }, index))
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
        messages.push(stored({ role: "assistant", content: blocks }, index))
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
