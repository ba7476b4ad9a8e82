/**
 * The lens over Vercel AI SDK `ModelMessage`s (v5 and later; v4's `args` and `result` are read too).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { ConversationIssue } from "../Errors.ts"
import { describe, issue, schemaIssues } from "../internal/issues.ts"
import {
  arr,
  contentText,
  empty,
  flag,
  isRecord,
  joinText,
  jsonText,
  rec,
  replaceContentText,
  str,
  withFields
} from "../internal/read.ts"
import {
  type Link,
  makeFormat,
  type MessageFormat,
  type Role,
  type ToolCallInfo,
  type ToolResultInfo
} from "../MessageFormat.ts"

/**
 * The `output` of an AI SDK tool result: `{ type: "text" | "error-text", value: string }`,
 * `{ type: "json" | "error-json", value }`, `{ type: "content", value: [...] }` or
 * `{ type: "execution-denied", reason? }`.
 *
 * @example
 * ```ts
 * import type { AiSdkToolOutput } from "@ctxkit/core"
 *
 * const output: AiSdkToolOutput = { type: "error-text", value: "ENOENT: no such file" }
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface AiSdkToolOutput {
  readonly type: string
  readonly value?: unknown
  readonly reason?: string | undefined
}

/**
 * One content part of an AI SDK message, structurally. `tool-call` reads v5's `input` or v4's `args`;
 * `tool-result` reads v5's `output` or v4's `result` and `isError`. Other fields travel untouched.
 *
 * @example
 * ```ts
 * import type { AiSdkPart } from "@ctxkit/core"
 *
 * const part: AiSdkPart = { type: "tool-call", toolCallId: "call_1", toolName: "ls", input: { dir: "." } }
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export type AiSdkPart =
  & { readonly providerOptions?: Readonly<Record<string, unknown>> | undefined }
  & (
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "image"; readonly image: unknown; readonly mediaType?: string | undefined }
    | {
      readonly type: "file"
      readonly data: unknown
      readonly mediaType: string
      readonly filename?: string | undefined
    }
    | { readonly type: "reasoning"; readonly text: string }
    | {
      readonly type: "tool-call"
      readonly toolCallId: string
      readonly toolName: string
      readonly input?: unknown
      readonly args?: unknown
      readonly providerExecuted?: boolean | undefined
    }
    | {
      readonly type: "tool-result"
      readonly toolCallId: string
      readonly toolName: string
      readonly output?: AiSdkToolOutput | undefined
      readonly result?: unknown
      readonly isError?: boolean | undefined
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
 * An AI SDK `ModelMessage`, structurally: `role` and `content` (a string, or parts), optional
 * `providerOptions`. `pinned: true` (a harness-side field) or `providerOptions.ctxkit.pinned` pins it;
 * `providerOptions.ctxkit.summary` marks a summary.
 *
 * @example
 * ```ts
 * import type { AiSdkMessage } from "@ctxkit/core"
 *
 * const messages: ReadonlyArray<AiSdkMessage> = [
 *   { role: "user", content: "list the files" },
 *   { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "ls", input: {} }] },
 *   {
 *     role: "tool",
 *     content: [{ type: "tool-result", toolCallId: "c1", toolName: "ls", output: { type: "text", value: "a.ts" } }]
 *   }
 * ]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface AiSdkMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string | ReadonlyArray<AiSdkPart>
  readonly providerOptions?: Readonly<Record<string, unknown>> | undefined
  readonly pinned?: boolean | undefined
}

const TEXT: ReadonlySet<string> = new Set(["text"])

const contentOf = (message: unknown): unknown => isRecord(message) ? message["content"] : undefined

const ctxkitOptions = (message: unknown): Readonly<Record<string, unknown>> | undefined =>
  rec(rec(message, "providerOptions"), "ctxkit")

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

/** The call's input: v5's `input`, else v4's `args`. */
const inputOf = (part: Readonly<Record<string, unknown>>): unknown =>
  part["input"] !== undefined ? part["input"] : part["args"]

const callOf = (part: unknown): ToolCallInfo | undefined => {
  if (str(part, "type") !== "tool-call") return undefined
  const id = str(part, "toolCallId")
  if (id === undefined || !isRecord(part)) return undefined
  return { id, name: str(part, "toolName") ?? "", arguments: jsonText(inputOf(part)) }
}

/** Error flag and text of a tool-result part's `output` (v5+) or `result` (v4). */
const outcome = (part: Readonly<Record<string, unknown>>): { readonly isError: boolean; readonly text: string } => {
  const output = part["output"]
  if (typeof output === "string") return { isError: false, text: output }
  if (!isRecord(output)) return { isError: flag(part, "isError"), text: jsonText(part["result"]) }
  switch (output["type"]) {
    case "text":
      return { isError: false, text: jsonText(output["value"]) }
    case "error-text":
      return { isError: true, text: jsonText(output["value"]) }
    case "json":
      return { isError: false, text: jsonText(output["value"]) }
    case "error-json":
      return { isError: true, text: jsonText(output["value"]) }
    case "content":
      return { isError: false, text: contentText(output["value"], TEXT) }
    case "execution-denied":
      return { isError: true, text: str(output, "reason") ?? "" }
    default:
      return { isError: false, text: jsonText(output["value"]) }
  }
}

const resultOf = (part: unknown): ToolResultInfo | undefined => {
  if (str(part, "type") !== "tool-result") return undefined
  const callId = str(part, "toolCallId")
  if (callId === undefined || !isRecord(part)) return undefined
  const { isError, text } = outcome(part)
  return { callId, name: str(part, "toolName"), isError, text }
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

/** A tool-result part answering with `text`, keeping its error-ness and its other fields. */
const rewriteResult = (part: Readonly<Record<string, unknown>>, text: string): Readonly<Record<string, unknown>> => {
  const output = part["output"]
  if (isRecord(output)) {
    const type = output["type"]
    // A denial stays a denial: only its reason is what the model reads.
    if (type === "execution-denied") return withFields(part, { output: withFields(output, { reason: text }) })
    const isError = type === "error-text" || type === "error-json"
    return withFields(part, { output: { type: isError ? "error-text" : "text", value: text } })
  }
  if (output === undefined && "result" in part) return withFields(part, { result: text })
  return withFields(part, { output: { type: "text", value: text } })
}

/** A part that carries nothing once its siblings are gone: empty text, or reasoning alone. */
const isFiller = (part: unknown): boolean => {
  const type = str(part, "type")
  return type === "reasoning" || (type === "text" && (str(part, "text") ?? "") === "")
}

const Text = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const Image = Schema.Struct({ type: Schema.Literal("image"), image: Schema.Unknown })
const File = Schema.Struct({
  type: Schema.Literal("file"),
  data: Schema.Unknown,
  mediaType: Schema.optional(Schema.String)
})
const Reasoning = Schema.Struct({ type: Schema.Literal("reasoning"), text: Schema.String })
const ToolCall = Schema.Struct({
  type: Schema.Literal("tool-call"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  providerExecuted: Schema.optional(Schema.Boolean)
})
// One member per `type`, so that a bad output is reported against its own type only.
const Output = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), value: Schema.String }),
  Schema.Struct({ type: Schema.Literal("error-text"), value: Schema.String }),
  Schema.Struct({ type: Schema.Literal("json"), value: Schema.Unknown }),
  Schema.Struct({ type: Schema.Literal("error-json"), value: Schema.Unknown }),
  Schema.Struct({ type: Schema.Literal("content"), value: Schema.Array(Schema.Struct({ type: Schema.String })) }),
  Schema.Struct({ type: Schema.Literal("execution-denied"), reason: Schema.optional(Schema.String) })
])
const ToolResult = Schema.Struct({
  type: Schema.Literal("tool-result"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  output: Schema.optional(Output)
})
const ApprovalRequest = Schema.Struct({
  type: Schema.Literal("tool-approval-request"),
  approvalId: Schema.String,
  toolCallId: Schema.String
})
const ApprovalResponse = Schema.Struct({
  type: Schema.Literal("tool-approval-response"),
  approvalId: Schema.String,
  approved: Schema.Boolean,
  reason: Schema.optional(Schema.String)
})

const validators: ReadonlyMap<string, (input: unknown, base: string) => ReadonlyArray<ConversationIssue>> = new Map([
  ["system", schemaIssues(Schema.Struct({ role: Schema.Literal("system"), content: Schema.String }))],
  [
    "user",
    schemaIssues(Schema.Struct({
      role: Schema.Literal("user"),
      content: Schema.Union([Schema.String, Schema.Array(Schema.Union([Text, Image, File]))])
    }))
  ],
  [
    "assistant",
    schemaIssues(Schema.Struct({
      role: Schema.Literal("assistant"),
      content: Schema.Union([
        Schema.String,
        Schema.Array(Schema.Union([Text, File, Reasoning, ToolCall, ToolResult, ApprovalRequest]))
      ])
    }))
  ],
  [
    "tool",
    schemaIssues(Schema.Struct({
      role: Schema.Literal("tool"),
      content: Schema.Array(Schema.Union([ToolResult, ApprovalResponse]))
    }))
  ]
])

/**
 * The Vercel AI SDK format (`ModelMessage`, v5+; v4's `args` and `result` are read too):
 * `tool-call.toolCallId` ↔ `tool-result.toolCallId`, and approvals linked by `approvalId`.
 *
 * Links: a `tool-call` part issues a `call` (and carries the `ref` key `call:<toolCallId>`); a
 * `tool-result` part, in a tool message or — for provider-executed tools — in the assistant message
 * itself, is a `result`; a `tool-approval-request` carries the `ref` keys `approval:<approvalId>` and
 * `call:<toolCallId>`, a `tool-approval-response` the key `approval:<approvalId>`. So a request, its call,
 * the response and the result form one group, and neither approval part counts as a call or a result.
 *
 * Results read `output` (`text`, `json`, `content`, their `error-*` forms, `execution-denied`) as text;
 * `error-*` and denials are errors. `pinned: true` or `providerOptions.ctxkit.pinned` pins a message;
 * `providerOptions.ctxkit.summary` marks a summary; `providerOptions.ctxkit` is its metadata.
 *
 * @example
 * ```ts
 * import { type AiSdkMessage, formats, toolGroups } from "@ctxkit/core"
 *
 * const call: AiSdkMessage = {
 *   role: "assistant",
 *   content: [{ type: "tool-call", toolCallId: "c1", toolName: "ls", input: {} }]
 * }
 * const result: AiSdkMessage = {
 *   role: "tool",
 *   content: [{ type: "tool-result", toolCallId: "c1", toolName: "ls", output: { type: "text", value: "a.ts" } }]
 * }
 * formats.aiSdk.toolResults(result) // [{ callId: "c1", name: "ls", isError: false, text: "a.ts" }]
 * toolGroups([call, result], formats.aiSdk).groups // [[0, 1]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const aiSdk: MessageFormat<AiSdkMessage> = makeFormat<AiSdkMessage>({
  name: "aiSdk",
  role: roleOf,
  links: (message): ReadonlyArray<Link> => {
    const parts = arr(message, "content")
    if (parts.length === 0) return empty
    let out: Array<Link> | undefined
    for (const part of parts) {
      switch (str(part, "type")) {
        case "tool-call": {
          const id = str(part, "toolCallId")
          if (id !== undefined) (out ??= []).push({ kind: "call", id }, { kind: "ref", key: `call:${id}` })
          break
        }
        case "tool-result": {
          const id = str(part, "toolCallId")
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
    if (roleOf(message) === "tool") {
      // Tool messages hold no text parts: their text is their results'. The first result takes the text and
      // the others are emptied, so that `text(withText(m, t))` is `t` and every call keeps an answer.
      if (!Array.isArray(content) || !content.some((part) => str(part, "type") === "tool-result")) return message
      let first = true
      return withFields(message, {
        content: content.map((part) => {
          if (!isRecord(part) || part["type"] !== "tool-result") return part
          const next = rewriteResult(part, first ? text : "")
          first = false
          return next
        })
      })
    }
    return withFields(message, { content: replaceContentText(content, text, TEXT, "text") })
  },
  withResultText: (message, callId, text) => {
    const content = contentOf(message)
    if (!Array.isArray(content)) return message
    let changed = false
    const next = content.map((part) => {
      if (!isRecord(part) || part["type"] !== "tool-result" || part["toolCallId"] !== callId) return part
      changed = true
      return rewriteResult(part, text)
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
          return !callIds.has(str(part, "toolCallId") ?? "")
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
      role: options.role,
      content: text,
      ...(Object.keys(ctxkit).length === 0 ? {} : { providerOptions: { ctxkit } })
    }
  },
  makeToolResults: (issuer, calls, text, options) => {
    if (calls.length === 0) return empty
    // Answer in the issuer's dialect: v4 calls (`args`, no `input`) get v4 results (`result`, `isError`).
    const v4 = arr(issuer, "content").some((part) =>
      str(part, "type") === "tool-call" && isRecord(part) && "args" in part && !("input" in part)
    )
    const content = calls.map((call): AiSdkPart =>
      v4
        ? { type: "tool-result", toolCallId: call.id, toolName: call.name, result: text, isError: options.isError }
        : {
          type: "tool-result",
          toolCallId: call.id,
          toolName: call.name,
          output: { type: options.isError ? "error-text" : "text", value: text }
        }
    )
    return [{ role: "tool", content }]
  },
  validate: (message, path) => {
    if (!isRecord(message)) return [issue(path, `expected a message object, got ${describe(message)}`)]
    const role = message["role"]
    const check = typeof role === "string" ? validators.get(role) : undefined
    if (check === undefined) {
      return [issue(`${path}.role`, `expected "system", "user", "assistant" or "tool", got ${describe(role)}`)]
    }
    return check(message, path)
  }
})
