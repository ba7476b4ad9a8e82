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
 * @since 0.1.0
 */

export * from "./Bm25.ts"
export * from "./ContextStrategies.ts"
export * from "./ContextStrategy.ts"
export * from "./ContextStrategyRegistry.ts"
export * from "./Diagnostics.ts"
export * from "./FitOptions.ts"
export * from "./FitOrFail.ts"
export * from "./FitResult.ts"
export * from "./HostDiagnostics.ts"
export * from "./Preview.ts"
export * from "./PromptContextAudit.ts"
export * from "./PruneMessages.ts"
export * from "./RunInterceptors.ts"
export * from "./RunStrategy.ts"
export * from "./ShiftContext.ts"
export * from "./Strategies.ts"
