/**
 * The lens over `effect/ai` `Prompt` messages, decoded (`Prompt.Message`, content parts carrying the
 * `"~effect/ai/Prompt/Part"` marker) or encoded (`Prompt.MessageEncoded`, where content may be a string).
 *
 * @since 0.1.0
 */
import * as Prompt from "effect/ai/Prompt"
import * as Schema from "effect/Schema"
import type { ConversationIssue } from "../Errors.ts"
import { describe, issue, schemaIssues } from "../internal/issues.ts"
import { arr, contentText, empty, flag, isRecord, joinText, jsonText, rec, str, withFields } from "../internal/read.ts"
import {
  type Link,
  makeFormat,
  type MessageFormat,
  type Role,
  type ToolCallInfo,
  type ToolResultInfo
} from "../MessageFormat.ts"

/**
 * One content part of an `effect/ai` prompt message, structurally: `text`, `file`, `reasoning`,
 * `tool-call` (`id`, `name`, `params`), `tool-result` (`id`, `name`, `isFailure`, `result`,
 * `modelOutput?`), `tool-approval-request` (`approvalId`, `toolCallId`) or `tool-approval-response`
 * (`approvalId`, `approved`). `Prompt.Part` and `Prompt.PartEncoded` values are assignable to it.
 *
 * @example
 * ```ts
 * import type { EffectAiPart } from "@ctxkit/core"
 *
 * const part: EffectAiPart = { type: "tool-call", id: "call_1", name: "ls", params: { dir: "." } }
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export type EffectAiPart =
  & {
    readonly options?: Readonly<Record<string, unknown>> | undefined
    readonly "~effect/ai/Prompt/Part"?: "~effect/ai/Prompt/Part" | undefined
  }
  & (
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "reasoning"; readonly text: string }
    | {
      readonly type: "file"
      readonly mediaType: string
      readonly data: unknown
      readonly fileName?: string | undefined
    }
    | {
      readonly type: "tool-call"
      readonly id: string
      readonly name: string
      readonly params: unknown
      readonly providerExecuted?: boolean | undefined
    }
    | {
      readonly type: "tool-result"
      readonly id: string
      readonly name: string
      readonly isFailure: boolean
      readonly result: unknown
      readonly modelOutput?: ReadonlyArray<unknown> | undefined
      readonly providerExecuted?: boolean | undefined
    }
    | { readonly type: "tool-approval-request"; readonly approvalId: string; readonly toolCallId: string }
    | {
      readonly type: "tool-approval-response"
      readonly approvalId: string
      readonly approved: boolean
      readonly reason?: string | undefined
    }
  )

/**
 * An `effect/ai` prompt message, structurally: `role`, `content` (parts, or a string in the encoded form)
 * and `options`. `Prompt.Message` and `Prompt.MessageEncoded` values are assignable to it.
 * `pinned: true` (a harness-side field) or `options.ctxkit.pinned` pins it; `options.ctxkit.summary`
 * marks a summary.
 *
 * @example
 * ```ts
 * import type { EffectAiMessage } from "@ctxkit/core"
 * import { Prompt } from "effect/ai"
 *
 * const messages: ReadonlyArray<EffectAiMessage> = [
 *   { role: "user", content: "list the files" },
 *   Prompt.makeMessage("assistant", {
 *     content: [Prompt.makePart("tool-call", { id: "c1", name: "ls", params: {}, providerExecuted: false })]
 *   })
 * ]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface EffectAiMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string | ReadonlyArray<EffectAiPart>
  readonly options?: Readonly<Record<string, unknown>> | undefined
  readonly "~effect/ai/Prompt/Message"?: "~effect/ai/Prompt/Message" | undefined
  readonly pinned?: boolean | undefined
}

const PART_MARKER = "~effect/ai/Prompt/Part" as const
const MESSAGE_MARKER = "~effect/ai/Prompt/Message" as const

const TEXT: ReadonlySet<string> = new Set(["text"])

const contentOf = (message: unknown): unknown => isRecord(message) ? message["content"] : undefined

const ctxkitOptions = (message: unknown): Readonly<Record<string, unknown>> | undefined =>
  rec(rec(message, "options"), "ctxkit")

/** Decoded messages carry the message marker; their new parts must carry the part marker. */
const isDecoded = (message: unknown): boolean => isRecord(message) && message[MESSAGE_MARKER] === MESSAGE_MARKER

const textPart = (decoded: boolean, text: string): EffectAiPart =>
  decoded ? { [PART_MARKER]: PART_MARKER, type: "text", text, options: {} } : { type: "text", text }

const roleOf = (message: unknown): Role => {
  switch (str(message, "role")) {
    case "system":
      return "system"
    case "assistant":
      return "assistant"
    case "tool":
      return "tool"
    default:
      return "user"
  }
}

const callOf = (part: unknown): ToolCallInfo | undefined => {
  if (str(part, "type") !== "tool-call") return undefined
  const id = str(part, "id")
  if (id === undefined || !isRecord(part)) return undefined
  return { id, name: str(part, "name") ?? "", arguments: jsonText(part["params"]) }
}

/** What the model reads of a result: its `modelOutput` text when it has one, else its `result` as JSON. */
const resultText = (part: Readonly<Record<string, unknown>>): string => {
  const modelOutput = part["modelOutput"]
  if (Array.isArray(modelOutput)) return contentText(modelOutput, TEXT)
  return jsonText(part["result"])
}

const resultOf = (part: unknown): ToolResultInfo | undefined => {
  if (str(part, "type") !== "tool-result") return undefined
  const callId = str(part, "id")
  if (callId === undefined || !isRecord(part)) return undefined
  return { callId, name: str(part, "name"), isError: flag(part, "isFailure"), text: resultText(part) }
}

const readCalls = (message: unknown): ReadonlyArray<ToolCallInfo> => {
  const parts = arr(message, "content")
  if (parts.length === 0) return empty
  let out: Array<ToolCallInfo> | undefined
  for (const part of parts) {
    const call = callOf(part)
    if (call !== undefined) (out ??= []).push(call)
  }
  return out ?? empty
}

const readResults = (message: unknown): ReadonlyArray<ToolResultInfo> => {
  const parts = arr(message, "content")
  if (parts.length === 0) return empty
  let out: Array<ToolResultInfo> | undefined
  for (const part of parts) {
    const result = resultOf(part)
    if (result !== undefined) (out ??= []).push(result)
  }
  return out ?? empty
}

/** A tool-result part answering with `text`; a `modelOutput` becomes that one text part. */
const rewriteResult = (part: Readonly<Record<string, unknown>>, text: string, decoded: boolean): unknown =>
  withFields(part, {
    result: text,
    modelOutput: Array.isArray(part["modelOutput"]) ? [textPart(decoded, text)] : undefined
  })

/** Content with its text parts collapsed into one carrying `text`, the other parts in place. */
const replaceText = (content: unknown, text: string, decoded: boolean): unknown => {
  if (!Array.isArray(content)) return text
  const out: Array<unknown> = []
  let placed = false
  for (const part of content) {
    if (str(part, "type") !== "text") out.push(part)
    else if (!placed) {
      out.push(withFields(part, { text }))
      placed = true
    }
  }
  if (!placed) out.push(textPart(decoded, text))
  return out
}

/** A part that carries nothing once its siblings are gone: empty text, or reasoning alone. */
const isFiller = (part: unknown): boolean => {
  const type = str(part, "type")
  return type === "reasoning" || (type === "text" && (str(part, "text") ?? "") === "")
}

type Check = (input: unknown, base: string) => ReadonlyArray<ConversationIssue>

// Encoded messages are checked against the codec's encoded side, decoded ones against its type side (a
// decoded file part's Uint8Array data would not decode again).
const checks: ReadonlyMap<string, { readonly encoded: Check; readonly decoded: Check }> = new Map([
  ["system", {
    encoded: schemaIssues(Prompt.SystemMessage),
    decoded: schemaIssues(Schema.toType(Prompt.SystemMessage))
  }],
  ["user", { encoded: schemaIssues(Prompt.UserMessage), decoded: schemaIssues(Schema.toType(Prompt.UserMessage)) }],
  [
    "assistant",
    { encoded: schemaIssues(Prompt.AssistantMessage), decoded: schemaIssues(Schema.toType(Prompt.AssistantMessage)) }
  ],
  ["tool", { encoded: schemaIssues(Prompt.ToolMessage), decoded: schemaIssues(Schema.toType(Prompt.ToolMessage)) }]
])

/**
 * The `effect/ai` format (`Prompt` messages, decoded or encoded): tool-call part `id` ↔ tool-result part
 * `id`, and approvals linked by `approvalId`.
 *
 * Links, as in the `aiSdk` format: a `tool-call` part issues a `call` (and carries the `ref` key `call:<id>`);
 * a `tool-result` part — in a tool message, or in the assistant message for provider-executed tools — is a
 * `result`; a `tool-approval-request` carries the `ref` keys `approval:<approvalId>` and
 * `call:<toolCallId>`, a `tool-approval-response` the key `approval:<approvalId>`.
 *
 * A result's text is its `modelOutput` text when present, else its `result` as JSON; `isFailure` marks
 * errors. Rewrites copy parts and messages with their `options` and `~effect/ai/Prompt/*` markers; parts
 * they add to a decoded message are decoded parts. `pinned: true` or `options.ctxkit.pinned` pins a
 * message; `options.ctxkit.summary` marks a summary; `options.ctxkit` is its metadata.
 *
 * @example
 * ```ts
 * import { type EffectAiMessage, formats, toolGroups } from "@ctxkit/core"
 * import { Prompt } from "effect/ai"
 *
 * const call: EffectAiMessage = Prompt.makeMessage("assistant", {
 *   content: [Prompt.makePart("tool-call", { id: "c1", name: "ls", params: {}, providerExecuted: false })]
 * })
 * const result: EffectAiMessage = Prompt.makeMessage("tool", {
 *   content: [Prompt.makePart("tool-result", { id: "c1", name: "ls", isFailure: false, result: "a.ts", providerExecuted: false })]
 * })
 * formats.effectAi.toolResults(result) // [{ callId: "c1", name: "ls", isError: false, text: "a.ts" }]
 * toolGroups([call, result], formats.effectAi).groups // [[0, 1]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const effectAi: MessageFormat<EffectAiMessage> = makeFormat<EffectAiMessage>({
  name: "effectAi",
  role: roleOf,
  links: (message): ReadonlyArray<Link> => {
    const parts = arr(message, "content")
    if (parts.length === 0) return empty
    let out: Array<Link> | undefined
    for (const part of parts) {
      switch (str(part, "type")) {
        case "tool-call": {
          const id = str(part, "id")
          if (id !== undefined) (out ??= []).push({ kind: "call", id }, { kind: "ref", key: `call:${id}` })
          break
        }
        case "tool-result": {
          const id = str(part, "id")
          if (id !== undefined) (out ??= []).push({ kind: "result", id })
          break
        }
        case "tool-approval-request": {
          const approvalId = str(part, "approvalId")
          const callId = str(part, "toolCallId")
          if (approvalId !== undefined) (out ??= []).push({ kind: "ref", key: `approval:${approvalId}` })
          if (callId !== undefined) (out ??= []).push({ kind: "ref", key: `call:${callId}` })
          break
        }
        case "tool-approval-response": {
          const approvalId = str(part, "approvalId")
          if (approvalId !== undefined) (out ??= []).push({ kind: "ref", key: `approval:${approvalId}` })
          break
        }
      }
    }
    return out ?? empty
  },
  toolCalls: readCalls,
  toolResults: readResults,
  isPinned: (message) => flag(message, "pinned") || flag(ctxkitOptions(message), "pinned"),
  isSummary: (message) => flag(ctxkitOptions(message), "summary"),
  id: (message) => str(message, "id") ?? str(ctxkitOptions(message), "id"),
  meta: ctxkitOptions,
  text: (message) => {
    const content = contentOf(message)
    if (!Array.isArray(content)) return typeof content === "string" ? content : ""
    const pieces: Array<string> = []
    for (const part of content) {
      switch (str(part, "type")) {
        case "text":
        case "reasoning":
          pieces.push(str(part, "text") ?? "")
          break
        case "tool-call": {
          const call = callOf(part)
          if (call !== undefined) pieces.push(call.name + " " + call.arguments)
          break
        }
        case "tool-result": {
          const result = resultOf(part)
          if (result !== undefined) pieces.push(result.text)
          break
        }
        case "tool-approval-response":
          pieces.push(str(part, "reason") ?? "")
          break
      }
    }
    return joinText(pieces)
  },
  withText: (message, text) => {
    const content = contentOf(message)
    const decoded = isDecoded(message)
    if (roleOf(message) === "tool") {
      // Tool messages hold no text parts: their text is their results'. The first result takes the text and
      // the others are emptied, so that `text(withText(m, t))` is `t` and every call keeps an answer.
      if (!Array.isArray(content) || !content.some((part) => str(part, "type") === "tool-result")) return message
      let first = true
      return withFields(message, {
        content: content.map((part) => {
          if (!isRecord(part) || part["type"] !== "tool-result") return part
          const next = rewriteResult(part, first ? text : "", decoded)
          first = false
          return next
        })
      })
    }
    return withFields(message, { content: replaceText(content, text, decoded) })
  },
  withResultText: (message, callId, text) => {
    const content = contentOf(message)
    if (!Array.isArray(content)) return message
    const decoded = isDecoded(message)
    let changed = false
    const next = content.map((part) => {
      if (!isRecord(part) || part["type"] !== "tool-result" || part["id"] !== callId) return part
      changed = true
      return rewriteResult(part, text, decoded)
    })
    return changed ? withFields(message, { content: next }) : message
  },
  withoutToolParts: (message, callIds) => {
    const content = contentOf(message)
    if (!Array.isArray(content)) return message
    const approvals = new Set<string>()
    for (const part of content) {
      if (str(part, "type") !== "tool-approval-request") continue
      const approvalId = str(part, "approvalId")
      if (approvalId !== undefined && callIds.has(str(part, "toolCallId") ?? "")) approvals.add(approvalId)
    }
    const remaining = content.filter((part) => {
      switch (str(part, "type")) {
        case "tool-call":
        case "tool-result":
          return !callIds.has(str(part, "id") ?? "")
        case "tool-approval-request":
          return !callIds.has(str(part, "toolCallId") ?? "")
        case "tool-approval-response":
          return !approvals.has(str(part, "approvalId") ?? "")
        default:
          return true
      }
    })
    if (remaining.length === content.length) return message
    if (remaining.every(isFiller)) return undefined
    return withFields(message, { content: remaining })
  },
  makeNote: (text, options) => {
    const ctxkit = {
      ...(options.kind === "summary" ? { summary: true } : {}),
      ...(options.id === undefined ? {} : { id: options.id })
    }
    return {
      [MESSAGE_MARKER]: MESSAGE_MARKER,
      role: options.role,
      content: options.role === "system" ? text : [textPart(true, text)],
      options: Object.keys(ctxkit).length === 0 ? {} : { ctxkit }
    }
  },
  makeToolResults: (issuer, calls, text, options) => {
    if (calls.length === 0) return empty
    const decoded = isDecoded(issuer)
    const content = calls.map((call): EffectAiPart => ({
      ...(decoded ? { [PART_MARKER]: PART_MARKER, options: {} } : {}),
      type: "tool-result",
      id: call.id,
      name: call.name,
      isFailure: options.isError,
      result: text,
      providerExecuted: false
    }))
    return [
      decoded ? { [MESSAGE_MARKER]: MESSAGE_MARKER, role: "tool", content, options: {} } : { role: "tool", content }
    ]
  },
  validate: (message, path) => {
    if (!isRecord(message)) return [issue(path, `expected a message object, got ${describe(message)}`)]
    const role = message["role"]
    const check = typeof role === "string" ? checks.get(role) : undefined
    if (check === undefined) {
      return [issue(`${path}.role`, `expected "system", "user", "assistant" or "tool", got ${describe(role)}`)]
    }
    return isDecoded(message) ? check.decoded(message, path) : check.encoded(message, path)
  }
})
