/**
 * `@ctxkit/engine`: the context steps composed into what a harness calls before and after every model request
 * (`ContextEngine.prepare` / `observe`), with every effect — the store, the model, HTTP, the clock — behind an
 * Effect service, so each part is swapped with a `Layer`.
 *
 * @since 0.1.0
 */
export {
  ContextEngine,
  type EngineOptions,
  type ObserveInput,
  type ObserveResult,
  type PrepareInput,
  type PrepareResult
} from "./ContextEngine.ts"
export { ContextEvents, type EngineEvent } from "./ContextEvents.ts"
export { ContextStrategies } from "./ContextStrategies.ts"
export { discoverWindow } from "./DiscoverWindow.ts"
export { InvalidAppend, InvalidEngineOptions, SessionStoreError, TokenCounterFailed, UnknownSession } from "./Errors.ts"
export { enginePresets } from "./Presets.ts"
export { fitPrompt, preview } from "./Preview.ts"
export { AuditBlock, finalizeAudit, PromptContextAudit, startAudit } from "./PromptContextAudit.ts"
export { type PromptInterceptor, runInterceptors } from "./RunInterceptors.ts"
export { runStrategy } from "./RunStrategy.ts"
export { SessionStore } from "./SessionStore.ts"
export { Summarizer } from "./Summarizer.ts"
export { TokenCounter } from "./TokenCounter.ts"
export { catalogWindow } from "./WindowCatalog.ts"
export { type WindowAnswer, WindowSource } from "./WindowSource.ts"
