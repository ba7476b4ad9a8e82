/**
 * The lens over OpenAI Responses API input items: messages, client-side tool calls and their outputs,
 * MCP calls and approvals, reasoning items, item references and provider-side tool calls.
 *
 * @since 0.1.0
 */
import { describeValue } from "../Describe.ts"
import type { ConversationIssue } from "../Errors.ts"
import { attachment, measureBase64, measureUrl } from "../internal/attachments.ts"
import { issue } from "../internal/issues.ts"
import {
  arr,
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
  type ApprovalInfo,
  type AttachmentInfo,
  type Link,
  makeFormat,
  type MessageFormat,
  type Role,
  type ToolCallInfo,
  type ToolResultInfo
} from "../MessageFormat.ts"

/**
 * One Responses API input item, structurally. A message has a `role` (`user`, `assistant`, `system`,
 * `developer`) and a `content` (a string or a list of `input_text`, `output_text`, `input_image`,
 * `input_file`, `refusal` parts), with an optional `type: "message"` and `id`. Every other item has a
 * `type`: client-side calls (`function_call`, `custom_tool_call`, `computer_call`, `local_shell_call`,
 * `shell_call`, `apply_patch_call`) carry a `call_id` that their `*_output` item repeats; `mcp_call` is a
 * call and its result in one item; `mcp_approval_request` / `mcp_approval_response` are linked by the
 * request's `id`; `reasoning` belongs to the item after it; `item_reference`, `web_search_call`,
 * `file_search_call`, `image_generation_call` and `code_interpreter_call` stand alone. Other fields travel
 * untouched.
 *
 * @example
 * ```ts
 * import type { OpenAiResponsesItem } from "@ctxkit/core"
 *
 * const items: ReadonlyArray<OpenAiResponsesItem> = [
 *   { role: "user", content: "How big is the repo?" },
 *   { type: "function_call", call_id: "call_du", name: "disk_usage", arguments: "{\"path\":\".\"}" },
 *   { type: "function_call_output", call_id: "call_du", output: "48M\t." }
 * ]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export interface OpenAiResponsesItem {
  readonly type?: string
  readonly role?: string
  readonly content?: unknown
  readonly id?: string
  readonly call_id?: string
  readonly name?: string
  readonly arguments?: string
  readonly output?: unknown
  readonly [key: string]: unknown
}

/** Content part types whose `text` field is message text. */
const TEXT: ReadonlySet<string> = new Set(["input_text", "output_text", "text"])
/** Message roles the API accepts. */
const ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system", "developer"])
/** Tool calls run by OpenAI: self-contained, no output item answers them. */
const PROVIDER_SIDE: ReadonlySet<string> = new Set([
  "web_search_call",
  "file_search_call",
  "image_generation_call",
  "code_interpreter_call"
])
/** Client-side call types and the tool name they stand for when the item names none. */
const CALL_NAMES: ReadonlyMap<string, string> = new Map([
  ["function_call", "function"],
  ["custom_tool_call", "custom"],
  ["computer_call", "computer"],
  ["local_shell_call", "local_shell"],
  ["shell_call", "shell"],
  ["apply_patch_call", "apply_patch"]
])
/** Fields holding a call's input, in the order they are looked for. */
const CALL_INPUTS: ReadonlyArray<string> = ["action", "actions", "operation"]

type Kind =
  | "message"
  | "call"
  | "output"
  | "mcp_call"
  | "approval_request"
  | "approval_response"
  | "reasoning"
  | "other"

const typeOf = (item: unknown): string | undefined => str(item, "type")

const kindOf = (item: unknown): Kind => {
  if (!isRecord(item)) return "other"
  const type = typeOf(item)
  if (type === undefined) return "role" in item ? "message" : "other"
  switch (type) {
    case "message":
      return "message"
    case "mcp_call":
      return "mcp_call"
    case "mcp_approval_request":
      return "approval_request"
    case "mcp_approval_response":
      return "approval_response"
    case "reasoning":
      return "reasoning"
  }
  if (PROVIDER_SIDE.has(type)) return "other"
  if (type.endsWith("_output")) return "output"
  if (type.endsWith("_call")) return "call"
  return "other"
}

/** The call id an output item answers (`local_shell_call_output` names it `id`). */
const outputCallId = (item: unknown): string | undefined =>
  str(item, "call_id") ?? (typeOf(item) === "local_shell_call_output" ? str(item, "id") : undefined)

const callOf = (item: unknown): ToolCallInfo | undefined => {
  const id = str(item, "call_id")
  if (id === undefined) return undefined
  const type = typeOf(item) ?? ""
  const name = str(item, "name") ?? CALL_NAMES.get(type) ?? type.replace(/_call$/, "")
  let args = str(item, "arguments") ?? str(item, "input")
  if (args === undefined && isRecord(item)) {
    for (const key of CALL_INPUTS) {
      if (item[key] !== undefined) {
        args = jsonText(item[key])
        break
      }
    }
  }
  return { id, name, arguments: args ?? "" }
}

const mcpCallOf = (item: unknown): ToolCallInfo | undefined => {
  const id = str(item, "id")
  if (id === undefined) return undefined
  return { id, name: str(item, "name") ?? "", arguments: str(item, "arguments") ?? "" }
}

/** Text of a message's content: the string, or its text and refusal parts. */
const partsText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  let out = ""
  let first = true
  for (const part of content) {
    const type = typeOf(part)
    const text = type === "refusal"
      ? str(part, "refusal")
      : type !== undefined && TEXT.has(type)
      ? str(part, "text")
      : undefined
    if (text === undefined) continue
    out = first ? text : out + "\n" + text
    first = false
  }
  return out
}

/** Text of one piece of tool output: a text part, a shell run (`stdout`, `stderr`), or nothing. */
const pieceText = (piece: unknown): string => {
  if (!isRecord(piece)) return ""
  const type = typeOf(piece)
  if (type !== undefined && TEXT.has(type)) return str(piece, "text") ?? ""
  return joinText([str(piece, "stdout") ?? "", str(piece, "stderr") ?? ""])
}

/** Text of an output value: a string, a list of parts or shell runs, or a record. */
const outputText = (output: unknown): string => {
  if (typeof output === "string") return output
  if (Array.isArray(output)) return joinText(output.map(pieceText))
  return pieceText(output)
}

/** A failed shell run: its `outcome` is a non-zero exit or a timeout. */
const failedRun = (piece: unknown): boolean => {
  const outcome = rec(piece, "outcome")
  if (outcome === undefined) return false
  if (str(outcome, "type") === "timeout") return true
  const code = outcome["exit_code"]
  return typeof code === "number" && code !== 0
}

const outputIsError = (item: unknown): boolean =>
  str(item, "status") === "failed" || arr(item, "output").some(failedRun)

const resultOf = (item: unknown): ToolResultInfo | undefined => {
  const callId = outputCallId(item)
  if (callId === undefined) return undefined
  const type = typeOf(item) ?? ""
  const name = CALL_NAMES.get(type.replace(/_output$/, ""))
  const text = outputText(isRecord(item) ? item["output"] : undefined)
  const isError = outputIsError(item)
  // Only typed tools say which tool they answer; a function or custom output does not.
  return type === "function_call_output" || type === "custom_tool_call_output" || name === undefined
    ? { callId, isError, text }
    : { callId, name, isError, text }
}

const mcpError = (item: unknown): unknown => isRecord(item) ? item["error"] : undefined

const mcpResultOf = (item: unknown): ToolResultInfo | undefined => {
  const id = str(item, "id")
  if (id === undefined) return undefined
  const error = mcpError(item)
  const errorText = error === undefined || error === null ? "" : jsonText(error)
  return {
    callId: id,
    name: str(item, "name") ?? "",
    isError: error !== undefined && error !== null,
    text: joinText([str(item, "output") ?? "", errorText])
  }
}

/**
 * An output value carrying `text` instead, or `undefined` when the output is not text (a computer
 * screenshot): a string becomes `text`; text parts collapse into one; shell runs collapse into one run.
 */
const rewriteOutput = (output: unknown, text: string): unknown => {
  if (output === undefined || output === null || typeof output === "string") return text
  if (!Array.isArray(output)) return undefined
  const run = output.find((piece) => isRecord(piece) && ("stdout" in piece || "stderr" in piece))
  if (run !== undefined) return [withFields(run, { stdout: text, stderr: "" })]
  return replaceContentText(output, text, TEXT, "input_text")
}

/** A message's content with its text parts collapsed into one carrying `text`. */
const rewriteContent = (item: unknown, text: string): unknown => {
  const content = isRecord(item) ? item["content"] : undefined
  if (!Array.isArray(content)) return text
  const out: Array<unknown> = []
  let placed = false
  for (const part of content) {
    const type = typeOf(part)
    if (type === "refusal" || (type !== undefined && TEXT.has(type))) {
      if (!placed) out.push(withFields(part, type === "refusal" ? { refusal: text } : { text }))
      placed = true
    } else {
      out.push(part)
    }
  }
  if (!placed) {
    out.push(
      str(item, "role") === "assistant" ? { type: "output_text", text, annotations: [] } : { type: "input_text", text }
    )
  }
  return out
}

/** The item's output (or, for an `mcp_call` that failed, its error) replaced by `text`. */
const withOutput = (item: OpenAiResponsesItem, text: string): OpenAiResponsesItem => {
  if (kindOf(item) === "mcp_call") {
    const error = mcpError(item)
    return str(item, "output") === undefined && error !== undefined && error !== null
      ? withFields(item, { error: text })
      : withFields(item, { output: text })
  }
  const output = rewriteOutput(item.output, text)
  return output === undefined ? item : withFields(item, { output })
}

/** Audio formats as MIME types (`mp3` is `audio/mpeg`). */
const audioMime = (format: string | undefined): string | undefined =>
  format === undefined || format.length === 0 ? undefined : format === "mp3" ? "audio/mpeg" : `audio/${format}`

/** An image URL: a string, or `{ url }` as some clients write it. */
const urlOf = (value: unknown): unknown => typeof value === "string" ? value : str(value, "url")

/** An image, file or audio part of a message or of a tool output. */
const partAttachment = (part: unknown): AttachmentInfo | undefined => {
  switch (typeOf(part)) {
    case "input_image":
    case "computer_screenshot": {
      const url = measureUrl(urlOf(isRecord(part) ? part["image_url"] : undefined))
      return attachment([url.mime], url.bytes, part)
    }
    case "input_file": {
      const data = measureBase64(str(part, "file_data"))
      return attachment([data.mime], data.bytes, part)
    }
    case "input_audio": {
      const audio = rec(part, "input_audio")
      const data = measureBase64(str(audio, "data"))
      return attachment([audioMime(str(audio, "format")), data.mime], data.bytes, part)
    }
    default:
      return undefined
  }
}

const partsAttachments = (parts: ReadonlyArray<unknown>): ReadonlyArray<AttachmentInfo> => {
  let out: Array<AttachmentInfo> | undefined
  for (const part of parts) {
    const found = partAttachment(part)
    if (found !== undefined) (out ??= []).push(found)
  }
  return out ?? empty
}

/** A generated image: its base64 `result`, `output_format` and `size` (`"1024x1536"`). */
const generatedImage = (item: unknown): ReadonlyArray<AttachmentInfo> => {
  const result = str(item, "result")
  if (result === undefined || result.length === 0) return empty
  const format = str(item, "output_format")
  const dims = /^(\d+)x(\d+)$/.exec(str(item, "size") ?? "")
  const data = measureBase64(result)
  return [
    attachment(
      [format === undefined ? undefined : format === "jpg" ? "image/jpeg" : `image/${format}`, data.mime],
      data.bytes,
      dims === null ? undefined : { width: Number(dims[1]), height: Number(dims[2]) }
    )
  ]
}

const reasoningText = (item: unknown): string => {
  const pieces: Array<string> = []
  for (const part of arr(item, "summary")) pieces.push(str(part, "text") ?? "")
  for (const part of arr(item, "content")) pieces.push(str(part, "text") ?? "")
  return joinText(pieces)
}

/** What a provider-side call puts in front of the model: queries, code, logs, file excerpts. */
const providerText = (item: unknown): string => {
  const action = rec(item, "action")
  const pieces: Array<string> = [str(action, "query") ?? "", str(item, "code") ?? ""]
  for (const query of arr(item, "queries")) if (typeof query === "string") pieces.push(query)
  for (const found of arr(item, "results")) pieces.push(str(found, "text") ?? "")
  for (const output of arr(item, "outputs")) pieces.push(str(output, "logs") ?? "")
  return joinText(pieces)
}

const callText = (call: ToolCallInfo | undefined): string => call === undefined ? "" : call.name + " " + call.arguments

const roleOf = (item: unknown): Role => {
  const kind = kindOf(item)
  if (kind === "message") {
    switch (str(item, "role")) {
      case "system":
      case "developer":
        return "system"
      case "assistant":
        return "assistant"
      default:
        return "user"
    }
  }
  if (kind === "output" || kind === "approval_response") return "tool"
  return typeOf(item) === undefined ? "user" : "assistant"
}

const approvalKey = (id: string): Link => ({ kind: "ref", key: `approval:${id}` })

/**
 * The approval an `mcp_approval_request` or `mcp_approval_response` carries. The request is its own call (the
 * `mcp_call` that runs it comes later and names the request), so the request's id is both the approval id and
 * the call id it reports: nothing waits on a separate call.
 */
const approvalsOf = (item: unknown): ReadonlyArray<ApprovalInfo> => {
  switch (kindOf(item)) {
    case "approval_request": {
      const id = str(item, "id")
      return id === undefined ? empty : [{ kind: "request", approvalId: id, callId: id }]
    }
    case "approval_response": {
      const id = str(item, "approval_request_id")
      return id === undefined ? empty : [{ kind: "response", approvalId: id, approved: flag(item, "approve") }]
    }
    default:
      return empty
  }
}

/** Output item types that answer a call of the issuer's type, for `makeToolResults`. */
const answer = (
  issuerType: string | undefined,
  callId: string,
  text: string,
  isError: boolean
): OpenAiResponsesItem => {
  switch (issuerType) {
    case "custom_tool_call":
      return { type: "custom_tool_call_output", call_id: callId, output: text }
    case "local_shell_call":
      return { type: "local_shell_call_output", id: callId, output: text }
    case "shell_call":
      return {
        type: "shell_call_output",
        call_id: callId,
        output: [{
          stdout: isError ? "" : text,
          stderr: isError ? text : "",
          outcome: { type: "exit", exit_code: isError ? 1 : 0 }
        }]
      }
    case "apply_patch_call":
      return {
        type: "apply_patch_call_output",
        call_id: callId,
        status: isError ? "failed" : "completed",
        output: text
      }
    default:
      // A computer call is answered by a screenshot, which a text stub cannot be: it gets a function output.
      return { type: "function_call_output", call_id: callId, output: text }
  }
}

/** Client-side call and output types whose `call_id` is required. */
const NEEDS_CALL_ID: ReadonlySet<string> = new Set([
  ...CALL_NAMES.keys(),
  "function_call_output",
  "custom_tool_call_output",
  "computer_call_output",
  "shell_call_output",
  "apply_patch_call_output"
])

const validateItem = (item: unknown, path: string): ReadonlyArray<ConversationIssue> => {
  if (!isRecord(item)) return [issue(path, `expected an input item object, got ${describeValue(item)}`)]
  const issues: Array<ConversationIssue> = []
  const type = item["type"]
  if (type !== undefined && typeof type !== "string") {
    issues.push(issue(`${path}.type`, `expected string, got ${describeValue(type)}`))
    return issues
  }
  const need = (key: string, expected: "string" | "boolean" | "array"): void => {
    const value = item[key]
    const ok = expected === "array" ? Array.isArray(value) : typeof value === expected
    if (!ok) {
      issues.push(
        issue(`${path}.${key}`, `expected ${expected === "array" ? "an array" : expected}, got ${describeValue(value)}`)
      )
    }
  }
  if (type === undefined || type === "message") {
    const role = item["role"]
    if (typeof role !== "string" || !ROLES.has(role)) {
      issues.push(
        issue(`${path}.role`, `expected "user", "assistant", "system" or "developer", got ${describeValue(role)}`)
      )
    }
    const content = item["content"]
    if (typeof content !== "string" && !Array.isArray(content)) {
      issues.push(issue(`${path}.content`, `expected string or an array of parts, got ${describeValue(content)}`))
    } else if (Array.isArray(content)) {
      content.forEach((part, i) => {
        if (typeof str(part, "type") !== "string") {
          issues.push(
            issue(
              `${path}.content[${i}].type`,
              `expected string, got ${describeValue(isRecord(part) ? part["type"] : part)}`
            )
          )
        }
      })
    }
    return issues
  }
  if (type === "local_shell_call_output") {
    if (outputCallId(item) === undefined) {
      issues.push(issue(`${path}.call_id`, `expected string, got ${describeValue(item["call_id"])}`))
    }
    return issues
  }
  if (NEEDS_CALL_ID.has(type)) need("call_id", "string")
  switch (type) {
    case "function_call":
    case "custom_tool_call":
      need("name", "string")
      break
    case "mcp_call":
    case "mcp_approval_request":
      need("id", "string")
      need("name", "string")
      break
    case "mcp_approval_response":
      need("approval_request_id", "string")
      need("approve", "boolean")
      break
    case "reasoning":
      need("summary", "array")
      break
    case "item_reference":
      need("id", "string")
      break
  }
  return issues
}

/**
 * The Responses API input-item format. Calls link to outputs by `call_id` (`function_call` ↔
 * `function_call_output`, and likewise for custom, computer, local shell, shell and apply-patch calls);
 * an `mcp_call` is a call and its result at once; `mcp_approval_request` ↔ `mcp_approval_response` (and
 * the `mcp_call` that names the request) share the ref `approval:<request id>` and are approvals, as in the AI
 * SDK: a response whose request is gone is an orphan (`toolGroups` reports it, `repairPairs` drops it), and the
 * request stands for its own call, so a pending or approved request is never dangling; a `reasoning` item
 * travels with the item after it. `system` and `developer` messages are system messages (protected);
 * call items are `assistant`, output items and approval responses `tool`. `pinned: true` (a harness-side
 * field, or `meta.pinned`) pins an item. Outputs say nothing of failure except a failed apply-patch or
 * shell run and an `mcp_call` error, so `isError` is `false` elsewhere.
 *
 * An item's own text is a message's text and refusal parts, or an output item's output text; calls,
 * `mcp_call`s, approvals and reasoning have none. Attachments are `input_image`, `input_file` and
 * `input_audio` parts of messages and outputs, computer screenshots, and generated images, measured from
 * their `data:` URLs and base64 data (`0` bytes for a plain URL or a `file_id`). Items carry no summary
 * marker: a user, system or developer message is a summary when its text opens with a compaction checkpoint
 * header (`[Checkpoint of N earlier messages, generated by context compaction]`) or
 * `[Summary of earlier context]`.
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * const items = [
 *   { role: "user", content: "Is the build green?" },
 *   { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Check CI first." }] },
 *   { type: "function_call", call_id: "call_ci", name: "ci_status", arguments: "{}" },
 *   { type: "function_call_output", call_id: "call_ci", output: "passing" }
 * ]
 * formats.openaiResponses.role(items[3]!) // "tool"
 * toolGroups(items, formats.openaiResponses).groups // [[0], [1, 2, 3]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const openaiResponses: MessageFormat<OpenAiResponsesItem> = makeFormat<OpenAiResponsesItem>({
  name: "openaiResponses",
  role: roleOf,
  links: (item): ReadonlyArray<Link> => {
    switch (kindOf(item)) {
      case "call": {
        const id = str(item, "call_id")
        return id === undefined ? empty : [{ kind: "call", id }]
      }
      case "output": {
        const id = outputCallId(item)
        return id === undefined ? empty : [{ kind: "result", id }]
      }
      case "mcp_call": {
        const id = str(item, "id")
        const approval = str(item, "approval_request_id")
        const out: Array<Link> = id === undefined ? [] : [{ kind: "call", id }, { kind: "result", id }]
        if (approval !== undefined) out.push(approvalKey(approval))
        return out
      }
      case "approval_request": {
        const id = str(item, "id")
        return id === undefined ? empty : [approvalKey(id)]
      }
      case "approval_response": {
        const id = str(item, "approval_request_id")
        return id === undefined ? empty : [approvalKey(id)]
      }
      default:
        return empty
    }
  },
  toolCalls: (item) => {
    const kind = kindOf(item)
    const call = kind === "call" ? callOf(item) : kind === "mcp_call" ? mcpCallOf(item) : undefined
    return call === undefined ? empty : [call]
  },
  toolResults: (item) => {
    const kind = kindOf(item)
    const result = kind === "output" ? resultOf(item) : kind === "mcp_call" ? mcpResultOf(item) : undefined
    return result === undefined ? empty : [result]
  },
  approvals: approvalsOf,
  attachesToNext: (item) => kindOf(item) === "reasoning",
  isPinned: (item) => flag(item, "pinned") || flag(rec(item, "meta"), "pinned"),
  source: (item) => sourceOf(item, rec(item, "meta")),
  id: (item) => str(item, "id"),
  meta: (item) => rec(item, "meta"),
  text: (item) => {
    switch (kindOf(item)) {
      case "message":
        return partsText(isRecord(item) ? item["content"] : undefined)
      case "call":
        return callText(callOf(item))
      case "output":
        return resultOf(item)?.text ?? ""
      case "mcp_call":
        return joinText([callText(mcpCallOf(item)), mcpResultOf(item)?.text ?? ""])
      case "approval_request":
        return callText(mcpCallOf(item))
      case "approval_response":
        return str(item, "reason") ?? ""
      case "reasoning":
        return reasoningText(item)
      default:
        return PROVIDER_SIDE.has(typeOf(item) ?? "") ? providerText(item) : ""
    }
  },
  ownText: (item) => {
    switch (kindOf(item)) {
      case "message":
        return partsText(isRecord(item) ? item["content"] : undefined)
      case "output":
        // What `withText` rewrites: the output, whether or not the item names its call.
        return outputText(isRecord(item) ? item["output"] : undefined)
      default:
        // Calls, `mcp_call`s (their output is a tool result), approvals and reasoning have no words of their own.
        return ""
    }
  },
  attachments: (item) => {
    switch (kindOf(item)) {
      case "message":
        return partsAttachments(arr(item, "content"))
      case "output": {
        const output = isRecord(item) ? item["output"] : undefined
        if (Array.isArray(output)) return partsAttachments(output)
        const found = partAttachment(output)
        return found === undefined ? empty : [found]
      }
      default:
        return typeOf(item) === "image_generation_call" ? generatedImage(item) : empty
    }
  },
  isSummary: (item) => {
    if (kindOf(item) !== "message" || roleOf(item) === "assistant") return false
    return isSummaryText(firstText(isRecord(item) ? item["content"] : undefined, TEXT))
  },
  withText: (item, text) => {
    switch (kindOf(item)) {
      case "message":
        return withFields(item, { content: rewriteContent(item, text) })
      case "output":
      case "mcp_call":
        return withOutput(item, text)
      case "reasoning":
        // Raw reasoning text parts collapse into the summary, like text parts into one.
        return withFields(item, {
          summary: text.length === 0 ? [] : [{ type: "summary_text", text }],
          content: undefined
        })
      default:
        // Calls, approvals, references and provider-side calls have no text of their own to replace.
        return item
    }
  },
  withResultText: (item, callId, text) => {
    const kind = kindOf(item)
    if (kind === "output" && outputCallId(item) === callId) return withOutput(item, text)
    if (kind === "mcp_call" && str(item, "id") === callId) return withOutput(item, text)
    return item
  },
  withoutToolParts: (item, callIds, approvalIds) => {
    switch (kindOf(item)) {
      case "call":
        return callIds.has(str(item, "call_id") ?? "") ? undefined : item
      case "output":
        return callIds.has(outputCallId(item) ?? "") ? undefined : item
      case "mcp_call":
        return callIds.has(str(item, "id") ?? "") ? undefined : item
      case "approval_request":
        return approvalIds?.has(str(item, "id") ?? "") === true ? undefined : item
      case "approval_response":
        return approvalIds?.has(str(item, "approval_request_id") ?? "") === true ? undefined : item
      default:
        return item
    }
  },
  withoutReasoning: (item) => kindOf(item) === "reasoning" ? undefined : item,
  makeNote: (text, options) => ({
    role: options.role,
    content: text,
    ...(options.id === undefined ? {} : { id: options.id })
  }),
  makeToolResults: (issuer, calls, text, options) =>
    calls.map((call) => answer(typeOf(issuer), call.id, text, options.isError)),
  validate: validateItem
})
