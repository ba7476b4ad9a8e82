/**
 * The lens over ctxkit's own {@link Message} shape.
 *
 * @since 0.1.0
 */
import { schemaIssues } from "../internal/issues.ts"
import { topLevelLinks } from "../internal/links.ts"
import { arr, contentText, empty, flag, isRecord, rec, replaceContentText, str, withFields } from "../internal/read.ts"
import { Message, type SystemSource } from "../Message.ts"
import { makeFormat, type MessageFormat, type Role, type ToolCallInfo } from "../MessageFormat.ts"

const TEXT = new Set(["text"])
const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool"])
const SOURCES: ReadonlySet<string> = new Set(["system", "memory", "lorebook", "persona", "plugin", "instructions"])

const readCalls = (message: unknown): ReadonlyArray<ToolCallInfo> => {
  const calls = arr(message, "toolCalls")
  if (calls.length === 0) return empty
  const out: Array<ToolCallInfo> = []
  for (const call of calls) {
    const id = str(call, "id")
    if (id === undefined) continue
    out.push({ id, name: str(call, "name") ?? "", arguments: str(call, "arguments") ?? "" })
  }
  return out
}

const validate = schemaIssues(Message)

/**
 * The canonical format: `toolCalls[].id` ↔ `toolCallId`, `pinned`, `source`, `summary` and `meta` read
 * from the message itself.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 *
 * formats.canonical.toolCalls({
 *   role: "assistant",
 *   content: "",
 *   toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }]
 * }) // [{ id: "c1", name: "ls", arguments: "{}" }]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const canonical: MessageFormat<Message> = makeFormat<Message>({
  name: "canonical",
  role: (message): Role => {
    const role = str(message, "role")
    return role !== undefined && ROLES.has(role) ? role as Role : "user"
  },
  forEachLink: topLevelLinks("toolCallId", "toolCalls"),
  toolCalls: readCalls,
  toolResults: (message) => {
    const callId = str(message, "toolCallId")
    if (callId === undefined) return empty
    return [{
      callId,
      name: str(message, "toolName"),
      isError: flag(message, "isError"),
      text: contentText(isRecord(message) ? message["content"] : undefined, TEXT)
    }]
  },
  isPinned: (message) => flag(message, "pinned") || flag(rec(message, "meta"), "pinned"),
  isSummary: (message) => flag(message, "summary"),
  source: (message) => {
    const source = str(message, "source")
    return source !== undefined && SOURCES.has(source) ? source as SystemSource : undefined
  },
  id: (message) => str(message, "id"),
  meta: (message) => rec(message, "meta"),
  text: (message) => {
    const text = contentText(isRecord(message) ? message["content"] : undefined, TEXT)
    const calls = arr(message, "toolCalls")
    if (calls.length === 0) return text
    let out = text
    for (const call of calls) {
      const piece = (str(call, "name") ?? "") + " " + (str(call, "arguments") ?? "")
      out = out.length === 0 ? piece : out + "\n" + piece
    }
    return out
  },
  withText: (message, text) =>
    withFields(message, {
      content: replaceContentText(isRecord(message) ? message["content"] : "", text, TEXT, "text")
    }),
  withResultText: (message, callId, text) =>
    str(message, "toolCallId") === callId
      ? withFields(message, { content: replaceContentText(message.content, text, TEXT, "text") })
      : message,
  withoutToolParts: (message, callIds) => {
    const callId = str(message, "toolCallId")
    if (callId !== undefined) return callIds.has(callId) ? undefined : message
    const calls = arr(message, "toolCalls")
    if (calls.length === 0) return message
    const remaining = calls.filter((call) => !callIds.has(str(call, "id") ?? ""))
    if (remaining.length === calls.length) return message
    const hasText = contentText(message.content, TEXT).length > 0 ||
      (Array.isArray(message.content) && message.content.length > 0)
    if (remaining.length === 0 && !hasText) return undefined
    return withFields(message, { toolCalls: remaining.length === 0 ? undefined : remaining })
  },
  makeNote: (text, options) =>
    options.role === "system"
      ? { role: "system", content: text, ...(options.id === undefined ? {} : { id: options.id }) }
      : {
        role: "user",
        content: text,
        ...(options.kind === "summary" ? { summary: true } : {}),
        ...(options.id === undefined ? {} : { id: options.id })
      },
  makeToolResults: (_issuer, calls, text, options) =>
    calls.map((call): Message => ({
      role: "tool",
      toolCallId: call.id,
      toolName: call.name,
      content: text,
      uncertain: true,
      ...(options.isError ? { isError: true } : {})
    })),
  validate: (message, path) => validate(message, path)
})
