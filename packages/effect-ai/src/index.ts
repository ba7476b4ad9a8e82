/**
 * `@ctxkit/effect-ai`: ctxkit inside `effect/ai` — a drop-in `Tokenizer` whose `truncate` is pair-safe, an
 * OpenAI-compatible `LanguageModel` layer, and the engine around every model call.
 *
 * @since 0.1.0
 */
export * as ContextLanguageModel from "./ContextLanguageModel.ts"
export { InvalidEffectAiOption } from "./Errors.ts"
export * as OpenAiCompatible from "./OpenAiCompatible.ts"
export type { OpenAiCompatibleOptions } from "./OpenAiCompatible.ts"
export { tokenizerLayer, type TokenizerLayerOptions } from "./TokenizerLayer.ts"
