/**
 * The plugin host names the engine's steps use, in one place.
 */
export { ContextStrategies } from "../ContextStrategies.ts"
export { fitPrompt, type PreparedPrompt } from "../Preview.ts"
export {
  finalizeAudit,
  normalizeProviderError,
  PromptContextAudit,
  type ProviderErrorCode,
  startAudit
} from "../PromptContextAudit.ts"
export type { StrategyRun } from "../RunStrategy.ts"
