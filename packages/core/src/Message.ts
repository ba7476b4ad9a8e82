/**
 * The canonical message: the shape ctxkit uses when it must create or describe messages itself (the CLI's
 * input, the corpus, summaries, tests). Algorithms never require it — they read any wire format through a
 * {@link MessageFormat} — but it is the natural storage shape for a harness written from scratch.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Free-form metadata carried by every canonical message and preserved untouched by every operation.
 * The toolkit reads `manualExcluded` (the `manual` fitting strategy), `relevance` (in [0, 1], the
 * `vector-recall` strategy) and `pinned` (an alternative to the top-level flag).
 *
 * @example
 * ```ts
 * import type { MessageMeta } from "@ctxkit/core/Message"
 *
 * const meta: MessageMeta = { manualExcluded: true, relevance: 0.2, origin: "ui" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const MessageMeta = Schema.StructWithRest(
  Schema.Struct({
    manualExcluded: Schema.optionalKey(Schema.Boolean),
    relevance: Schema.optionalKey(Schema.Finite),
    pinned: Schema.optionalKey(Schema.Boolean)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @category models
 * @since 0.1.0
 */
export type MessageMeta = typeof MessageMeta.Type

/**
 * A text part of a message's content.
 *
 * @example
 * ```ts
 * import type { TextPart } from "@ctxkit/core/Message"
 *
 * const part: TextPart = { type: "text", text: "hello" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
})

/**
 * @category models
 * @since 0.1.0
 */
export type TextPart = typeof TextPart.Type

/**
 * An image part: its MIME type, its bytes (base64) or a URL, and its size in bytes when known.
 *
 * @example
 * ```ts
 * import type { ImagePart } from "@ctxkit/core/Message"
 *
 * const part: ImagePart = { type: "image", mime: "image/png", url: "https://example.test/a.png", size: 20_480 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImagePart = Schema.Struct({
  type: Schema.Literal("image"),
  mime: Schema.String,
  bytes: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  size: Schema.optionalKey(Schema.Finite)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ImagePart = typeof ImagePart.Type

/**
 * A file part (a PDF, a document): MIME type, optional name, bytes (base64) or URL, size in bytes.
 *
 * @example
 * ```ts
 * import type { FilePart } from "@ctxkit/core/Message"
 *
 * const part: FilePart = { type: "file", mime: "application/pdf", name: "spec.pdf", size: 1_024 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  mime: Schema.String,
  name: Schema.optionalKey(Schema.String),
  bytes: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  size: Schema.optionalKey(Schema.Finite)
})

/**
 * @category models
 * @since 0.1.0
 */
export type FilePart = typeof FilePart.Type

/**
 * Any other part, carried opaquely: it has a `type` and whatever else its producer put there.
 * It counts as no text and travels untouched.
 *
 * @example
 * ```ts
 * import type { OpaquePart } from "@ctxkit/core/Message"
 *
 * const part: OpaquePart = { type: "citation", source: "doc-3" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OpaquePart = Schema.StructWithRest(
  Schema.Struct({ type: Schema.String }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @category models
 * @since 0.1.0
 */
export type OpaquePart = typeof OpaquePart.Type

/**
 * One part of a message's content.
 *
 * @example
 * ```ts
 * import type { ContentPart } from "@ctxkit/core/Message"
 *
 * const parts: Array<ContentPart> = [{ type: "text", text: "see" }, { type: "image", mime: "image/png" }]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentPart = Schema.Union([TextPart, ImagePart, FilePart, OpaquePart])

/**
 * @category models
 * @since 0.1.0
 */
export type ContentPart = typeof ContentPart.Type

/**
 * A message's content: a string or a list of parts.
 *
 * @example
 * ```ts
 * import type { Content } from "@ctxkit/core/Message"
 *
 * const short: Content = "hello"
 * const parts: Content = [{ type: "text", text: "hello" }]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Content = Schema.Union([Schema.String, Schema.Array(ContentPart)])

/**
 * @category models
 * @since 0.1.0
 */
export type Content = typeof Content.Type

/**
 * Where a system block came from. Only `"system"` (or no source) makes a system message protected;
 * memory, lorebook, persona, plugin and instructions blocks, and `"reminder"` (a mid-conversation system
 * reminder), may be dropped by a fitting strategy. Every format reads it the same way: a `source` field on
 * the message, or `source` in the format's ctxkit metadata (`providerOptions.ctxkit` in the AI SDK, …).
 *
 * @example
 * ```ts
 * import type { SystemSource } from "@ctxkit/core/Message"
 *
 * const source: SystemSource = "lorebook"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const SystemSource = Schema.Literals([
  "system",
  "memory",
  "lorebook",
  "persona",
  "plugin",
  "instructions",
  "reminder"
])

/**
 * @category models
 * @since 0.1.0
 */
export type SystemSource = typeof SystemSource.Type

/**
 * A system block: the system prompt, or memory, lorebook, persona, plugin or instructions context.
 *
 * @example
 * ```ts
 * import type { SystemMessage } from "@ctxkit/core/Message"
 *
 * const memory: SystemMessage = { role: "system", source: "memory", content: "The user prefers tabs." }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: Content,
  id: Schema.optionalKey(Schema.String),
  pinned: Schema.optionalKey(Schema.Boolean),
  source: Schema.optionalKey(SystemSource),
  meta: Schema.optionalKey(MessageMeta)
})

/**
 * @category models
 * @since 0.1.0
 */
export type SystemMessage = typeof SystemMessage.Type

/**
 * A user message. `summary: true` marks injected context (a compaction checkpoint): it is never clipped
 * and it is not the user's current request.
 *
 * @example
 * ```ts
 * import type { UserMessage } from "@ctxkit/core/Message"
 *
 * const ask: UserMessage = { role: "user", content: "Fix the failing test" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Content,
  id: Schema.optionalKey(Schema.String),
  pinned: Schema.optionalKey(Schema.Boolean),
  summary: Schema.optionalKey(Schema.Boolean),
  meta: Schema.optionalKey(MessageMeta)
})

/**
 * @category models
 * @since 0.1.0
 */
export type UserMessage = typeof UserMessage.Type

/**
 * A tool call issued by an assistant message. `arguments` is the raw JSON text the model produced,
 * kept verbatim (it may be invalid JSON: the model wrote it).
 *
 * @example
 * ```ts
 * import type { ToolCall } from "@ctxkit/core/Message"
 *
 * const call: ToolCall = { id: "call_1", name: "read_file", arguments: "{\"path\":\"a.ts\"}" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
})

/**
 * @category models
 * @since 0.1.0
 */
export type ToolCall = typeof ToolCall.Type

/**
 * An assistant message, with the tool calls it issues. `providerData` is opaque continuation data
 * (encrypted reasoning, signatures) that travels untouched; `truncated` marks a reply cut by the
 * output limit.
 *
 * @example
 * ```ts
 * import type { AssistantMessage } from "@ctxkit/core/Message"
 *
 * const reply: AssistantMessage = {
 *   role: "assistant",
 *   content: "Reading it.",
 *   toolCalls: [{ id: "call_1", name: "read_file", arguments: "{\"path\":\"a.ts\"}" }]
 * }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Content,
  toolCalls: Schema.optionalKey(Schema.Array(ToolCall)),
  id: Schema.optionalKey(Schema.String),
  pinned: Schema.optionalKey(Schema.Boolean),
  providerData: Schema.optionalKey(Schema.Unknown),
  truncated: Schema.optionalKey(Schema.Boolean),
  meta: Schema.optionalKey(MessageMeta)
})

/**
 * @category models
 * @since 0.1.0
 */
export type AssistantMessage = typeof AssistantMessage.Type

/**
 * A tool result, answering the call whose id is `toolCallId`. `uncertain` marks a synthetic result whose
 * real outcome is unknown (see `repairPairs`); `sha256` is a digest of the full output when it was cut.
 *
 * @example
 * ```ts
 * import type { ToolMessage } from "@ctxkit/core/Message"
 *
 * const result: ToolMessage = { role: "tool", toolCallId: "call_1", toolName: "read_file", content: "export {}" }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  toolCallId: Schema.String,
  toolName: Schema.optionalKey(Schema.String),
  content: Content,
  isError: Schema.optionalKey(Schema.Boolean),
  sha256: Schema.optionalKey(Schema.String),
  id: Schema.optionalKey(Schema.String),
  uncertain: Schema.optionalKey(Schema.Boolean),
  meta: Schema.optionalKey(MessageMeta)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ToolMessage = typeof ToolMessage.Type

/**
 * A canonical message: system, user, assistant or tool, discriminated by `role`.
 *
 * @example
 * ```ts
 * import { Message } from "@ctxkit/core"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(Message)({ role: "user", content: "hi" }) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Message = Schema.Union([SystemMessage, UserMessage, AssistantMessage, ToolMessage])

/**
 * @category models
 * @since 0.1.0
 */
export type Message = typeof Message.Type

/**
 * A conversation of canonical messages.
 *
 * @example
 * ```ts
 * import { Conversation } from "@ctxkit/core/Message"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(Conversation)([{ role: "user", content: "hi" }]) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Conversation = Schema.Array(Message)

/**
 * @category models
 * @since 0.1.0
 */
export type Conversation = typeof Conversation.Type
