/**
 * The lens over Vercel AI SDK `ModelMessage`s (v5 and later; v4's `args` and `result` are read too).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { attachment, measureData, measureUrl, mimeField } from "../internal/attachments.ts"
import { schemaIssues } from "../internal/issues.ts"
import { type Check, makePartsFormat, TEXT } from "../internal/partsLens.ts"
import { arr, contentText, flag, isRecord, jsonText, str, withFields } from "../internal/read.ts"
import type { AttachmentInfo, MessageFormat } from "../MessageFormat.ts"

/**
 * The `output` of an AI SDK tool result: `{ type: "text" | "error-text", value: string }`,
 * `{ type: "json" | "error-json", value }`, `{ type: "content", value: [...] }` or
 * `{ type: "execution-denied", reason? }`.
 *
 * @example
 * ```ts
 * import type { AiSdkToolOutput } from "@ctxkit/core/formats/AiSdk"
 *
 * const output: AiSdkToolOutput = { type: "error-text", value: "ENOENT: no such file" }
 * ```
 *
 * @category formats
 * @since 0.1.0
 * @inline
 */
export interface AiSdkToolOutput {
  readonly type: string
  readonly value?: unknown
  readonly reason?: string | undefined
}

/**
 * One content part of an AI SDK message, structurally. `tool-call` reads v5's `input` or v4's `args`;
 * `tool-result` reads v5's `output` or v4's `result` and `isError`. Other fields, and part types this version
 * does not know, travel untouched.
 *
 * @example
 * ```ts
 * import type { AiSdkPart } from "@ctxkit/core/formats/AiSdk"
 *
 * const part: AiSdkPart = { type: "tool-call", toolCallId: "call_1", toolName: "ls", input: { dir: "." } }
 * ```
 *
 * @category formats
 * @since 0.1.0
 * @inline
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
    // Parts of later AI SDK versions travel untouched (and count as no text), so any `ModelMessage` type fits.
    | { readonly type: string }
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

/** The call's input: v5's `input`, else v4's `args`. */
const inputOf = (part: Readonly<Record<string, unknown>>): unknown =>
  part["input"] !== undefined ? part["input"] : part["args"]

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

/** The declared media type of a part: v5's `mediaType`, else v4's `mimeType`. */
const mediaTypeOf = (part: unknown): string | undefined => mimeField(part, "mediaType") ?? mimeField(part, "mimeType")

/** An attachment whose data (base64, a `data:` URL, bytes or a URL) is at `part[key]`. */
const inline = (part: Readonly<Record<string, unknown>>, key: string): AttachmentInfo => {
  const data = measureData(part[key])
  return attachment([mediaTypeOf(part), data.mime], data.bytes, part)
}

/**
 * One item of a tool result's content: `media` (v5), `image-data` / `file-data` / `image-url` / `file-url`
 * / `image-file-id` / `file-id` (v6), or v4's `experimental_content` `image`.
 */
const outputItem = (item: unknown): AttachmentInfo | undefined => {
  if (!isRecord(item)) return undefined
  switch (item["type"]) {
    case "media":
    case "image-data":
    case "file-data":
    case "image":
      return inline(item, "data")
    case "image-url":
    case "file-url": {
      const url = measureUrl(item["url"])
      return attachment([mediaTypeOf(item), url.mime], url.bytes, item)
    }
    case "image-file-id":
    case "file-id":
      return attachment([mediaTypeOf(item)], 0, item)
    default:
      return undefined
  }
}

/** The images and files of a part: `image` and `file` parts, and the media a tool result carries. */
const attachments = (part: Readonly<Record<string, unknown>>, out: Array<AttachmentInfo>): void => {
  switch (part["type"]) {
    case "image":
      out.push(inline(part, "image"))
      return
    case "file":
      out.push(inline(part, "data"))
      return
    case "tool-result": {
      const output = part["output"]
      const items = isRecord(output) && output["type"] === "content" ? arr(output, "value") : []
      for (const item of [...items, ...arr(part, "experimental_content")]) {
        const found = outputItem(item)
        if (found !== undefined) out.push(found)
      }
      return
    }
  }
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

const validators: ReadonlyMap<string, Check> = new Map([
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
 * A message's own text is its text parts (a tool message's: its results' text); reasoning, calls and
 * files are not part of it. A user or system message whose text opens with a compaction checkpoint header
 * (`[Checkpoint of N earlier messages, generated by context compaction]`) or `[Summary of earlier context]`
 * is a summary too. Attachments are `image` and `file` parts and the media in tool results' content, typed
 * by `mediaType` (v4: `mimeType`) and measured from their base64 text or bytes (`0` for a URL).
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
export const aiSdk: MessageFormat<AiSdkMessage> = makePartsFormat<AiSdkMessage>({
  name: "aiSdk",
  idKey: "toolCallId",
  nameKey: "toolName",
  optionsKey: "providerOptions",
  callArguments: inputOf,
  outcome,
  rewriteResult,
  textPart: (text) => ({ type: "text", text }),
  note: (text, role, ctxkit) => ({
    role,
    content: text,
    ...(ctxkit === undefined ? {} : { providerOptions: { ctxkit } })
  }),
  resultMessage: (issuer, calls, text, isError) => {
    // Answer in the issuer's dialect: v4 calls (`args`, no `input`) get v4 results (`result`, `isError`).
    const v4 = arr(issuer, "content").some((part) =>
      str(part, "type") === "tool-call" && isRecord(part) && "args" in part && !("input" in part)
    )
    const content = calls.map((call): AiSdkPart =>
      v4
        ? { type: "tool-result", toolCallId: call.id, toolName: call.name, result: text, isError }
        : {
          type: "tool-result",
          toolCallId: call.id,
          toolName: call.name,
          output: { type: isError ? "error-text" : "text", value: text }
        }
    )
    return { role: "tool", content }
  },
  checks: validators,
  attachments
})
