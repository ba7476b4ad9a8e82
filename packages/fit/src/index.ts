/**
 * `@ctxkit/fit`: fitting a conversation into a token budget. `shiftContext` removes the oldest unprotected
 * tool-call groups, whole, until it fits; `fitOrFail` fails with `TokenBudgetExceeded` instead of sending a
 * request over budget; `strategies` are the built-in context strategies (`manual`, `summarize`, `truncate`,
 * `vector-recall`), each a {@link ContextStrategy}. Pure functions on the caller's own messages, in any wire
 * format; depends on `@ctxkit/core`, `@ctxkit/budget` and `effect`.
 *
 * @since 0.1.0
 */

export * from "./Bm25.ts"
export * from "./ContextStrategy.ts"
export * from "./Diagnostics.ts"
export * from "./FitOptions.ts"
export * from "./FitOrFail.ts"
export * from "./FitResult.ts"
export * from "./ShiftContext.ts"
export * from "./Strategies.ts"
