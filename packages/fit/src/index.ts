/**
 * `@ctxkit/fit`: fitting a conversation into a token budget. `shiftContext` removes the oldest unprotected
 * tool-call groups, whole, until it fits; `fitOrFail` fails with `TokenBudgetExceeded` instead of sending a
 * request over budget; `strategies` are the built-in context strategies (`manual`, `summarize`, `truncate`,
 * `vector-recall`), each a {@link ContextStrategy}. Pure functions on the caller's own messages, in any wire
 * format; depends on `@ctxkit/core`, `@ctxkit/budget` and `effect`.
 *
 * Around them, the strategy registry a harness with plugins resolves ids in: `ContextStrategyRegistry` (an
 * immutable value). The plugin host — the `ContextStrategies` service, `runStrategy`, `runInterceptors`, the
 * `PromptContextAudit` and `fitPrompt` / `preview` — is in `@ctxkit/engine`, where plugins, the store and the
 * network meet.
 *
 * The root exports what users call and read. The diagnostics' classes and the BM25 tuning constants are in their
 * modules (`@ctxkit/fit/Diagnostics`, `@ctxkit/fit/Bm25`, …): the package README lists every one.
 *
 * @since 0.1.0
 */

export { bm25Scores } from "./Bm25.ts"
export type { ContextStrategy } from "./ContextStrategy.ts"
export { ContextStrategyRegistry, type PluginStrategy } from "./ContextStrategyRegistry.ts"
export { type FitDiagnostic, InvalidBudget } from "./Diagnostics.ts"
export type { CountTokens, FitOptions, RelevanceScorer, RemovalCandidate } from "./FitOptions.ts"
export { fitOrFail, type FitOrFailOptions } from "./FitOrFail.ts"
export { type ExcludedMessage, FitReason, type FitResult, type TruncatedBlock } from "./FitResult.ts"
export { type Pruned, pruneMessages, type PruneOptions, type PruneResult, type PruneScope } from "./PruneMessages.ts"
export { shiftContext } from "./ShiftContext.ts"
export { strategies } from "./Strategies.ts"
