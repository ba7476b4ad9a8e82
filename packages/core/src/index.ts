/**
 * `@ctxkit/core`: the canonical message, the wire-format lenses, tool-call groups, pair repair and the
 * errors shared by every ctxkit package. Pure functions only; depends on `effect` alone.
 *
 * The root exports what users call or read. The content-part schemas, the lenses' part types and the option
 * types stay reachable through their modules (`@ctxkit/core/Message`, `@ctxkit/core/formats/AiSdk`, …).
 *
 * @since 0.1.0
 */

export { conversationMessages } from "./ConversationMessages.ts"
export { decodeConversation } from "./DecodeConversation.ts"
export {
  AwaitingExecution,
  DanglingCall,
  NotAConversation,
  OrphanApprovalResponse,
  OrphanResult,
  ReusedCallId
} from "./Diagnostics.ts"
export {
  CompactionFailed,
  ContextBudgetExceeded,
  ConversationIssue,
  InvalidConversation,
  TokenBudgetExceeded,
  UnknownStrategy
} from "./Errors.ts"
export { formats } from "./Formats.ts"
export type { AiSdkMessage } from "./formats/AiSdk.ts"
export type { AnthropicMessage } from "./formats/Anthropic.ts"
export { detectFormat, detectMessageFormat } from "./formats/Auto.ts"
export type { EffectAiMessage } from "./formats/EffectAi.ts"
export type { LangChainMessage } from "./formats/LangChain.ts"
export type { OpenAiChatMessage } from "./formats/OpenAiChat.ts"
export type { OpenAiResponsesItem } from "./formats/OpenAiResponses.ts"
export { Message } from "./Message.ts"
export { type FormatInput, isMessageFormat, makeFormat, type MessageFormat, type Role } from "./MessageFormat.ts"
export {
  ApprovalDropped,
  CallDropped,
  CallStubbed,
  MessageDropped,
  OrphanDropped,
  repairPairs,
  UNKNOWN_OUTCOME_TEXT
} from "./RepairPairs.ts"
export { type ToolGroups, toolGroups } from "./ToolGroups.ts"
export { withProtection } from "./WithProtection.ts"
