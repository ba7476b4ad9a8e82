/**
 * The lens over LangChain messages, read structurally (no dependency on `@langchain/core`): live or plain
 * `BaseMessage` objects, their `JSON.stringify` form (`{ lc: 1, type: "constructor", id, kwargs }`) and
 * `StoredMessage`s (`{ type, data }`).
 *
 * @since 0.1.0
 */
import { describeValue } from "../Describe.ts"
import type { ConversationIssue } from "../Errors.ts"
import { attachment, measureBase64, measureData, measureUrl, mimeField, utf8Bytes } from "../internal/attachments.ts"
import { issue } from "../internal/issues.ts"
import { LANGCHAIN_TYPES } from "../internal/langchainTypes.ts"
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
 * A tool call of an `AIMessage`, as LangChain records it in `tool_calls`.
 *
 * @example
 * ```ts
 * import type { LangChainToolCall } from "@ctxkit/core/formats/LangChain"
 *
 * const call: LangChainToolCall = { id: "call_1", name: "read_file", args: { path: "a.ts" }, type: "tool_call" }
 * ```
 *
 * @category formats
 * @since 0.1.0
 * @inline
 */
export interface LangChainToolCall {
  readonly id?: string | undefined
  readonly name: string
  readonly args: unknown
  readonly type?: "tool_call" | undefined
}

/**
 * The fields of a LangChain message that ctxkit reads: `content` (a string or content blocks),
 * `tool_calls` (AI messages), `tool_call_id`, `status` and `name` (tool messages), `id`, and
 * `additional_kwargs` (whose OpenAI-shaped `tool_calls` are read when `tool_calls` is empty, and whose
 * `ctxkit` record holds ctxkit's own flags). Other fields travel untouched.
 *
 * @example
 * ```ts
 * import type { LangChainFields } from "@ctxkit/core/formats/LangChain"
 *
 * const fields: LangChainFields = { content: "a.ts", tool_call_id: "call_1", name: "ls", status: "success" }
 * ```
 *
 * @category formats
 * @since 0.1.0
 * @inline
 */
export interface LangChainFields {
  readonly content?: string | ReadonlyArray<unknown> | undefined
  readonly tool_calls?: ReadonlyArray<LangChainToolCall> | undefined
  readonly tool_call_id?: string | undefined
  readonly status?: string | undefined
  readonly name?: string | undefined
  readonly id?: string | undefined
  readonly role?: string | undefined
  readonly additional_kwargs?: Readonly<Record<string, unknown>> | undefined
  readonly response_metadata?: Readonly<Record<string, unknown>> | undefined
  readonly invalid_tool_calls?: ReadonlyArray<unknown> | undefined
  readonly usage_metadata?: Readonly<Record<string, unknown>> | undefined
  readonly artifact?: unknown
}

/**
 * A LangChain message in any of its three shapes:
 *
 * - a live or plain message: `{ type: "human" | "ai" | "system" | "tool" | "function" | "generic" |
 *   "developer", content, … }` (a `BaseMessage` instance without an own `type` is told by its class name);
 * - its `JSON.stringify` form: `{ lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs: { … } }`;
 * - a `StoredMessage`: `{ type: "ai", data: { content, … } }`.
 *
 * `pinned: true` on the message (or its fields), or `additional_kwargs.ctxkit.pinned`, pins it.
 *
 * @example
 * ```ts
 * import type { LangChainMessage } from "@ctxkit/core"
 *
 * const messages: ReadonlyArray<LangChainMessage> = [
 *   { type: "human", content: "what is in src?" },
 *   { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "", tool_calls: [{ id: "c1", name: "ls", args: { dir: "src" } }] } },
 *   { type: "tool", data: { content: "index.ts", tool_call_id: "c1", name: "ls" } }
 * ]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export type LangChainMessage =
  | LangChainFields & { readonly type?: string | undefined; readonly pinned?: boolean | undefined }
  | {
    readonly lc: number
    readonly type: "constructor"
    readonly id: ReadonlyArray<string>
    readonly kwargs: LangChainFields
    readonly pinned?: boolean | undefined
  }
  | { readonly type: string; readonly data: LangChainFields; readonly pinned?: boolean | undefined }

type Shape = "plain" | "serialized" | "stored"

interface View {
  readonly shape: Shape
  /** Where the message's fields live: the message itself, `kwargs` or `data`. */
  readonly body: Readonly<Record<string, unknown>> | undefined
  /** The LangChain message type (`human`, `ai`, …), when it can be told. */
  readonly kind: string | undefined
}

const TEXT: ReadonlySet<string> = new Set(["text"])

const CLASSES: ReadonlyMap<string, string> = new Map([
  ["HumanMessage", "human"],
  ["AIMessage", "ai"],
  ["SystemMessage", "system"],
  ["ToolMessage", "tool"],
  ["ChatMessage", "generic"],
  ["FunctionMessage", "function"],
  ["RemoveMessage", "remove"]
])

/** The message type of a LangChain class name (`AIMessageChunk` → `ai`). */
const kindOfClass = (name: unknown): string | undefined => {
  if (typeof name !== "string") return undefined
  return CLASSES.get(name.endsWith("Chunk") ? name.slice(0, -"Chunk".length) : name)
}

const className = (value: object): unknown => {
  const proto: unknown = Object.getPrototypeOf(value)
  if (!isRecord(proto)) return undefined
  const ctor = proto["constructor"]
  return typeof ctor === "function" ? ctor.name : undefined
}

const viewOf = (message: unknown): View => {
  if (!isRecord(message)) return { shape: "plain", body: undefined, kind: undefined }
  const type = message["type"]
  if (type === "constructor" && typeof message["lc"] === "number") {
    const id = arr(message, "id")
    return { shape: "serialized", body: rec(message, "kwargs"), kind: kindOfClass(id[id.length - 1]) }
  }
  const data = rec(message, "data")
  if (data !== undefined && !("content" in message)) {
    return {
      shape: "stored",
      body: data,
      kind: typeof type === "string" && LANGCHAIN_TYPES.has(type) ? type : undefined
    }
  }
  if (typeof type === "string" && LANGCHAIN_TYPES.has(type)) return { shape: "plain", body: message, kind: type }
  // A live message without an own `type` (older @langchain/core) is told by its class.
  return { shape: "plain", body: message, kind: kindOfClass(className(message)) }
}

const roleOfName = (name: string | undefined): Role => {
  switch (name) {
    case "system":
    case "developer":
      return "system"
    case "ai":
    case "assistant":
      return "assistant"
    case "tool":
    case "function":
      return "tool"
    default:
      return "user"
  }
}

const roleOfView = (view: View): Role =>
  view.kind === undefined || view.kind === "generic" ? roleOfName(str(view.body, "role")) : roleOfName(view.kind)

const ctxkitOf = (view: View): Readonly<Record<string, unknown>> | undefined =>
  rec(rec(view.body, "additional_kwargs"), "ctxkit")

/** The calls of a message's fields: `tool_calls`, else the OpenAI-shaped `additional_kwargs.tool_calls`. */
const callsOf = (body: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<ToolCallInfo> => {
  const calls = arr(body, "tool_calls")
  if (calls.length > 0) {
    let out: Array<ToolCallInfo> | undefined
    for (const call of calls) {
      const id = str(call, "id")
      if (id === undefined || !isRecord(call)) continue
      ;(out ??= []).push({ id, name: str(call, "name") ?? "", arguments: jsonText(call["args"]) })
    }
    return out ?? empty
  }
  const raw = arr(rec(body, "additional_kwargs"), "tool_calls")
  if (raw.length === 0) return empty
  let out: Array<ToolCallInfo> | undefined
  for (const call of raw) {
    const id = str(call, "id")
    if (id === undefined) continue
    const fn = rec(call, "function")
    ;(out ??= []).push({ id, name: str(fn, "name") ?? "", arguments: str(fn, "arguments") ?? "" })
  }
  return out ?? empty
}

const resultsOf = (body: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<ToolResultInfo> => {
  const callId = str(body, "tool_call_id")
  if (callId === undefined || body === undefined) return empty
  return [{
    callId,
    name: str(body, "name"),
    isError: body["status"] === "error",
    text: contentText(body["content"], TEXT)
  }]
}

/** Text and reasoning blocks (`thinking`, `reasoning`) of a content value. */
const textAndReasoning = (content: unknown): string => {
  if (!Array.isArray(content)) return typeof content === "string" ? content : ""
  const pieces: Array<string> = []
  for (const block of content) {
    switch (str(block, "type")) {
      case "text":
        pieces.push(str(block, "text") ?? "")
        break
      case "thinking":
        pieces.push(str(block, "thinking") ?? "")
        break
      case "reasoning":
        pieces.push(str(block, "reasoning") ?? "")
        break
    }
  }
  return joinText(pieces)
}

const contentOfBody = (body: Readonly<Record<string, unknown>> | undefined): unknown =>
  body === undefined ? undefined : body["content"]

/** Audio formats as MIME types (`mp3` is `audio/mpeg`). */
const audioMime = (format: string | undefined): string | undefined =>
  format === undefined || format.length === 0 ? undefined : format === "mp3" ? "audio/mpeg" : `audio/${format}`

/** The media type a block declares: v0.3's `mime_type`, v1's `mimeType`, or an Anthropic-style `media_type`. */
const declaredMime = (block: unknown): string | undefined =>
  mimeField(block, "mime_type") ?? mimeField(block, "mimeType") ?? mimeField(block, "media_type") ??
    mimeField(rec(block, "source"), "media_type")

/** A data block (`image`, `file`, `audio`, `video`, Google's `media`, Anthropic-style `document`). */
const dataBlock = (block: Readonly<Record<string, unknown>>): AttachmentInfo => {
  const declared = declaredMime(block)
  const source = rec(block, "source")
  if (source !== undefined) {
    // Anthropic-style blocks passed through: `source: { type: "base64" | "url" | "text", … }`.
    switch (str(source, "type")) {
      case "base64": {
        const data = measureBase64(str(source, "data"))
        return attachment([declared, data.mime], data.bytes, block)
      }
      case "url": {
        const url = measureUrl(str(source, "url"))
        return attachment([declared, url.mime], url.bytes, block)
      }
      case "text":
        return attachment([declared, "text/plain"], utf8Bytes(str(source, "data") ?? ""), block)
    }
  }
  if (block["source_type"] === "text") {
    return attachment([declared, "text/plain"], utf8Bytes(str(block, "text") ?? str(block, "data") ?? ""), block)
  }
  const data = block["data"] !== undefined ? measureData(block["data"]) : measureUrl(block["url"])
  return attachment([declared, data.mime], data.bytes, block)
}

/** The attachment of one content block, or `undefined` for text, reasoning and tool blocks. */
const blockAttachment = (block: unknown): AttachmentInfo | undefined => {
  if (!isRecord(block)) return undefined
  switch (block["type"]) {
    case "image_url": {
      const value = block["image_url"]
      const url = measureUrl(typeof value === "string" ? value : str(value, "url"))
      return attachment([declaredMime(block), url.mime], url.bytes, block)
    }
    case "input_audio": {
      const audio = rec(block, "input_audio")
      const data = measureBase64(str(audio, "data"))
      return attachment([audioMime(str(audio, "format")), data.mime], data.bytes, block)
    }
    case "text-plain":
      return attachment([declaredMime(block), "text/plain"], utf8Bytes(str(block, "text") ?? ""), block)
    case "image":
    case "file":
    case "audio":
    case "video":
    case "media":
    case "document":
      return dataBlock(block)
    default:
      return undefined
  }
}

/**
 * The message with `patch` applied to its fields, in its own shape and with its prototype. A live message's
 * `lc_kwargs` (what it serializes from) is patched alike.
 */
const patchBody = <M>(message: M, view: View, patch: Readonly<Record<string, unknown>>): M => {
  switch (view.shape) {
    case "serialized":
      return withFields(message, { kwargs: withFields(view.body ?? {}, patch) })
    case "stored":
      return withFields(message, { data: withFields(view.body ?? {}, patch) })
    case "plain": {
      const lcKwargs = rec(message, "lc_kwargs")
      return withFields(message, lcKwargs === undefined ? patch : { ...patch, lc_kwargs: withFields(lcKwargs, patch) })
    }
  }
}

/** The content blocks that are reasoning. */
const REASONING: ReadonlySet<string> = new Set(["thinking", "redacted_thinking", "reasoning"])

/** A block that carries nothing once the calls are gone: empty text, or reasoning alone. */
const isFiller = (block: unknown): boolean => {
  const type = str(block, "type")
  return type === "thinking" || type === "redacted_thinking" || type === "reasoning" ||
    (type === "text" && (str(block, "text") ?? "") === "")
}

const hasContent = (content: unknown): boolean =>
  typeof content === "string" ? content.length > 0 : Array.isArray(content) && !content.every(isFiller)

const validateBody = (
  body: Readonly<Record<string, unknown>>,
  kind: string | undefined,
  base: string,
  issues: Array<ConversationIssue>
): void => {
  const content = body["content"]
  if (typeof content !== "string" && !Array.isArray(content)) {
    issues.push(
      issue(`${base}.content`, `expected a string or an array of content blocks, got ${describeValue(content)}`)
    )
  } else if (Array.isArray(content)) {
    content.forEach((block, i) => {
      if (typeof block === "string") return
      if (!isRecord(block)) {
        issues.push(issue(`${base}.content[${i}]`, `expected a content block, got ${describeValue(block)}`))
      } else if (typeof block["type"] !== "string") {
        issues.push(issue(`${base}.content[${i}].type`, `expected string, got ${describeValue(block["type"])}`))
      }
    })
  }
  const calls = body["tool_calls"]
  if (calls !== undefined) {
    if (!Array.isArray(calls)) {
      issues.push(issue(`${base}.tool_calls`, `expected an array, got ${describeValue(calls)}`))
    } else {
      calls.forEach((call, i) => {
        const at = `${base}.tool_calls[${i}]`
        if (!isRecord(call)) return issues.push(issue(at, `expected a tool call, got ${describeValue(call)}`))
        if (typeof call["id"] !== "string") {
          issues.push(
            issue(
              `${at}.id`,
              `expected string (a call without id cannot be answered), got ${describeValue(call["id"])}`
            )
          )
        }
        if (typeof call["name"] !== "string") {
          issues.push(issue(`${at}.name`, `expected string, got ${describeValue(call["name"])}`))
        }
        if (!isRecord(call["args"])) {
          issues.push(issue(`${at}.args`, `expected an object, got ${describeValue(call["args"])}`))
        }
      })
    }
  }
  const kwargs = body["additional_kwargs"]
  if (kwargs !== undefined && !isRecord(kwargs)) {
    issues.push(issue(`${base}.additional_kwargs`, `expected an object, got ${describeValue(kwargs)}`))
  }
  const raw = isRecord(kwargs) ? kwargs["tool_calls"] : undefined
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) {
      issues.push(issue(`${base}.additional_kwargs.tool_calls`, `expected an array, got ${describeValue(raw)}`))
    } else {
      raw.forEach((call, i) => {
        const at = `${base}.additional_kwargs.tool_calls[${i}]`
        if (typeof str(call, "id") !== "string") {
          issues.push(issue(`${at}.id`, `expected string, got ${describeValue(isRecord(call) ? call["id"] : call)}`))
        }
        const fn = isRecord(call) ? call["function"] : undefined
        if (!isRecord(fn)) issues.push(issue(`${at}.function`, `expected an object, got ${describeValue(fn)}`))
        else if (typeof fn["name"] !== "string") {
          issues.push(issue(`${at}.function.name`, `expected string, got ${describeValue(fn["name"])}`))
        }
      })
    }
  }
  if (kind === "tool") {
    if (typeof body["tool_call_id"] !== "string") {
      issues.push(issue(`${base}.tool_call_id`, `expected string, got ${describeValue(body["tool_call_id"])}`))
    }
    const status = body["status"]
    if (status !== undefined && status !== "success" && status !== "error") {
      issues.push(issue(`${base}.status`, `expected "success" or "error", got ${describeValue(status)}`))
    }
  }
}

/**
 * The LangChain format (`BaseMessage`s, structurally): `AIMessage.tool_calls[].id` ↔
 * `ToolMessage.tool_call_id`. Reads live or plain messages (`type`), their `JSON.stringify` form
 * (`lc`/`kwargs`, the class name from the last `id` element) and `StoredMessage`s (`type`/`data`);
 * rewrites keep the shape, the prototype of live messages and their `lc_kwargs` in step.
 *
 * Calls come from `tool_calls`, or from OpenAI-shaped `additional_kwargs.tool_calls` when `tool_calls` is
 * empty; their arguments are the JSON text of `args`. A `ToolMessage` with `status: "error"` is an error
 * result. Links are `call` and `result` only (LangChain has no approvals). `pinned: true` or
 * `additional_kwargs.ctxkit.pinned` pins a message, `additional_kwargs.ctxkit.summary` marks a summary, and
 * so does a compaction checkpoint header (`[Checkpoint of N earlier messages, generated by context
 * compaction]`) or `[Summary of earlier context]` opening a human or system message's text.
 *
 * A message's own text is its text blocks (a tool message's content text); reasoning and calls are not part
 * of it. Attachments are `image_url`, `input_audio` and data blocks (`image`, `file`, `audio`, `video`,
 * `media`, `document`, `text-plain`, in their v0.3, v1 and provider-native shapes), typed by
 * `mime_type` / `mimeType` / `media_type` or their `data:` URL and measured from their data (`0` for a URL
 * or a file id).
 *
 * @example
 * ```ts
 * import { formats, type LangChainMessage, toolGroups } from "@ctxkit/core"
 *
 * const call: LangChainMessage = {
 *   type: "ai",
 *   content: "",
 *   tool_calls: [{ id: "c1", name: "ls", args: { dir: "src" }, type: "tool_call" }]
 * }
 * const result: LangChainMessage = {
 *   lc: 1,
 *   type: "constructor",
 *   id: ["langchain_core", "messages", "ToolMessage"],
 *   kwargs: { content: "index.ts", tool_call_id: "c1" }
 * }
 * formats.langchain.toolCalls(call) // [{ id: "c1", name: "ls", arguments: "{\"dir\":\"src\"}" }]
 * toolGroups([call, result], formats.langchain).groups // [[0, 1]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const langchain: MessageFormat<LangChainMessage> = makeFormat<LangChainMessage>({
  name: "langchain",
  role: (message) => roleOfView(viewOf(message)),
  links: (message): ReadonlyArray<Link> => {
    const body = viewOf(message).body
    const callId = str(body, "tool_call_id")
    // Ids only: `links` runs once a message and must not serialize arguments.
    const structured = arr(body, "tool_calls")
    const calls = structured.length > 0 ? structured : arr(rec(body, "additional_kwargs"), "tool_calls")
    if (calls.length === 0) return callId === undefined ? empty : [{ kind: "result", id: callId }]
    const out: Array<Link> = []
    for (const call of calls) {
      const id = str(call, "id")
      if (id !== undefined) out.push({ kind: "call", id })
    }
    if (callId !== undefined) out.push({ kind: "result", id: callId })
    return out
  },
  toolCalls: (message) => callsOf(viewOf(message).body),
  toolResults: (message) => resultsOf(viewOf(message).body),
  isPinned: (message) => {
    const view = viewOf(message)
    return flag(message, "pinned") || flag(view.body, "pinned") || flag(ctxkitOf(view), "pinned")
  },
  isSummary: (message) => {
    const view = viewOf(message)
    if (flag(ctxkitOf(view), "summary")) return true
    const role = roleOfView(view)
    return (role === "user" || role === "system") && isSummaryText(firstText(contentOfBody(view.body), TEXT))
  },
  source: (message) => {
    const view = viewOf(message)
    return sourceOf(view.body, ctxkitOf(view)) ?? sourceOf(message, undefined)
  },
  id: (message) => str(viewOf(message).body, "id"),
  meta: (message) => ctxkitOf(viewOf(message)),
  text: (message) => {
    const body = viewOf(message).body
    const pieces = [textAndReasoning(body === undefined ? undefined : body["content"])]
    for (const call of callsOf(body)) pieces.push(call.name + " " + call.arguments)
    return joinText(pieces)
  },
  ownText: (message) => contentText(contentOfBody(viewOf(message).body), TEXT),
  attachments: (message) => {
    let out: Array<AttachmentInfo> | undefined
    for (const block of arr(viewOf(message).body, "content")) {
      const found = blockAttachment(block)
      if (found !== undefined) (out ??= []).push(found)
    }
    return out ?? empty
  },
  withText: (message, text) => {
    const view = viewOf(message)
    const content = view.body === undefined ? undefined : view.body["content"]
    return patchBody(message, view, { content: replaceContentText(content, text, TEXT, "text") })
  },
  withResultText: (message, callId, text) => {
    const view = viewOf(message)
    if (view.body === undefined || str(view.body, "tool_call_id") !== callId) return message
    return patchBody(message, view, { content: replaceContentText(view.body["content"], text, TEXT, "text") })
  },
  withoutToolParts: (message, callIds) => {
    const view = viewOf(message)
    const body = view.body
    if (body === undefined) return message
    const callId = str(body, "tool_call_id")
    if (callId !== undefined && callIds.has(callId)) return undefined
    const keep = (call: unknown): boolean => !callIds.has(str(call, "id") ?? "")
    const patch: Record<string, unknown> = {}
    let remaining = 0
    const calls = body["tool_calls"]
    if (Array.isArray(calls)) {
      const kept = calls.filter(keep)
      if (kept.length !== calls.length) patch["tool_calls"] = kept
      remaining += kept.length
    }
    const kwargs = rec(body, "additional_kwargs")
    const raw = kwargs === undefined ? undefined : kwargs["tool_calls"]
    if (kwargs !== undefined && Array.isArray(raw)) {
      const kept = raw.filter(keep)
      // An empty `tool_calls` list is rejected by OpenAI: remove the key instead.
      if (kept.length !== raw.length) {
        patch["additional_kwargs"] = withFields(kwargs, { tool_calls: kept.length === 0 ? undefined : kept })
      }
      remaining += kept.length
    }
    // Anthropic-style `tool_use` and standard `tool_call` blocks mirror `tool_calls` inside the content.
    const content = body["content"]
    let left: unknown = content
    if (Array.isArray(content)) {
      const kept = content.filter((block) => {
        const type = str(block, "type")
        return (type !== "tool_use" && type !== "tool_call") || keep(block)
      })
      if (kept.length !== content.length) {
        patch["content"] = kept
        left = kept
      }
    }
    if (Object.keys(patch).length === 0) return message
    if (remaining === 0 && callId === undefined && !hasContent(left)) return undefined
    return patchBody(message, view, patch)
  },
  withoutReasoning: (message) => {
    const view = viewOf(message)
    const content = contentOfBody(view.body)
    if (!Array.isArray(content)) return message
    const remaining = content.filter((block) => !REASONING.has(str(block, "type") ?? ""))
    if (remaining.length === content.length) return message
    const calls = view.body === undefined ? undefined : view.body["tool_calls"]
    if (!hasContent(remaining) && !(Array.isArray(calls) && calls.length > 0)) return undefined
    return patchBody(message, view, { content: remaining })
  },
  makeNote: (text, options) => {
    const ctxkit = options.kind === "summary" ? { additional_kwargs: { ctxkit: { summary: true } } } : {}
    return {
      type: options.role === "system" ? "system" : "human",
      content: text,
      ...ctxkit,
      ...(options.id === undefined ? {} : { id: options.id })
    }
  },
  makeToolResults: (_issuer, calls, text, options) =>
    calls.map((call): LangChainMessage => ({
      type: "tool",
      tool_call_id: call.id,
      name: call.name,
      content: text,
      status: options.isError ? "error" : "success"
    })),
  validate: (message, path) => {
    if (!isRecord(message)) return [issue(path, `expected a message object, got ${describeValue(message)}`)]
    const view = viewOf(message)
    const issues: Array<ConversationIssue> = []
    let base = path
    switch (view.shape) {
      case "serialized":
        if (view.kind === undefined) {
          issues.push(issue(
            `${path}.id`,
            `expected a LangChain message class path such as ["langchain_core", "messages", "AIMessage"], got ${
              describeValue(message["id"])
            }`
          ))
        }
        if (view.body === undefined) {
          issues.push(issue(`${path}.kwargs`, `expected an object, got ${describeValue(message["kwargs"])}`))
        }
        base = `${path}.kwargs`
        break
      case "stored":
        if (view.kind === undefined) {
          issues.push(
            issue(
              `${path}.type`,
              `expected a LangChain message type such as "human" or "ai", got ${describeValue(message["type"])}`
            )
          )
        }
        base = `${path}.data`
        break
      case "plain":
        if (view.kind === undefined && str(message, "role") === undefined) {
          issues.push(
            issue(
              `${path}.type`,
              `expected a LangChain message type such as "human" or "ai", got ${describeValue(message["type"])}`
            )
          )
        }
        break
    }
    if (view.body !== undefined) validateBody(view.body, view.kind, base, issues)
    return issues
  }
})
