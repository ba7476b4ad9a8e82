/**
 * Every module of @ctxkit/budget, the root's names and the module-level ones (constants, helpers), for the tests
 * that try them all.
 */
export * from "../src/Calibration.ts"
export * from "../src/CompactionTriggers.ts"
export * from "../src/ContextBar.ts"
export * from "../src/CostCache.ts"
export * from "../src/Diagnostics.ts"
export * from "../src/EffectiveBudget.ts"
export * from "../src/EstimateTokens.ts"
export * from "../src/MessageCost.ts"
export * from "../src/RequestChars.ts"
export * from "../src/Reserve.ts"
export * from "../src/RunTokenBudget.ts"
export * from "../src/TokenCounter.ts"
export * from "../src/TokenTally.ts"
export * from "../src/ToolCatalog.ts"
export * from "../src/Usage.ts"
export * from "../src/UsageLedger.ts"
export * from "../src/Window.ts"
