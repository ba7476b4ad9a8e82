/**
 * `@ctxkit/core`: the canonical message, the wire-format lenses, tool-call groups, pair repair and the
 * errors shared by every ctxkit package. Pure functions only; depends on `effect` alone.
 *
 * @since 0.1.0
 */

export * from "./DecodeConversation.ts"
export * from "./Errors.ts"
export * from "./Formats.ts"
export * from "./formats/AiSdk.ts"
export * from "./formats/Anthropic.ts"
export { detectFormat, detectMessageFormat } from "./formats/Auto.ts"
export * from "./formats/Canonical.ts"
export * from "./formats/EffectAi.ts"
export * from "./formats/LangChain.ts"
export * from "./formats/OpenAiChat.ts"
export * from "./formats/OpenAiResponses.ts"
export { checkpointHeader, isSummaryText } from "./internal/summaryText.ts"
export * from "./Message.ts"
export * from "./MessageFormat.ts"
export * from "./RepairPairs.ts"
export * from "./ToolGroups.ts"
