/**
 * `MessageFormat<M>`: a small lens that reads and rewrites one wire format, so that every ctxkit
 * algorithm works on the caller's own message objects, with no conversion, and hands back the same
 * references for the messages it did not touch.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import type { ConversationIssue } from "./Errors.ts"
import type { SystemSource } from "./Message.ts"

/**
 * The role a message plays, whatever its wire format calls it. A message that only carries tool results
 * (an OpenAI `tool` message, an Anthropic `user` message made of `tool_result` blocks) is `"tool"`.
 *
 * @example
 * ```ts
 * import type { Role } from "@ctxkit/core"
 *
 * const role: Role = "tool"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Role = "system" | "user" | "assistant" | "tool"

/**
 * A tool call as a format reads it: id, tool name, and the raw arguments text the model produced.
 *
 * @example
 * ```ts
 * import type { ToolCallInfo } from "@ctxkit/core/MessageFormat"
 *
 * const call: ToolCallInfo = { id: "call_1", name: "read_file", arguments: "{\"path\":\"a.ts\"}" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolCallInfo {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * A tool result as a format reads it: the call it answers, the tool name when the format records it,
 * whether it is an error, and its text.
 *
 * @example
 * ```ts
 * import type { ToolResultInfo } from "@ctxkit/core/MessageFormat"
 *
 * const result: ToolResultInfo = { callId: "call_1", name: "read_file", isError: false, text: "export {}" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolResultInfo {
  readonly callId: string
  readonly name?: string | undefined
  readonly isError: boolean
  readonly text: string
}

/**
 * One link a message carries. `call` issues a tool call, `result` answers one (both in the tool-call id
 * space); `ref` is any other link, named by a format-chosen key such as `approval:<id>`: every message
 * carrying the same key belongs to the same group.
 *
 * @example
 * ```ts
 * import type { Link } from "@ctxkit/core/MessageFormat"
 *
 * const links: ReadonlyArray<Link> = [{ kind: "call", id: "call_1" }, { kind: "ref", key: "approval:a1" }]
 * ```
 *
 * @category models
 * @since 0.1.0
 * @inline
 */
export type Link =
  | { readonly kind: "call"; readonly id: string }
  | { readonly kind: "result"; readonly id: string }
  | { readonly kind: "ref"; readonly key: string }

/**
 * One approval part a message carries (AI SDK and `effect/ai` tool approvals, OpenAI Responses MCP
 * approval items): the `request` the framework made for a call, or the user's `response` to it, both named by
 * `approvalId`. An `mcp_approval_request` is its own call: its `callId` is its id. A call whose approval was
 * answered and that has no result yet is awaiting execution, not dangling.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 *
 * formats.aiSdk.approvals({
 *   role: "tool",
 *   content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }]
 * }) // [{ kind: "response", approvalId: "a1", approved: true }]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ApprovalInfo =
  | { readonly kind: "request"; readonly approvalId: string; readonly callId: string }
  | { readonly kind: "response"; readonly approvalId: string; readonly approved: boolean }

/**
 * An image or file a message carries, as a summarizer may mention it: its MIME type, its size in bytes
 * (decoded size of inline base64 data; `0` when only a URL is known and no size is recorded) and, for
 * images, the pixel size when the format records it. Never the bytes themselves.
 *
 * @example
 * ```ts
 * import type { AttachmentInfo } from "@ctxkit/core/MessageFormat"
 *
 * const shot: AttachmentInfo = { mime: "image/png", bytes: 20_480, width: 800, height: 600 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface AttachmentInfo {
  readonly mime: string
  readonly bytes: number
  readonly width?: number | undefined
  readonly height?: number | undefined
}

/**
 * What a note message (an inserted summary, checkpoint or invariants block) is for.
 *
 * @example
 * ```ts
 * import type { NoteOptions } from "@ctxkit/core/MessageFormat"
 *
 * const options: NoteOptions = { role: "user", kind: "summary" }
 * ```
 *
 * @category models
 * @since 0.1.0
 * @inline
 */
export interface NoteOptions {
  /** `system` for instructions-like blocks, `user` for injected context such as summaries. */
  readonly role: "system" | "user"
  /** `summary` marks a checkpoint (never clipped, not the current request). */
  readonly kind: "summary" | "invariants" | "note"
  readonly id?: string | undefined
}

/**
 * A lens over one wire format. Every function is total: it never throws, whatever it is given, and
 * treats what it cannot read as absent. Rewrites return new objects and keep ids, roles and message
 * boundaries; they never mutate their input.
 *
 * Its members are declared as methods so that a lens for one message type can be passed where options are
 * typed for `unknown` (`{ format: formats.openaiChat }` is a `{ format?: MessageFormat<unknown> }`): a lens is
 * only ever applied to the messages of the call it was given to.
 *
 * Build one with {@link makeFormat}, which fills in the optional parts.
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "a.txt" }
 * ]
 * formats.openaiChat.role(messages[1]!) // "tool"
 * toolGroups(messages, formats.openaiChat).groups // [[0, 1]]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface MessageFormat<M> {
  /** The format's name, as used in errors and reports (`"openaiChat"`). */
  readonly name: string
  /** The message's role. */
  role(message: M): Role
  /**
   * Every link the message carries, for grouping: the calls it issues, the results it carries and any
   * other link (approvals, provider-side tool pairs). Must be cheap: `toolGroups` calls it once a message.
   */
  links(message: M): ReadonlyArray<Link>
  /**
   * Visits every link of `links(message)` without allocating: `kind` as in `links` (`call`, `result` or `ref`), and `id` the call id
   * (for `call` and `result`) or the key (for `ref`). `toolGroups` uses it on its hot path.
   */
  forEachLink(message: M, visit: (kind: Link["kind"], id: string) => void): void
  /** The tool calls the message issues, in order. */
  toolCalls(message: M): ReadonlyArray<ToolCallInfo>
  /** The tool results the message carries, in order. */
  toolResults(message: M): ReadonlyArray<ToolResultInfo>
  /**
   * The approval requests and responses the message carries, in order (none in formats without approvals).
   * Each approval part also carries a `ref` link (so that a request and its response are grouped): `toolGroups`
   * asks only messages with a `ref` link for their approvals.
   */
  approvals(message: M): ReadonlyArray<ApprovalInfo>
  /**
   * True when the message must travel with the one right after it (an OpenAI Responses `reasoning`
   * item belongs to the call or message that follows it).
   */
  attachesToNext(message: M): boolean
  /** Pinned by the user or the harness: no strategy may drop it. */
  isPinned(message: M): boolean
  /** Protected: pinned, or a system message whose source is the system itself. */
  isProtected(message: M): boolean
  /** A compaction checkpoint or other injected summary (never clipped, never the current request). */
  isSummary(message: M): boolean
  /** Where a system block came from, when the format records it. */
  source(message: M): SystemSource | undefined
  /** The message's own id, when it has one. */
  id(message: M): string | undefined
  /** Free-form metadata (`manualExcluded`, `relevance`, …), when the format carries it. */
  meta(message: M): Readonly<Record<string, unknown>> | undefined
  /**
   * Everything a tokenizer would see: text and reasoning parts, tool names and arguments, result texts.
   */
  text(message: M): string
  /**
   * The message's own words: its text parts joined with newlines, without tool names, call arguments,
   * reasoning or attachments. For a message that is only a tool result this is the result's text. It is what
   * {@link MessageFormat.withText} replaces.
   */
  ownText(message: M): string
  /** The images and files the message carries (never their bytes), in order. */
  attachments(message: M): ReadonlyArray<AttachmentInfo>
  /**
   * The message with its own text replaced (text parts collapse into one; calls, results, ids and
   * other parts stay). For a message that is only a tool result this is the result's text.
   */
  withText(message: M, text: string): M
  /** The message with the text of the result answering `callId` replaced; the message itself if it has none. */
  withResultText(message: M, callId: string, text: string): M
  /**
   * The message without the calls and results whose ids are in `callIds`, the approval requests for those
   * calls, and the approval parts (requests and responses) whose approval id is in `approvalIds`; or
   * `undefined` when nothing meaningful is left.
   */
  withoutToolParts(message: M, callIds: ReadonlySet<string>, approvalIds?: ReadonlySet<string>): M | undefined
  /**
   * The message without its reasoning (AI SDK and `effect/ai` reasoning parts, Anthropic thinking blocks,
   * LangChain reasoning blocks; an OpenAI Responses reasoning item is all reasoning), or `undefined` when
   * nothing meaningful is left. The message itself when it has none.
   */
  withoutReasoning(message: M): M | undefined
  /** A new message in this format carrying `text` (an inserted summary, checkpoint or invariants block). */
  makeNote(text: string, options: NoteOptions): M
  /**
   * New messages that answer `calls` (issued by `issuer`) with `text`, to insert after the issuer and its
   * existing results. Used by `repairPairs` to close dangling calls.
   */
  makeToolResults(
    issuer: M,
    calls: ReadonlyArray<ToolCallInfo>,
    text: string,
    options: { readonly isError: boolean }
  ): ReadonlyArray<M>
  /**
   * Structural problems of one message, each with a path under `path` (`messages[3]`). Empty when the
   * message is readable in this format.
   */
  validate(message: unknown, path: string): ReadonlyArray<ConversationIssue>
}

/**
 * What a lens over `F` can read: `F` without its index signature, so that the caller's own message types — often
 * interfaces, which have none — are accepted where a lens type such as `OpenAiChatMessage` allows any extra field.
 * Functions that take messages and a `format` are typed `<M extends FormatInput<F>, F>` and give back `M`.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { type FormatInput, formats, type OpenAiChatMessage } from "@ctxkit/core"
 * import { shiftContext } from "@ctxkit/fit"
 *
 * interface MyMessage { role: "user" | "assistant"; content: string }
 * const mine: ReadonlyArray<MyMessage> = [{ role: "user", content: "hi" }]
 * const ok: ReadonlyArray<FormatInput<OpenAiChatMessage>> = mine
 * shiftContext(mine, approximateCounter, 100, { format: formats.openaiChat }).kept // ReadonlyArray<MyMessage>
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type FormatInput<F> = unknown extends F ? unknown
  : F extends unknown ? { readonly [K in keyof F as string extends K ? never : K]: F[K] }
  : never

/**
 * What {@link makeFormat} needs: the required reading and rewriting functions; the rest have defaults.
 *
 * @example
 * ```ts
 * import type { FormatSpec } from "@ctxkit/core/MessageFormat"
 *
 * type Spec = FormatSpec<{ readonly kind: string }>
 * ```
 *
 * @category models
 * @since 0.1.0
 * @inline
 */
export type FormatSpec<M> = Omit<MessageFormat<M>, Defaulted> & Partial<Pick<MessageFormat<M>, Defaulted>>

/**
 * The members {@link makeFormat} fills in when a spec leaves them out.
 *
 * @inline
 */
type Defaulted =
  | "attachesToNext"
  | "isPinned"
  | "isProtected"
  | "isSummary"
  | "source"
  | "id"
  | "meta"
  | "links"
  | "forEachLink"
  | "ownText"
  | "attachments"
  | "approvals"
  | "withoutReasoning"

const never = (): boolean => false
const none = (): undefined => undefined
const noAttachments = (): ReadonlyArray<AttachmentInfo> => []
const NO_APPROVALS: ReadonlyArray<ApprovalInfo> = Object.freeze([])
const noApprovals = (): ReadonlyArray<ApprovalInfo> => NO_APPROVALS

/**
 * Builds a {@link MessageFormat} from the functions that are specific to a wire format. Defaults:
 * `links` from `forEachLink` when given, else from `toolCalls` and `toolResults`; `forEachLink` from `links`; nothing attaches to the next message; nothing is pinned or
 * a summary; no approvals and no reasoning to remove; `ownText` is `text` (the result texts for a tool message); no attachments; a message is protected when pinned, or when it is a system message whose `source` is absent
 * or `"system"`; no id, no source, no metadata.
 *
 * @example
 * ```ts
 * import { makeFormat, toolGroups } from "@ctxkit/core"
 *
 * // A tiny format: { who, says, calls?: string[], answers?: string }
 * interface Line { readonly who: "me" | "bot" | "tool"; readonly says: string; readonly calls?: ReadonlyArray<string>; readonly answers?: string }
 *
 * const lines = makeFormat<Line>({
 *   name: "lines",
 *   role: (m) => m.who === "me" ? "user" : m.who === "bot" ? "assistant" : "tool",
 *   toolCalls: (m) => (m.calls ?? []).map((id) => ({ id, name: "tool", arguments: "" })),
 *   toolResults: (m) => m.answers === undefined ? [] : [{ callId: m.answers, isError: false, text: m.says }],
 *   text: (m) => m.says,
 *   withText: (m, says) => ({ ...m, says }),
 *   withResultText: (m, callId, says) => m.answers === callId ? { ...m, says } : m,
 *   withoutToolParts: (m) => m,
 *   makeNote: (says) => ({ who: "me", says }),
 *   makeToolResults: (_issuer, calls, says) => calls.map((call) => ({ who: "tool", says, answers: call.id })),
 *   validate: () => []
 * })
 *
 * toolGroups([{ who: "bot", says: "", calls: ["x"] }, { who: "tool", says: "ok", answers: "x" }], lines).groups
 * // [[0, 1]]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeFormat = <M>(spec: FormatSpec<M>): MessageFormat<M> => {
  const isPinned = spec.isPinned ?? never
  const source = spec.source ?? none
  const role = spec.role
  const toolCalls = spec.toolCalls
  const toolResults = spec.toolResults
  const visitLinks = spec.forEachLink
  const links = spec.links ?? (visitLinks !== undefined
    ? (message: M): ReadonlyArray<Link> => {
      const out: Array<Link> = []
      visitLinks(message, (kind, id) => out.push(kind === "ref" ? { kind, key: id } : { kind, id }))
      return out
    }
    : (message: M): ReadonlyArray<Link> => {
      const out: Array<Link> = []
      for (const call of toolCalls(message)) out.push({ kind: "call", id: call.id })
      for (const result of toolResults(message)) out.push({ kind: "result", id: result.callId })
      return out
    })
  return {
    ...spec,
    links,
    forEachLink: spec.forEachLink ?? ((message, visit) => {
      for (const link of links(message)) visit(link.kind, link.kind === "ref" ? link.key : link.id)
    }),
    attachesToNext: spec.attachesToNext ?? never,
    isPinned,
    isProtected: spec.isProtected ?? ((message: M): boolean => {
      if (isPinned(message)) return true
      if (role(message) !== "system") return false
      const from = source(message)
      return from === undefined || from === "system"
    }),
    isSummary: spec.isSummary ?? never,
    ownText: spec.ownText ?? ((message: M): string =>
      role(message) === "tool"
        ? toolResults(message).map((result) => result.text).join("\n")
        : spec.text(message)),
    attachments: spec.attachments ?? noAttachments,
    approvals: spec.approvals ?? noApprovals,
    withoutReasoning: spec.withoutReasoning ?? ((message: M): M | undefined => message),
    source,
    id: spec.id ?? none,
    meta: spec.meta ?? none
  }
}

const LENS_FUNCTIONS: ReadonlyArray<string> = [
  "role",
  "links",
  "forEachLink",
  "toolCalls",
  "toolResults",
  "attachesToNext",
  "isPinned",
  "isProtected",
  "isSummary",
  "source",
  "id",
  "meta",
  "text",
  "ownText",
  "attachments",
  "withText",
  "withResultText",
  "withoutToolParts",
  "makeNote",
  "makeToolResults",
  "validate"
]

/**
 * Whether `value` is a {@link MessageFormat}: an object with a string `name` and every lens function. The one
 * check every ctxkit entry point uses on a `format` option, so that a format accepted by one function is
 * accepted by all (a partial hand-written lens is refused everywhere; {@link makeFormat} fills in the
 * optional parts).
 *
 * @example
 * ```ts
 * import { formats, isMessageFormat } from "@ctxkit/core"
 *
 * isMessageFormat(formats.openaiChat) // true
 * isMessageFormat("openaiChat") // false: pass the lens, formats.openaiChat
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const isMessageFormat = (value: unknown): value is MessageFormat<unknown> =>
  Predicate.isObject(value) && Predicate.isString(value["name"]) &&
  LENS_FUNCTIONS.every((key) => Predicate.isFunction(value[key]))
