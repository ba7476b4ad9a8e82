/**
 * `@ctxkit/engine`: the context steps composed into what a harness calls before and after every model request
 * (`ContextEngine.prepare` / `observe`), with every effect — the store, the model, HTTP, the clock — behind an
 * Effect service, so each part is swapped with a `Layer`.
 *
 * @since 0.1.0
 */
export { ContextBudgetExceeded, TokenBudgetExceeded } from "@ctxkit/core"
export {
  ContextEngine,
  type EngineOptions,
  type ObserveInput,
  type ObserveResult,
  type PrepareInput,
  type PrepareResult
} from "./ContextEngine.ts"
export { ContextEvents, type EngineEvent, type EngineStepEvent } from "./ContextEvents.ts"
export { InvalidAppend, InvalidEngineOptions, SessionStoreError, TokenCounterFailed, UnknownSession } from "./Errors.ts"
export { enginePresets, type EngineSettings } from "./Presets.ts"
export { SessionStore } from "./SessionStore.ts"
export { type EffectfulCounter, TokenCounter } from "./TokenCounter.ts"
export { type WindowAnswer, WindowSource } from "./WindowSource.ts"
