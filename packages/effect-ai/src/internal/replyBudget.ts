/**
 * The reply budget of the current request, set around one model call by `ContextLanguageModel` and read by
 * `OpenAiCompatible` as `max_tokens` (it lives here so that the provider does not depend on the engine).
 *
 * @internal
 */
import * as Context from "effect/Context"

/** `max_tokens` for the request being made, when the context engine chose one. */
export const ReplyBudget = Context.Reference<number | undefined>("@ctxkit/effect-ai/ReplyBudget", {
  defaultValue: () => undefined
})
