/**
 * The plugin host names the engine uses, in one place: the host is moving from `@ctxkit/fit` into this package,
 * and when it lands only this file changes.
 */
export { ContextStrategies } from "@ctxkit/fit"
export { finalizeAudit, fitPrompt, PromptContextAudit, startAudit } from "@ctxkit/fit"
export type { PreparedPrompt, StrategyRun } from "@ctxkit/fit"
export { normalizeProviderError, type ProviderErrorCode } from "@ctxkit/fit/PromptContextAudit"
