/**
 * The lens shared by the formats whose messages are a `role` and `content` parts typed `text`, `reasoning`,
 * `tool-call`, `tool-result`, `tool-approval-request` and `tool-approval-response` (the AI SDK's
 * `ModelMessage`, `effect/ai`'s `Prompt` messages). The part walking lives here once; a {@link PartDialect}
 * says what differs: field names, how a result reads and is rewritten, and how new parts and messages look.
 *
 * @internal
 */
import { describeValue } from "../Describe.ts"
import type { ConversationIssue } from "../Errors.ts"
import {
  type ApprovalInfo,
  type AttachmentInfo,
  type Link,
  makeFormat,
  type MessageFormat,
  type NoteOptions,
  type Role,
  type ToolCallInfo,
  type ToolResultInfo
} from "../MessageFormat.ts"
import { issue } from "./issues.ts"
import { arr, empty, flag, isRecord, joinText, jsonText, rec, str, withFields } from "./read.ts"
import { sourceOf } from "./source.ts"
import { firstText, isSummaryText } from "./summaryText.ts"

type Part = Readonly<Record<string, unknown>>

/** Issues of one message against the rules of its role, each with its path under `base`. */
export type Check = (input: unknown, base: string) => ReadonlyArray<ConversationIssue>

/** The part types whose `text` is text (for `contentText` over nested content). */
export const TEXT: ReadonlySet<string> = new Set(["text"])

/** What one parts format names and does its own way. */
export interface PartDialect<M> {
  /** The format's name (`"aiSdk"`). */
  readonly name: string
  /** The field of `tool-call` and `tool-result` parts holding the call id. */
  readonly idKey: string
  /** The field of `tool-call` and `tool-result` parts holding the tool name. */
  readonly nameKey: string
  /** The message field whose `ctxkit` record holds ctxkit's own options (`pinned`, `summary`, `id`). */
  readonly optionsKey: string
  /** The arguments of a `tool-call` part, as the model wrote them. */
  readonly callArguments: (part: Part) => unknown
  /** Whether a `tool-result` part is an error, and the text the model reads of it. */
  readonly outcome: (part: Part) => { readonly isError: boolean; readonly text: string }
  /** A `tool-result` part of `message` answering with `text` instead, keeping its error-ness. */
  readonly rewriteResult: (part: Part, text: string, message: unknown) => unknown
  /** A new text part for `message`. */
  readonly textPart: (text: string, message: unknown) => unknown
  /** A note message; `ctxkit` is its ctxkit options, absent when it has none. */
  readonly note: (text: string, role: NoteOptions["role"], ctxkit: Part | undefined) => M
  /** The one tool message answering `calls` (never empty) from `issuer`. */
  readonly resultMessage: (issuer: M, calls: ReadonlyArray<ToolCallInfo>, text: string, isError: boolean) => M
  /** The structural check of each role. */
  readonly checks: ReadonlyMap<string, Check>
  /**
   * The attachments of one part: an image or file part gives one, a tool-result part those of its output;
   * other parts give none. Pushes them onto `out`.
   */
  readonly attachments: (part: Part, out: Array<AttachmentInfo>) => void
}

const contentOf = (message: unknown): unknown => isRecord(message) ? message["content"] : undefined

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

/** A part that carries nothing once its siblings are gone: empty text, or reasoning alone. */
const isFiller = (part: unknown): boolean => {
  const type = str(part, "type")
  return type === "reasoning" || (type === "text" && (str(part, "text") ?? "") === "")
}

/** Content with its text parts collapsed into the first one, carrying `text`; `extra` is added when there is none. */
const replaceText = (content: unknown, text: string, extra: () => unknown): unknown => {
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
  if (!placed) out.push(extra())
  return out
}

/**
 * Builds the {@link MessageFormat} of a parts format from its dialect. It gives `forEachLink` and lets
 * `makeFormat` derive `links` from it.
 */
export const makePartsFormat = <M>(dialect: PartDialect<M>): MessageFormat<M> => {
  const { idKey, nameKey, optionsKey } = dialect

  const ctxkitOptions = (message: unknown): Part | undefined => rec(rec(message, optionsKey), "ctxkit")

  const callOf = (part: unknown): ToolCallInfo | undefined => {
    if (str(part, "type") !== "tool-call") return undefined
    const id = str(part, idKey)
    if (id === undefined || !isRecord(part)) return undefined
    return { id, name: str(part, nameKey) ?? "", arguments: jsonText(dialect.callArguments(part)) }
  }

  const resultOf = (part: unknown): ToolResultInfo | undefined => {
    if (str(part, "type") !== "tool-result") return undefined
    const callId = str(part, idKey)
    if (callId === undefined || !isRecord(part)) return undefined
    const { isError, text } = dialect.outcome(part)
    return { callId, name: str(part, nameKey), isError, text }
  }

  const collect = <A>(read: (part: unknown) => A | undefined) => (message: unknown): ReadonlyArray<A> => {
    const parts = arr(message, "content")
    if (parts.length === 0) return empty
    let out: Array<A> | undefined
    for (const part of parts) {
      const found = read(part)
      if (found !== undefined) (out ??= []).push(found)
    }
    return out ?? empty
  }

  // Allocates only the `call:`/`approval:` keys it visits: `toolGroups` runs it on every message.
  const forEachLink = (message: unknown, visit: (kind: Link["kind"], id: string) => void): void => {
    const parts = contentOf(message)
    if (!Array.isArray(parts)) return
    for (const part of parts) {
      switch (str(part, "type")) {
        case "tool-call": {
          const id = str(part, idKey)
          if (id !== undefined) {
            visit("call", id)
            visit("ref", `call:${id}`)
          }
          break
        }
        case "tool-result": {
          const id = str(part, idKey)
          if (id !== undefined) visit("result", id)
          break
        }
        case "tool-approval-request": {
          const approvalId = str(part, "approvalId")
          const callId = str(part, "toolCallId")
          if (approvalId !== undefined) visit("ref", `approval:${approvalId}`)
          if (callId !== undefined) visit("ref", `call:${callId}`)
          break
        }
        case "tool-approval-response": {
          const approvalId = str(part, "approvalId")
          if (approvalId !== undefined) visit("ref", `approval:${approvalId}`)
          break
        }
      }
    }
  }

  const approvalOf = (part: unknown): ApprovalInfo | undefined => {
    const type = str(part, "type")
    if (type !== "tool-approval-request" && type !== "tool-approval-response") return undefined
    const approvalId = str(part, "approvalId")
    if (approvalId === undefined) return undefined
    if (type === "tool-approval-response") return { kind: "response", approvalId, approved: flag(part, "approved") }
    const callId = str(part, "toolCallId")
    return callId === undefined ? undefined : { kind: "request", approvalId, callId }
  }

  return makeFormat<M>({
    name: dialect.name,
    role: roleOf,
    forEachLink,
    toolCalls: collect(callOf),
    toolResults: collect(resultOf),
    approvals: collect(approvalOf),
    source: (message) => sourceOf(message, ctxkitOptions(message)),
    isPinned: (message) => flag(message, "pinned") || flag(ctxkitOptions(message), "pinned"),
    isSummary: (message) => {
      if (flag(ctxkitOptions(message), "summary")) return true
      const role = roleOf(message)
      return (role === "user" || role === "system") && isSummaryText(firstText(contentOf(message), TEXT))
    },
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
    ownText: (message) => {
      const content = contentOf(message)
      if (!Array.isArray(content)) return typeof content === "string" ? content : ""
      // A tool message's words are its results' (what `withText` rewrites); any other message's, its text parts.
      const tool = roleOf(message) === "tool"
      const pieces: Array<string> = []
      for (const part of content) {
        const type = str(part, "type")
        if (tool) {
          if (type === "tool-result" && isRecord(part)) pieces.push(dialect.outcome(part).text)
        } else if (type === "text") pieces.push(str(part, "text") ?? "")
      }
      return joinText(pieces)
    },
    attachments: (message) => {
      const content = contentOf(message)
      if (!Array.isArray(content)) return empty
      const out: Array<AttachmentInfo> = []
      for (const part of content) if (isRecord(part)) dialect.attachments(part, out)
      return out.length === 0 ? empty : out
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
            const next = dialect.rewriteResult(part, first ? text : "", message)
            first = false
            return next
          })
        })
      }
      return withFields(message, { content: replaceText(content, text, () => dialect.textPart(text, message)) })
    },
    withResultText: (message, callId, text) => {
      const content = contentOf(message)
      if (!Array.isArray(content)) return message
      let changed = false
      const next = content.map((part) => {
        if (!isRecord(part) || part["type"] !== "tool-result" || part[idKey] !== callId) return part
        changed = true
        return dialect.rewriteResult(part, text, message)
      })
      return changed ? withFields(message, { content: next }) : message
    },
    withoutToolParts: (message, callIds, approvalIds) => {
      const content = contentOf(message)
      if (!Array.isArray(content)) return message
      // Approval responses name only their approval: the approvals to drop are those named in `approvalIds`
      // and those whose request (in this message) is for a dropped call.
      const approvals = new Set<string>(approvalIds)
      for (const part of content) {
        if (str(part, "type") !== "tool-approval-request") continue
        const approvalId = str(part, "approvalId")
        if (approvalId !== undefined && callIds.has(str(part, "toolCallId") ?? "")) approvals.add(approvalId)
      }
      const remaining = content.filter((part) => {
        switch (str(part, "type")) {
          case "tool-call":
          case "tool-result":
            return !callIds.has(str(part, idKey) ?? "")
          case "tool-approval-request":
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
    withoutReasoning: (message) => {
      const content = contentOf(message)
      if (!Array.isArray(content)) return message
      const remaining = content.filter((part) => str(part, "type") !== "reasoning")
      if (remaining.length === content.length) return message
      if (remaining.every(isFiller)) return undefined
      return withFields(message, { content: remaining })
    },
    makeNote: (text, options) => {
      const ctxkit = {
        ...(options.kind === "summary" ? { summary: true } : {}),
        ...(options.id === undefined ? {} : { id: options.id })
      }
      return dialect.note(text, options.role, Object.keys(ctxkit).length === 0 ? undefined : ctxkit)
    },
    makeToolResults: (issuer, calls, text, options) =>
      calls.length === 0 ? empty : [dialect.resultMessage(issuer, calls, text, options.isError)],
    validate: (message, path) => {
      if (!isRecord(message)) return [issue(path, `expected a message object, got ${describeValue(message)}`)]
      const role = message["role"]
      const check = typeof role === "string" ? dialect.checks.get(role) : undefined
      if (check === undefined) {
        return [issue(`${path}.role`, `expected "system", "user", "assistant" or "tool", got ${describeValue(role)}`)]
      }
      return check(message, path)
    }
  })
}
