/**
 * `@ctxkit/budget`: token counting, context windows, the reply reserve, compaction triggers, the usage ledger
 * and calibration. Pure functions only. Exact counters live in subpath modules (`@ctxkit/budget/o200k`,
 * `/cl100k`, `/llama3`, `/qwen3`, `/gemma3`, `/deepseekV3`) so that nobody loads a vocabulary they do not use.
 * The root exports what users call or read; each module (`@ctxkit/budget/Window`, …) also exports its
 * constants and helpers.
 *
 * @since 0.1.0
 */

export { applyCalibration, calibrate, Calibration, uncalibrated } from "./Calibration.ts"
export { charRuleFires, shouldCompactContext } from "./CompactionTriggers.ts"
export { contextBar } from "./ContextBar.ts"
export { CostCache, makeCostCache } from "./CostCache.ts"
export type { BudgetDiagnostic } from "./Diagnostics.ts"
export { effectiveBudget } from "./EffectiveBudget.ts"
export { estimateTokens } from "./EstimateTokens.ts"
export { type ConversationCost, conversationCost, messageCost } from "./MessageCost.ts"
export { requestChars } from "./RequestChars.ts"
export { available, reserve } from "./Reserve.ts"
export { runTokenBudget } from "./RunTokenBudget.ts"
export { approximateCounter, type Counter, type MessageCounter, toCounter, type TokenCounter } from "./TokenCounter.ts"
export { TokenTally } from "./TokenTally.ts"
export { toolCatalogCost } from "./ToolCatalog.ts"
export { promptTokens } from "./Usage.ts"
export { clearUsageLedger, ledgerUsed, makeUsageLedger, recordUsage, UsageLedger } from "./UsageLedger.ts"
export { resolveWindow } from "./Window.ts"
