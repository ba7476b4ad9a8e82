/**
 * `@ctxkit/fit`: fitting a conversation into a token budget. `shiftContext` removes the oldest unprotected
 * tool-call groups, whole, until it fits; `fitOrFail` fails with `TokenBudgetExceeded` instead of sending a
 * request over budget; `strategies` are the built-in context strategies (`manual`, `summarize`, `truncate`,
 * `vector-recall`), each a {@link ContextStrategy}. Pure functions on the caller's own messages, in any wire
 * format; depends on `@ctxkit/core`, `@ctxkit/budget` and `effect`.
 *
 * Around them, what a harness with plugins needs: `ContextStrategyRegistry` (an immutable value; the
 * `ContextStrategies` service holds one), `runStrategy` (the host's guard: a plugin strategy cannot bypass the
 * budget), `runInterceptors` (plugin interceptors, then a mandatory recount and final fit), `PromptContextAudit`
 * (`startAudit`, `finalizeAudit`), and `fitPrompt` / `preview` (every stage in one call).
 *
 * The root exports what users call and read. The diagnostics' classes, the host's diagnostics, the audit's parts
 * and the BM25 tuning constants are in their modules (`@ctxkit/fit/Diagnostics`, `@ctxkit/fit/HostDiagnostics`,
 * `@ctxkit/fit/PromptContextAudit`, `@ctxkit/fit/Bm25`, …): the package README lists every one.
 *
 * @since 0.1.0
 */

export { bm25Scores } from "./Bm25.ts"
export { ContextStrategies } from "./ContextStrategies.ts"
export type { ContextStrategy } from "./ContextStrategy.ts"
export { ContextStrategyRegistry, type PluginStrategy } from "./ContextStrategyRegistry.ts"
export { type FitDiagnostic, InvalidBudget } from "./Diagnostics.ts"
export type { CountTokens, FitOptions, RelevanceScorer, RemovalCandidate } from "./FitOptions.ts"
export { fitOrFail, type FitOrFailOptions } from "./FitOrFail.ts"
export { type ExcludedMessage, FitReason, type FitResult, type TruncatedBlock } from "./FitResult.ts"
export type { HostDiagnostic } from "./HostDiagnostics.ts"
export { fitPrompt, type PreparedPrompt, preview, type PromptOptions } from "./Preview.ts"
export { AuditBlock, finalizeAudit, PromptContextAudit, startAudit } from "./PromptContextAudit.ts"
export { type Pruned, pruneMessages, type PruneOptions, type PruneResult, type PruneScope } from "./PruneMessages.ts"
export {
  type InterceptorContext,
  type InterceptorRun,
  type PromptInterceptor,
  runInterceptors
} from "./RunInterceptors.ts"
export { runStrategy, type StrategyRun } from "./RunStrategy.ts"
export { shiftContext } from "./ShiftContext.ts"
export { strategies } from "./Strategies.ts"
