/**
 * `@ctxkit/engine`: the context steps composed into what a harness calls before and after every model request
 * (`ContextEngine.prepare` / `observe`), with every effect — the store, the model, HTTP, the clock — behind an
 * Effect service, so each part is swapped with a `Layer`.
 *
 * @since 0.1.0
 */
export { ContextStrategies } from "./ContextStrategies.ts"
export {
  discoverWindow,
  type DiscoverWindowOptions,
  DISCOVERY_REQUEST_TIMEOUT,
  DISCOVERY_TIMEOUT
} from "./DiscoverWindow.ts"
export type { HostDiagnostic } from "./HostDiagnostics.ts"
export { fitPrompt, type PreparedPrompt, preview, type PromptOptions } from "./Preview.ts"
export { AuditBlock, finalizeAudit, PromptContextAudit, startAudit } from "./PromptContextAudit.ts"
export { type InterceptorRun, type PromptInterceptor, runInterceptors } from "./RunInterceptors.ts"
export { runStrategy, type StrategyRun } from "./RunStrategy.ts"
export { Summarizer } from "./Summarizer.ts"
export { type CatalogWindow, catalogWindow, WINDOW_CATALOG_VERSION } from "./WindowCatalog.ts"
export { type WindowAnswer, WindowSource } from "./WindowSource.ts"
