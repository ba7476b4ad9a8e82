/**
 * The `auto` format: detects each message's wire format from its field names and reads it with that
 * format's lens, so that mixed or unknown inputs work without configuration.
 *
 * @since 0.1.0
 */
import { LANGCHAIN_TYPES } from "../internal/langchainTypes.ts"
import { isRecord } from "../internal/read.ts"
import type { MessageFormat } from "../MessageFormat.ts"
import { aiSdk } from "./AiSdk.ts"
import { anthropic } from "./Anthropic.ts"
import { canonical } from "./Canonical.ts"
import { effectAi } from "./EffectAi.ts"
import { langchain } from "./LangChain.ts"
import { openaiChat } from "./OpenAiChat.ts"
import { openaiResponses } from "./OpenAiResponses.ts"

type AnyFormat = MessageFormat<unknown>

const ANTHROPIC_PARTS: ReadonlySet<string> = new Set([
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "mcp_tool_use",
  "mcp_tool_result",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "container_upload",
  "search_result",
  "document"
])

const RESPONSES_PARTS: ReadonlySet<string> = new Set(["input_text", "output_text", "input_image", "input_file"])

const SDK_PARTS: ReadonlySet<string> = new Set([
  "tool-call",
  "tool-result",
  "tool-approval-request",
  "tool-approval-response"
])

const EFFECT_PART_MARKER = "~effect/ai/Prompt/Part"
const EFFECT_MESSAGE_MARKER = "~effect/ai/Prompt/Message"

/**
 * A message whose parts (text, reasoning, approvals) read the same in the AI SDK and `effect/ai`: it is read as
 * `aiSdk`, and it does not decide a whole conversation's format between the two.
 */
const SDK_ALIKE: unique symbol = Symbol("ctxkit/SdkAlike")
type Detected = AnyFormat | typeof SDK_ALIKE

/**
 * Fields of the Messages API's response object (`{ id, type: "message", role, model, content, stop_reason,
 * usage }`), which harnesses such as Claude Code store as the assistant turn. No OpenAI Responses item has them.
 */
const ANTHROPIC_RESPONSE_FIELDS: ReadonlyArray<string> = ["stop_reason", "stop_sequence", "usage", "model"]

/** The format of one message's content parts, when they tell. */
const fromParts = (content: ReadonlyArray<unknown>): Detected | undefined => {
  let sawSdkPart = false
  for (const part of content) {
    if (!isRecord(part)) continue
    const type = part["type"]
    if (typeof type !== "string") continue
    if (EFFECT_PART_MARKER in part) return effectAi as AnyFormat
    if (type === "reasoning") {
      // A reasoning part is AI SDK or effect/ai (whose encoded parts may carry `options`); a later tool part
      // can still tell them apart, so keep looking.
      if ("options" in part) return effectAi as AnyFormat
      sawSdkPart = true
      continue
    }
    if (SDK_PARTS.has(type)) {
      if ("toolCallId" in part && !("approvalId" in part)) return aiSdk as AnyFormat
      if ("params" in part || "isFailure" in part || ("id" in part && !("toolCallId" in part))) {
        return effectAi as AnyFormat
      }
      if ("providerOptions" in part) return aiSdk as AnyFormat
      if ("options" in part) return effectAi as AnyFormat
      sawSdkPart = true
      continue
    }
    if (ANTHROPIC_PARTS.has(type) || type.endsWith("_tool_result")) return anthropic as AnyFormat
    if (RESPONSES_PARTS.has(type)) return openaiResponses as AnyFormat
    if (type === "image_url" || type === "input_audio") return openaiChat as AnyFormat
  }
  // Approval and reasoning parts alone look the same in the AI SDK and effect/ai, and both read them the same way.
  return sawSdkPart ? SDK_ALIKE : undefined
}

/**
 * A `type: "message"` object: an Anthropic response object when its content holds Anthropic blocks or it has
 * the response object's fields, else an OpenAI Responses message item.
 */
const fromMessageObject = (message: Readonly<Record<string, unknown>>): AnyFormat => {
  const content = message["content"]
  if (Array.isArray(content) && fromParts(content) === (anthropic as AnyFormat)) return anthropic as AnyFormat
  for (const field of ANTHROPIC_RESPONSE_FIELDS) if (field in message) return anthropic as AnyFormat
  return openaiResponses as AnyFormat
}

/**
 * The wire format of one message, told from its field names: `lc`/`kwargs` or a LangChain `type`
 * (`human`, `ai`, …) → `langchain`; `type: "message"` with Anthropic blocks or the Messages API's response fields
 * (`model`, `stop_reason`, `usage`) → `anthropic`; any other item `type` or `call_id` → `openaiResponses`; `tool_calls` or
 * `tool_call_id` → `openaiChat`; `toolCalls` or `toolCallId` → `canonical`; content parts `tool_use` /
 * `tool_result` (`tool_use_id`) → `anthropic`; parts `tool-call` / `tool-result` with `toolCallId`, or
 * `reasoning` parts → `aiSdk`, with `id`/`params`/`isFailure` (or the `effect/ai` part marker) → `effectAi`. A plain `{ role, content }` message reads the same
 * in every format and is read as `canonical`.
 *
 * @example
 * ```ts
 * import { detectMessageFormat } from "@ctxkit/core"
 *
 * detectMessageFormat({ role: "tool", tool_call_id: "c1", content: "ok" }).name // "openaiChat"
 * detectMessageFormat({ type: "function_call_output", call_id: "c1", output: "ok" }).name // "openaiResponses"
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const detectMessageFormat = (message: unknown): MessageFormat<unknown> => {
  const detected = detect(message)
  return detected === SDK_ALIKE ? aiSdk as AnyFormat : detected
}

const detect = (message: unknown): Detected => {
  if (!isRecord(message)) return canonical as AnyFormat
  const type = message["type"]
  if (typeof type === "string") {
    if (message["lc"] === 1 && "kwargs" in message) return langchain as AnyFormat
    if (LANGCHAIN_TYPES.has(type) && !("role" in message)) return langchain as AnyFormat
    if (type === "constructor" && "kwargs" in message) return langchain as AnyFormat
    if (type === "message") return fromMessageObject(message)
    return openaiResponses as AnyFormat
  }
  if ("call_id" in message) return openaiResponses as AnyFormat
  if ("tool_calls" in message || "tool_call_id" in message) return openaiChat as AnyFormat
  if ("toolCalls" in message || "toolCallId" in message) return canonical as AnyFormat
  const role = message["role"]
  if (role === "developer" || role === "function") return openaiChat as AnyFormat
  // Message-level options carry ctxkit's own flags (pinned, summary) in both formats.
  if (EFFECT_MESSAGE_MARKER in message || "options" in message) return effectAi as AnyFormat
  if ("providerOptions" in message) return aiSdk as AnyFormat
  const content = message["content"]
  if (Array.isArray(content)) return fromParts(content) ?? (canonical as AnyFormat)
  return canonical as AnyFormat
}

/**
 * The wire format of a whole conversation: the one its messages agree on (messages that read the same in
 * every format do not vote, and messages that read the same in the AI SDK and `effect/ai` do not choose between
 * the two), `canonical` when nothing tells, and `auto` when they disagree.
 *
 * @example
 * ```ts
 * import { detectFormat } from "@ctxkit/core"
 *
 * detectFormat([
 *   { role: "user", content: "hi" },
 *   { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: {} }] }
 * ]).name // "anthropic"
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const detectFormat = (messages: ReadonlyArray<unknown>): MessageFormat<unknown> => {
  let found: AnyFormat | undefined
  let sdkAlike = false
  for (const message of messages) {
    const format = detect(message)
    if (format === SDK_ALIKE) {
      sdkAlike = true
      continue
    }
    if (format === (canonical as AnyFormat) && !hasCanonicalFields(message)) continue
    if (found === undefined) found = format
    else if (found !== format) return auto
  }
  if (found === undefined) return sdkAlike ? aiSdk as AnyFormat : canonical as AnyFormat
  return !sdkAlike || found === (aiSdk as AnyFormat) || found === (effectAi as AnyFormat) ? found : auto
}

const hasCanonicalFields = (message: unknown): boolean =>
  isRecord(message) &&
  ("toolCalls" in message || "toolCallId" in message || "summary" in message || "source" in message)

/**
 * The `auto` format: every lens function first detects the message's own format
 * ({@link detectMessageFormat}) and delegates to it, so conversations in any supported format — or a mix —
 * are read correctly with no configuration. It is the default `format` of every ctxkit function.
 *
 * Notes it creates are plain `{ role, content }` messages, which every supported API accepts; such a note
 * is read as `canonical`, so a summary note is told by its text: a compaction checkpoint header
 * (`[Checkpoint of N earlier messages, generated by context compaction]`) or `[Summary of earlier context]`
 * on its first line. When you know your format, pass it: detection costs a few property checks per message.
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * toolGroups([
 *   { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: {} }] },
 *   { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }] }
 * ], formats.auto).groups // [[0, 1]]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const auto: MessageFormat<unknown> = {
  name: "auto",
  role: (m) => detectMessageFormat(m).role(m),
  links: (m) => detectMessageFormat(m).links(m),
  forEachLink: (m, visit) => detectMessageFormat(m).forEachLink(m, visit),
  toolCalls: (m) => detectMessageFormat(m).toolCalls(m),
  toolResults: (m) => detectMessageFormat(m).toolResults(m),
  approvals: (m) => detectMessageFormat(m).approvals(m),
  attachesToNext: (m) => detectMessageFormat(m).attachesToNext(m),
  isPinned: (m) => detectMessageFormat(m).isPinned(m),
  isProtected: (m) => detectMessageFormat(m).isProtected(m),
  isSummary: (m) => detectMessageFormat(m).isSummary(m),
  source: (m) => detectMessageFormat(m).source(m),
  id: (m) => detectMessageFormat(m).id(m),
  meta: (m) => detectMessageFormat(m).meta(m),
  text: (m) => detectMessageFormat(m).text(m),
  ownText: (m) => detectMessageFormat(m).ownText(m),
  attachments: (m) => detectMessageFormat(m).attachments(m),
  withText: (m, text) => detectMessageFormat(m).withText(m, text),
  withResultText: (m, callId, text) => detectMessageFormat(m).withResultText(m, callId, text),
  withoutToolParts: (m, callIds, approvalIds) => detectMessageFormat(m).withoutToolParts(m, callIds, approvalIds),
  withoutReasoning: (m) => detectMessageFormat(m).withoutReasoning(m),
  makeNote: (text, options) => ({ role: options.role, content: text }),
  makeToolResults: (issuer, calls, text, options) =>
    detectMessageFormat(issuer).makeToolResults(issuer, calls, text, options),
  validate: (m, path) => detectMessageFormat(m).validate(m, path)
}
