/**
 * The plain-text transcript a summarizer reads: one labelled item per message part, each clipped, with no
 * attachment bytes and no opaque provider data.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import type { AttachmentInfo } from "@ctxkit/core/MessageFormat"
import { dual } from "effect/Function"
import { optionsFirst } from "./internal/dual.ts"
import { charLimit, clipItem } from "./internal/serializeText.ts"

/**
 * Default limit of one transcript item, in UTF-16 code units of its content (the label is not counted):
 * 4,000. A longer content keeps its first 4,000 code units and ends with `… [truncated]`.
 *
 * @example
 * ```ts
 * import { SUMMARY_ITEM_MAX_CHARS } from "@ctxkit/compaction/SerializeForSummary"
 *
 * SUMMARY_ITEM_MAX_CHARS // 4000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARY_ITEM_MAX_CHARS = 4_000

/**
 * Options of {@link serializeForSummary}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SerializeOptions<M> {
  /** The wire format of the messages. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /**
   * Limit of one item's content, in UTF-16 code units (default {@link SUMMARY_ITEM_MAX_CHARS}). A number ≥ 0
   * (fractions are floored, `Infinity` clips nothing); anything else means the default.
   */
  readonly maxItemChars?: number | undefined
}

const attachmentLine = (attachment: AttachmentInfo): string => {
  const { height, width } = attachment
  const size = typeof width === "number" && typeof height === "number" && width > 0 && height > 0 &&
      Number.isFinite(width) && Number.isFinite(height)
    ? ` ${width}x${height}`
    : ""
  const bytes = Number.isFinite(attachment.bytes) && attachment.bytes > 0 ? attachment.bytes : 0
  return `${attachment.mime}${size}, ${bytes} bytes`
}

/**
 * Serializes `messages` into the transcript a summarizer reads, one item per line (items joined with `\n`),
 * in message order. Each message gives, in this order:
 *
 * - a summary (an earlier checkpoint, `format.isSummary`): `PREVIOUS SUMMARY: <text>`;
 * - a user message: first `TOOL RESULT …` items for the tool results it carries (an Anthropic user message may
 *   answer calls and speak at once), then `USER: <text>` — always for a message without results, only when its
 *   text is not empty otherwise;
 * - an assistant message: `ASSISTANT: <text>` when its text is not empty, then `TOOL CALL <id> <name>: <args>`
 *   per call, then `TOOL RESULT …` per result it carries itself (provider-executed tools);
 * - a tool message: `TOOL RESULT <callId>: <text>` per result, `TOOL RESULT <callId> (error): <text>` for an
 *   error;
 * - a system message: nothing when it is protected (the system prompt stays in the new history, so
 *   summarizing it would only repeat it), otherwise — memory, lorebook, persona or plugin blocks, which
 *   compaction may replace — `SYSTEM: <text>` when its text is not empty;
 * - then, for every message, one `ATTACHMENT: <mime>[ <w>x<h>], <bytes> bytes` per image or file (the pixel
 *   size only when both sides are known), right after the message's speaker item. Never the bytes.
 *
 * Texts are the message's own words (`format.ownText`): reasoning, encrypted content and other opaque provider
 * data never appear. Each item's content (what follows the label) is clipped to `maxItemChars` UTF-16 code
 * units followed by `… [truncated]`, one code unit earlier when the cut would split a surrogate pair. Line
 * breaks inside a text are kept as they are: a summarizer reads code and logs better with their lines, and
 * every item still starts on its own line with its label. Total: never throws, never mutates its input.
 *
 * @example
 * ```ts
 * import { serializeForSummary } from "@ctxkit/compaction"
 * import { formats, type Message } from "@ctxkit/core"
 *
 * const history: ReadonlyArray<Message> = [
 *   { role: "user", content: "Why does the build fail?" },
 *   { role: "assistant", content: "Let me look.", toolCalls: [{ id: "c1", name: "run", arguments: "{\"cmd\":\"npm run build\"}" }] },
 *   { role: "tool", toolCallId: "c1", isError: true, content: "TS2304: Cannot find name 'foo'." }
 * ]
 * const transcript = serializeForSummary(history, { format: formats.canonical })
 * transcript.split("\n")
 * // [
 * //   "USER: Why does the build fail?",
 * //   "ASSISTANT: Let me look.",
 * //   "TOOL CALL c1 run: {\"cmd\":\"npm run build\"}",
 * //   "TOOL RESULT c1 (error): TS2304: Cannot find name 'foo'."
 * // ]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const serializeForSummary: {
  <M>(options: SerializeOptions<M>): (messages: ReadonlyArray<M>) => string
  <M>(messages: ReadonlyArray<M>, options?: SerializeOptions<NoInfer<M>>): string
} = dual(optionsFirst, <M>(messages: ReadonlyArray<M>, options: SerializeOptions<NoInfer<M>> = {}): string => {
  const format = options.format ?? (formats.auto as MessageFormat<M>)
  const max = charLimit(options.maxItemChars, SUMMARY_ITEM_MAX_CHARS)
  const lines: Array<string> = []
  const item = (label: string, content: string): void => {
    lines.push(`${label}: ${clipItem(content, max)}`)
  }
  const results = (message: M): number => {
    const found = format.toolResults(message)
    for (const result of found) {
      item(`TOOL RESULT ${result.callId}${result.isError ? " (error)" : ""}`, result.text)
    }
    return found.length
  }
  const attachments = (message: M): void => {
    for (const attachment of format.attachments(message)) item("ATTACHMENT", attachmentLine(attachment))
  }
  for (const message of messages) {
    if (format.isSummary(message)) {
      item("PREVIOUS SUMMARY", format.ownText(message))
      attachments(message)
      continue
    }
    switch (format.role(message)) {
      case "system": {
        if (format.isProtected(message)) break
        const text = format.ownText(message)
        if (text.length > 0) item("SYSTEM", text)
        attachments(message)
        break
      }
      case "user": {
        const answered = results(message)
        const text = format.ownText(message)
        if (answered === 0 || text.length > 0) item("USER", text)
        attachments(message)
        break
      }
      case "assistant": {
        const text = format.ownText(message)
        if (text.length > 0) item("ASSISTANT", text)
        attachments(message)
        for (const call of format.toolCalls(message)) item(`TOOL CALL ${call.id} ${call.name}`, call.arguments)
        results(message)
        break
      }
      case "tool": {
        results(message)
        attachments(message)
        break
      }
    }
  }
  return lines.join("\n")
})
