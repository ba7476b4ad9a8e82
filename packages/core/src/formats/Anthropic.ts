/**
 * The lens over Anthropic Messages API messages: content blocks with client tools (`tool_use` ↔
 * `tool_result`), server tools (`server_tool_use` ↔ `*_tool_result`), MCP tools (`mcp_tool_use` ↔
 * `mcp_tool_result`) and thinking blocks.
 *
 * @since 0.1.0
 */
import { describeValue } from "../Describe.ts"
import type { ConversationIssue } from "../Errors.ts"
import { attachment, measureBase64, measureUrl, mimeField, utf8Bytes } from "../internal/attachments.ts"
import { issue } from "../internal/issues.ts"
import { arr, empty, flag, isRecord, joinText, jsonText, rec, str, withFields } from "../internal/read.ts"
import { sourceOf } from "../internal/source.ts"
import { firstText, isSummaryText } from "../internal/summaryText.ts"
import {
  type AttachmentInfo,
  type Link,
  makeFormat,
  type MessageFormat,
  type Role,
  type ToolCallInfo,
  type ToolResultInfo
} from "../MessageFormat.ts"

/**
 * One Messages API message, structurally: `role` (`user` or `assistant`; `system` too, as harnesses
 * store the system prompt next to the messages before lifting it into the request's `system` field) and
 * `content`, a string or a list of blocks: `text`, `image`, `document`, `thinking`, `redacted_thinking`,
 * `tool_use` / `server_tool_use` / `mcp_tool_use` (`id`, `name`, `input`), `tool_result` /
 * `mcp_tool_result` / `*_tool_result` (`tool_use_id`, `content`, `is_error`). Other fields travel
 * untouched.
 *
 * @example
 * ```ts
 * import type { AnthropicMessage } from "@ctxkit/core"
 *
 * const messages: ReadonlyArray<AnthropicMessage> = [
 *   { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "grep", input: { pattern: "TODO" } }] },
 *   { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "src/a.ts:3: TODO" }] }
 * ]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface AnthropicMessage {
  readonly role: string
  readonly content?: unknown
  readonly [key: string]: unknown
}

const ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system"])
const CALLS: ReadonlySet<string> = new Set(["tool_use", "server_tool_use", "mcp_tool_use"])
const THINKING: ReadonlySet<string> = new Set(["thinking", "redacted_thinking"])
/** Result blocks whose content is text or text blocks (server tools' results are structured). */
const TEXT_RESULTS: ReadonlySet<string> = new Set(["tool_result", "mcp_tool_result"])
/** Keys of a structured result whose strings the model reads. */
const RESULT_TEXT_KEYS: ReadonlyArray<string> = ["text", "title", "url", "stdout", "stderr", "content"]
const MAX_DEPTH = 6
const TEXT: ReadonlySet<string> = new Set(["text"])

const typeOf = (block: unknown): string => str(block, "type") ?? ""

const isCall = (block: unknown): boolean => CALLS.has(typeOf(block))

const isResult = (block: unknown): boolean => {
  const type = typeOf(block)
  return type === "tool_result" || type.endsWith("_tool_result")
}

const blocksOf = (message: unknown): ReadonlyArray<unknown> => arr(message, "content")

const contentOf = (message: unknown): unknown => isRecord(message) ? message["content"] : undefined

/** Every string under the text-bearing keys of a result's content, depth-first, in order. */
const resultText = (content: unknown, depth = 0): string => {
  if (typeof content === "string") return content
  if (depth >= MAX_DEPTH) return ""
  if (Array.isArray(content)) return joinText(content.map((piece) => resultText(piece, depth + 1)))
  if (!isRecord(content)) return ""
  const pieces: Array<string> = []
  for (const key of RESULT_TEXT_KEYS) {
    const value = content[key]
    if (value !== undefined) pieces.push(resultText(value, depth + 1))
  }
  return joinText(pieces)
}

/** A server tool's result content reporting failure: `{ type: "…_error", error_code }`. */
const isErrorContent = (content: unknown): boolean => typeOf(content).endsWith("_error")

const callOf = (block: unknown): ToolCallInfo | undefined => {
  const id = str(block, "id")
  if (id === undefined) return undefined
  return { id, name: str(block, "name") ?? "", arguments: jsonText(isRecord(block) ? block["input"] : undefined) }
}

const readCalls = (message: unknown): ReadonlyArray<ToolCallInfo> => {
  const blocks = blocksOf(message)
  if (blocks.length === 0) return empty
  const out: Array<ToolCallInfo> = []
  for (const block of blocks) {
    if (!isCall(block)) continue
    const call = callOf(block)
    if (call !== undefined) out.push(call)
  }
  return out
}

const allResults = (blocks: ReadonlyArray<unknown>): boolean => blocks.length > 0 && blocks.every(isResult)

const roleOf = (message: unknown): Role => {
  switch (str(message, "role")) {
    case "assistant":
      return "assistant"
    case "system":
      return "system"
    default:
      return allResults(blocksOf(message)) ? "tool" : "user"
  }
}

const blockText = (block: unknown): string => {
  const type = typeOf(block)
  if (type === "text") return str(block, "text") ?? ""
  if (type === "thinking") return str(block, "thinking") ?? ""
  if (CALLS.has(type)) {
    const call = callOf(block)
    return call === undefined ? "" : call.name + " " + call.arguments
  }
  if (isResult(block)) return resultText(isRecord(block) ? block["content"] : undefined)
  if (type === "document") {
    const source = rec(block, "source")
    return str(source, "type") === "text" ? str(source, "data") ?? "" : ""
  }
  return ""
}

/**
 * Content whose text blocks collapse into one carrying `text` (none when `text` is empty), placed where
 * the first text block was, or else after the leading thinking and result blocks (the API wants them
 * first). Every other block stays in place.
 */
const rewriteText = (blocks: ReadonlyArray<unknown>, text: string): unknown => {
  const out: Array<unknown> = []
  let placed = false
  let insertAt = 0
  let leading = true
  for (const block of blocks) {
    const type = typeOf(block)
    if (type === "text") {
      if (!placed && text.length > 0) out.push(withFields(block, { text }))
      placed = true
      continue
    }
    if (leading && (THINKING.has(type) || isResult(block))) insertAt = out.length + 1
    else leading = false
    out.push(block)
  }
  if (!placed && text.length > 0) out.splice(insertAt, 0, { type: "text", text })
  return out.length === 0 ? text : out
}

/** A result block whose content now reads `text`, or the block itself when its content is structured. */
const withBlockText = (block: unknown, text: string): unknown => {
  if (!TEXT_RESULTS.has(typeOf(block)) || !isRecord(block)) return block
  const content = block["content"]
  return withFields(block, { content: Array.isArray(content) ? rewriteText(content, text) : text })
}

/**
 * The first result block with text content takes `text`, the other ones are emptied: the message's own text
 * is `text`. Server tools' structured results cannot carry text and stay as they are.
 */
const rewriteResults = (blocks: ReadonlyArray<unknown>, text: string): ReadonlyArray<unknown> => {
  let first = true
  return blocks.map((block) => {
    if (!TEXT_RESULTS.has(typeOf(block))) return block
    const next = withBlockText(block, first ? text : "")
    first = false
    return next
  })
}

/** The text blocks of a list of blocks, joined. */
const textBlocks = (blocks: ReadonlyArray<unknown>): string => {
  const pieces: Array<string> = []
  for (const block of blocks) if (typeOf(block) === "text") pieces.push(str(block, "text") ?? "")
  return joinText(pieces)
}

/**
 * The text that `rewriteResults` rewrites: of each text-result block, its string content or its text blocks
 * (search results and images inside stay where they are, so they are not part of it).
 */
const textResultsText = (blocks: ReadonlyArray<unknown>): string => {
  const pieces: Array<string> = []
  for (const block of blocks) {
    if (!TEXT_RESULTS.has(typeOf(block))) continue
    const content = isRecord(block) ? block["content"] : undefined
    pieces.push(Array.isArray(content) ? textBlocks(content) : resultText(content))
  }
  return joinText(pieces)
}

/** The size of a document whose source is text or text blocks. */
const textSourceBytes = (source: unknown): number => {
  const data = isRecord(source) ? source["data"] ?? source["content"] : undefined
  if (typeof data === "string") return utf8Bytes(data)
  return Array.isArray(data) ? utf8Bytes(textBlocks(data)) : 0
}

/** An `image` or `document` block, from its `source`: base64, URL, text, content blocks or a file id. */
const blockAttachment = (block: unknown): AttachmentInfo | undefined => {
  const type = typeOf(block)
  if (type !== "image" && type !== "document") return undefined
  const source = rec(block, "source")
  const declared = mimeField(source, "media_type")
  switch (str(source, "type")) {
    case "base64": {
      const data = measureBase64(str(source, "data"))
      return attachment([declared, data.mime], data.bytes, block)
    }
    case "url": {
      const url = measureUrl(str(source, "url"))
      // A URL document is a PDF: the API takes no other kind by URL.
      return attachment([declared, url.mime, type === "document" ? "application/pdf" : undefined], url.bytes, block)
    }
    case "text":
    case "content":
      return attachment([declared, "text/plain"], textSourceBytes(source), block)
    default:
      return attachment([declared], 0, block)
  }
}

/** The images and documents of a list of blocks, and of the text-result blocks' content among them. */
const blocksAttachments = (blocks: ReadonlyArray<unknown>): ReadonlyArray<AttachmentInfo> => {
  let out: Array<AttachmentInfo> | undefined
  for (const block of blocks) {
    const found = blockAttachment(block)
    if (found !== undefined) (out ??= []).push(found)
    else if (TEXT_RESULTS.has(typeOf(block))) {
      for (const inner of arr(block, "content")) {
        const nested = blockAttachment(inner)
        if (nested !== undefined) (out ??= []).push(nested)
      }
    }
  }
  return out ?? empty
}

const validateMessage = (message: unknown, path: string): ReadonlyArray<ConversationIssue> => {
  if (!isRecord(message)) return [issue(path, `expected a message object, got ${describeValue(message)}`)]
  const issues: Array<ConversationIssue> = []
  const role = message["role"]
  if (typeof role !== "string" || !ROLES.has(role)) {
    issues.push(issue(`${path}.role`, `expected "user", "assistant" or "system", got ${describeValue(role)}`))
  }
  const content = message["content"]
  if (typeof content === "string") return issues
  if (!Array.isArray(content)) {
    issues.push(issue(`${path}.content`, `expected string or an array of blocks, got ${describeValue(content)}`))
    return issues
  }
  content.forEach((block, i) => {
    const at = `${path}.content[${i}]`
    if (!isRecord(block)) {
      issues.push(issue(at, `expected a content block object, got ${describeValue(block)}`))
      return
    }
    const need = (key: string): void => {
      if (typeof block[key] !== "string") {
        issues.push(issue(`${at}.${key}`, `expected string, got ${describeValue(block[key])}`))
      }
    }
    const type = block["type"]
    if (typeof type !== "string") {
      issues.push(issue(`${at}.type`, `expected string, got ${describeValue(type)}`))
      return
    }
    if (type === "text") need("text")
    else if (type === "thinking") need("thinking")
    else if (CALLS.has(type)) {
      need("id")
      need("name")
    } else if (isResult(block)) {
      need("tool_use_id")
      const body = block["content"]
      if (TEXT_RESULTS.has(type) && body !== undefined && typeof body !== "string" && !Array.isArray(body)) {
        issues.push(issue(`${at}.content`, `expected string or an array of blocks, got ${describeValue(body)}`))
      }
    }
  })
  return issues
}

/**
 * The Messages API format: `tool_use.id` ↔ `tool_result.tool_use_id` (and `server_tool_use` ↔ its
 * `*_tool_result`, `mcp_tool_use` ↔ `mcp_tool_result`); one user message may answer several calls. A user
 * message made only of result blocks is a `tool` message; a `system` message (a harness's system prompt,
 * which the API takes outside `messages`) is a protected system message. Tool call `arguments` are the
 * JSON text of `input`; thinking text counts as text, redacted thinking does not. `pinned: true` or
 * `meta.pinned` pins a message. The API has no approvals.
 *
 * A message's own text is its text blocks, or for a results-only message its text results' content;
 * thinking, calls and documents are not part of it. Attachments are `image` and `document` blocks, also
 * inside tool results, measured from their base64 or text source (`0` bytes for a URL or a file id).
 * Messages carry no summary marker: a user or system message is a summary when its text opens with a
 * compaction checkpoint header (`[Checkpoint of N earlier messages, generated by context compaction]`) or
 * `[Summary of earlier context]`.
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "user", content: "Compare the two configs." },
 *   {
 *     role: "assistant",
 *     content: [
 *       { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.toml" } },
 *       { type: "tool_use", id: "toolu_b", name: "read", input: { path: "b.toml" } }
 *     ]
 *   },
 *   {
 *     role: "user",
 *     content: [
 *       { type: "tool_result", tool_use_id: "toolu_a", content: "port = 80" },
 *       { type: "tool_result", tool_use_id: "toolu_b", content: "port = 8080" }
 *     ]
 *   }
 * ]
 * formats.anthropic.role(messages[2]!) // "tool"
 * toolGroups(messages, formats.anthropic).groups // [[0], [1, 2]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const anthropic: MessageFormat<AnthropicMessage> = makeFormat<AnthropicMessage>({
  name: "anthropic",
  role: roleOf,
  links: (message): ReadonlyArray<Link> => {
    const blocks = blocksOf(message)
    if (blocks.length === 0) return empty
    const out: Array<Link> = []
    for (const block of blocks) {
      if (isCall(block)) {
        const id = str(block, "id")
        if (id !== undefined) out.push({ kind: "call", id })
      } else if (isResult(block)) {
        const id = str(block, "tool_use_id")
        if (id !== undefined) out.push({ kind: "result", id })
      }
    }
    return out
  },
  toolCalls: readCalls,
  toolResults: (message) => {
    const blocks = blocksOf(message)
    if (blocks.length === 0) return empty
    const out: Array<ToolResultInfo> = []
    for (const block of blocks) {
      if (!isResult(block)) continue
      const callId = str(block, "tool_use_id")
      if (callId === undefined) continue
      const content = isRecord(block) ? block["content"] : undefined
      out.push({ callId, isError: flag(block, "is_error") || isErrorContent(content), text: resultText(content) })
    }
    return out
  },
  isPinned: (message) => flag(message, "pinned") || flag(rec(message, "meta"), "pinned"),
  source: (message) => sourceOf(message, rec(message, "meta")),
  id: (message) => str(message, "id"),
  meta: (message) => rec(message, "meta"),
  text: (message) => {
    const content = contentOf(message)
    if (typeof content === "string") return content
    return joinText(blocksOf(message).map(blockText))
  },
  ownText: (message) => {
    const content = contentOf(message)
    if (typeof content === "string") return content
    const blocks = blocksOf(message)
    return allResults(blocks) ? textResultsText(blocks) : textBlocks(blocks)
  },
  attachments: (message) => blocksAttachments(blocksOf(message)),
  isSummary: (message) => {
    // A message whose first text is a header holds a text block, so it is never a results-only (`tool`) message.
    const role = str(message, "role")
    return role !== "assistant" && role !== undefined && ROLES.has(role) &&
      isSummaryText(firstText(contentOf(message), TEXT))
  },
  withText: (message, text) => {
    if (!isRecord(message)) return message
    const blocks = blocksOf(message)
    if (!Array.isArray(contentOf(message))) return withFields(message, { content: text })
    if (allResults(blocks)) return withFields(message, { content: rewriteResults(blocks, text) })
    return withFields(message, { content: rewriteText(blocks, text) })
  },
  withResultText: (message, callId, text) => {
    const blocks = blocksOf(message)
    const content: Array<unknown> = []
    let changed = false
    for (const block of blocks) {
      const next = isResult(block) && str(block, "tool_use_id") === callId ? withBlockText(block, text) : block
      changed ||= next !== block
      content.push(next)
    }
    return changed ? withFields(message, { content }) : message
  },
  withoutToolParts: (message, callIds) => {
    const blocks = blocksOf(message)
    if (blocks.length === 0) return message
    const remaining = blocks.filter((block) =>
      !(isCall(block) && callIds.has(str(block, "id") ?? "")) &&
      !(isResult(block) && callIds.has(str(block, "tool_use_id") ?? ""))
    )
    if (remaining.length === blocks.length) return message
    // Thinking alone is not a turn: it only explains the calls that were removed.
    if (remaining.every((block) => THINKING.has(typeOf(block)))) return undefined
    return withFields(message, { content: remaining })
  },
  withoutReasoning: (message) => {
    const blocks = blocksOf(message)
    const remaining = blocks.filter((block) => !THINKING.has(typeOf(block)))
    if (remaining.length === blocks.length) return message
    if (remaining.every((block) => typeOf(block) === "text" && (str(block, "text") ?? "") === "")) return undefined
    return withFields(message, { content: remaining })
  },
  makeNote: (text, options) => ({
    role: options.role,
    content: text,
    ...(options.id === undefined ? {} : { id: options.id })
  }),
  makeToolResults: (_issuer, calls, text, options) =>
    calls.length === 0 ? [] : [{
      role: "user",
      content: calls.map((call) => ({
        type: "tool_result",
        tool_use_id: call.id,
        content: text,
        ...(options.isError ? { is_error: true } : {})
      }))
    }],
  validate: validateMessage
})
