/**
 * `@ctxkit/budget`: token counting, context windows, the reply reserve, compaction triggers, the usage ledger
 * and calibration. Pure functions only. Exact counters live in subpath modules (`@ctxkit/budget/o200k`,
 * `/cl100k`, `/llama3`, `/qwen3`, `/gemma3`, `/deepseekV3`) so that nobody loads a vocabulary they do not use.
 *
 * @since 0.1.0
 */

export * from "./Calibration.ts"
export * from "./CompactionTriggers.ts"
export * from "./ContextBar.ts"
export * from "./CostCache.ts"
export * from "./Diagnostics.ts"
export * from "./EffectiveBudget.ts"
export * from "./EstimateTokens.ts"
export * from "./MessageCost.ts"
export * from "./RequestChars.ts"
export * from "./Reserve.ts"
export * from "./RunTokenBudget.ts"
export * from "./TokenCounter.ts"
export * from "./TokenFloor.ts"
export * from "./ToolCatalog.ts"
export * from "./Usage.ts"
export * from "./UsageLedger.ts"
export * from "./Window.ts"
