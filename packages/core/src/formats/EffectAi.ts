/**
 * The lens over `effect/ai` `Prompt` messages, decoded (`Prompt.Message`, content parts carrying the
 * `"~effect/ai/Prompt/Part"` marker) or encoded (`Prompt.MessageEncoded`, where content may be a string).
 *
 * @since 0.1.0
 */
import * as Prompt from "effect/ai/Prompt"
import * as Schema from "effect/Schema"
import { attachment, measureData, mimeField } from "../internal/attachments.ts"
import { schemaIssues } from "../internal/issues.ts"
import { type Check, makePartsFormat, TEXT } from "../internal/partsLens.ts"
import { arr, contentText, flag, isRecord, jsonText, withFields } from "../internal/read.ts"
import type { AttachmentInfo, MessageFormat } from "../MessageFormat.ts"

/**
 * One content part of an `effect/ai` prompt message, structurally: `text`, `file`, `reasoning`,
 * `tool-call` (`id`, `name`, `params`), `tool-result` (`id`, `name`, `isFailure`, `result`,
 * `modelOutput?`), `tool-approval-request` (`approvalId`, `toolCallId`) or `tool-approval-response`
 * (`approvalId`, `approved`). `Prompt.Part` and `Prompt.PartEncoded` values are assignable to it.
 *
 * @example
 * ```ts
 * import type { EffectAiPart } from "@ctxkit/core/formats/EffectAi"
 *
 * const part: EffectAiPart = { type: "tool-call", id: "call_1", name: "ls", params: { dir: "." } }
 * ```
 *
 * @category formats
 * @since 0.1.0
 * @inline
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

/** Decoded messages carry the message marker; their new parts must carry the part marker. */
const isDecoded = (message: unknown): boolean => isRecord(message) && message[MESSAGE_MARKER] === MESSAGE_MARKER

const textPart = (decoded: boolean, text: string): EffectAiPart =>
  decoded ? { [PART_MARKER]: PART_MARKER, type: "text", text, options: {} } : { type: "text", text }

/** What the model reads of a result: its `modelOutput` text when it has one, else its `result` as JSON. */
const resultText = (part: Readonly<Record<string, unknown>>): string => {
  const modelOutput = part["modelOutput"]
  if (Array.isArray(modelOutput)) return contentText(modelOutput, TEXT)
  return jsonText(part["result"])
}

/** A tool-result part answering with `text`; a `modelOutput` becomes that one text part. */
const rewriteResult = (part: Readonly<Record<string, unknown>>, text: string, message: unknown): unknown =>
  withFields(part, {
    result: text,
    modelOutput: Array.isArray(part["modelOutput"]) ? [textPart(isDecoded(message), text)] : undefined
  })

/** A file part: its `mediaType`, and its data measured (base64, a `data:` URL, bytes, or a URL). */
const fileAttachment = (part: unknown): AttachmentInfo | undefined => {
  if (!isRecord(part) || part["type"] !== "file") return undefined
  const data = measureData(part["data"])
  return attachment([mimeField(part, "mediaType"), data.mime], data.bytes, part)
}

/** The files of a part: a file part, or the file parts of a tool result's `modelOutput`. */
const attachments = (part: Readonly<Record<string, unknown>>, out: Array<AttachmentInfo>): void => {
  if (part["type"] === "tool-result") {
    for (const inner of arr(part, "modelOutput")) {
      const found = fileAttachment(inner)
      if (found !== undefined) out.push(found)
    }
    return
  }
  const found = fileAttachment(part)
  if (found !== undefined) out.push(found)
}

// Encoded messages are checked against the codec's encoded side, decoded ones against its type side (a
// decoded file part's Uint8Array data would not decode again).
const bothForms = <S extends Schema.Top>(schema: S): Check => {
  const encoded = schemaIssues(schema)
  const decoded = schemaIssues(Schema.toType(schema))
  return (input, base) => isDecoded(input) ? decoded(input, base) : encoded(input, base)
}

const checks: ReadonlyMap<string, Check> = new Map([
  ["system", bothForms(Prompt.SystemMessage)],
  ["user", bothForms(Prompt.UserMessage)],
  ["assistant", bothForms(Prompt.AssistantMessage)],
  ["tool", bothForms(Prompt.ToolMessage)]
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
 * A message's own text is its text parts (a tool message's: its results' text); reasoning, calls and
 * files are not part of it. A user or system message whose text opens with a compaction checkpoint header
 * (`[Checkpoint of N earlier messages, generated by context compaction]`) or `[Summary of earlier context]`
 * is a summary too. Attachments are `file` parts, also in a tool result's `modelOutput`, typed by
 * `mediaType` and measured from their data (base64, bytes, or the encoded `{ _tag: "Uint8Array", base64 }`;
 * `0` for a URL).
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
export const effectAi: MessageFormat<EffectAiMessage> = makePartsFormat<EffectAiMessage>({
  name: "effectAi",
  idKey: "id",
  nameKey: "name",
  optionsKey: "options",
  callArguments: (part) => part["params"],
  outcome: (part) => ({ isError: flag(part, "isFailure"), text: resultText(part) }),
  rewriteResult,
  textPart: (text, message) => textPart(isDecoded(message), text),
  note: (text, role, ctxkit) => ({
    [MESSAGE_MARKER]: MESSAGE_MARKER,
    role,
    content: role === "system" ? text : [textPart(true, text)],
    options: ctxkit === undefined ? {} : { ctxkit }
  }),
  resultMessage: (issuer, calls, text, isError) => {
    const decoded = isDecoded(issuer)
    const content = calls.map((call): EffectAiPart => ({
      ...(decoded ? { [PART_MARKER]: PART_MARKER, options: {} } : {}),
      type: "tool-result",
      id: call.id,
      name: call.name,
      isFailure: isError,
      result: text,
      providerExecuted: false
    }))
    return decoded
      ? { [MESSAGE_MARKER]: MESSAGE_MARKER, role: "tool", content, options: {} }
      : { role: "tool", content }
  },
  checks,
  attachments
})
