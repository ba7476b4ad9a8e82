/**
 * The lens over OpenAI Chat Completions messages (also spoken by most OpenAI-compatible servers:
 * vLLM, llama.cpp, Ollama, OpenRouter, LiteLLM).
 *
 * @since 0.1.0
 */
import type { ConversationIssue } from "../Errors.ts"
import { describe, issue } from "../internal/issues.ts"
import { topLevelLinks } from "../internal/links.ts"
import { arr, contentText, empty, flag, isRecord, rec, replaceContentText, str, withFields } from "../internal/read.ts"
import { makeFormat, type MessageFormat, type Role, type ToolCallInfo } from "../MessageFormat.ts"

/**
 * A Chat Completions message, structurally: `role` (`system`, `developer`, `user`, `assistant`, `tool`,
 * or the legacy `function`), `content` (a string, `null`, or parts), `tool_calls` on assistant messages,
 * `tool_call_id` on tool messages. Other fields travel untouched.
 *
 * @example
 * ```ts
 * import type { OpenAiChatMessage } from "@ctxkit/core"
 *
 * const call: OpenAiChatMessage = {
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }]
 * }
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface OpenAiChatMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: ReadonlyArray<{
    readonly id: string
    readonly type?: string
    readonly function?: { readonly name: string; readonly arguments: string }
    readonly custom?: { readonly name: string; readonly input: string }
  }>
  readonly tool_call_id?: string
  readonly name?: string
  readonly [key: string]: unknown
}

const TEXT = new Set(["text", "refusal"])

const callOf = (call: unknown): ToolCallInfo | undefined => {
  const id = str(call, "id")
  if (id === undefined) return undefined
  const fn = rec(call, "function")
  if (fn !== undefined) return { id, name: str(fn, "name") ?? "", arguments: str(fn, "arguments") ?? "" }
  const custom = rec(call, "custom")
  return { id, name: str(custom, "name") ?? "", arguments: str(custom, "input") ?? "" }
}

const readCalls = (message: unknown): ReadonlyArray<ToolCallInfo> => {
  const calls = arr(message, "tool_calls")
  if (calls.length === 0) return empty
  const out: Array<ToolCallInfo> = []
  for (const call of calls) {
    const info = callOf(call)
    if (info !== undefined) out.push(info)
  }
  return out
}

const roleOf = (message: unknown): Role => {
  switch (str(message, "role")) {
    case "system":
    case "developer":
      return "system"
    case "assistant":
      return "assistant"
    case "tool":
    case "function":
      return "tool"
    default:
      return "user"
  }
}

const content = (message: unknown): unknown => isRecord(message) ? message["content"] : undefined

/**
 * The Chat Completions format: `tool_calls[].id` ↔ `tool_call_id`. `developer` messages are system
 * messages; `pinned: true` (a harness-side field, stripped by nothing here) pins a message.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 *
 * formats.openaiChat.toolResults({ role: "tool", tool_call_id: "call_1", content: "a.txt" })
 * // [{ callId: "call_1", name: undefined, isError: false, text: "a.txt" }]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const openaiChat: MessageFormat<OpenAiChatMessage> = makeFormat<OpenAiChatMessage>({
  name: "openaiChat",
  role: roleOf,
  forEachLink: topLevelLinks("tool_call_id", "tool_calls"),
  toolCalls: readCalls,
  toolResults: (message) => {
    const callId = str(message, "tool_call_id")
    if (callId === undefined) return empty
    return [{ callId, name: str(message, "name"), isError: false, text: contentText(content(message), TEXT) }]
  },
  isPinned: (message) => flag(message, "pinned"),
  id: (message) => str(message, "id"),
  text: (message) => {
    let out = contentText(content(message), TEXT)
    for (const call of readCalls(message)) {
      const piece = call.name + " " + call.arguments
      out = out.length === 0 ? piece : out + "\n" + piece
    }
    return out
  },
  withText: (message, text) =>
    withFields(message, { content: replaceContentText(content(message), text, TEXT, "text") }),
  withResultText: (message, callId, text) =>
    str(message, "tool_call_id") === callId
      ? withFields(message, { content: replaceContentText(content(message), text, TEXT, "text") })
      : message,
  withoutToolParts: (message, callIds) => {
    const callId = str(message, "tool_call_id")
    if (callId !== undefined) return callIds.has(callId) ? undefined : message
    const calls = arr(message, "tool_calls")
    if (calls.length === 0) return message
    const remaining = calls.filter((call) => !callIds.has(str(call, "id") ?? ""))
    if (remaining.length === calls.length) return message
    if (remaining.length === 0) {
      const body = content(message)
      const hasContent = typeof body === "string" ? body.length > 0 : Array.isArray(body) && body.length > 0
      return hasContent ? withFields(message, { tool_calls: undefined }) : undefined
    }
    return withFields(message, { tool_calls: remaining })
  },
  makeNote: (text, options) => ({
    role: options.role,
    content: text,
    ...(options.id === undefined ? {} : { id: options.id })
  }),
  makeToolResults: (_issuer, calls, text) =>
    calls.map((call): OpenAiChatMessage => ({ role: "tool", tool_call_id: call.id, content: text })),
  validate: (message, path) => {
    if (!isRecord(message)) return [issue(path, `expected a message object, got ${describe(message)}`)]
    const issues: Array<ConversationIssue> = []
    const role = message["role"]
    if (typeof role !== "string") issues.push(issue(`${path}.role`, `expected string, got ${describe(role)}`))
    const body = message["content"]
    if (body !== undefined && body !== null && typeof body !== "string" && !Array.isArray(body)) {
      issues.push(issue(`${path}.content`, `expected string, null or an array of parts, got ${describe(body)}`))
    }
    if (role === "tool" && typeof message["tool_call_id"] !== "string") {
      issues.push(issue(`${path}.tool_call_id`, `expected string, got ${describe(message["tool_call_id"])}`))
    }
    const calls = message["tool_calls"]
    if (calls !== undefined) {
      if (!Array.isArray(calls)) issues.push(issue(`${path}.tool_calls`, `expected an array, got ${describe(calls)}`))
      else {
        calls.forEach((call, i) => {
          if (typeof str(call, "id") !== "string") {
            issues.push(
              issue(
                `${path}.tool_calls[${i}].id`,
                `expected string, got ${describe(isRecord(call) ? call["id"] : call)}`
              )
            )
          }
        })
      }
    }
    return issues
  }
})
