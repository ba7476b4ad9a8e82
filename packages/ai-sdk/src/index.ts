/**
 * `@ctxkit/ai-sdk`: ctxkit inside a Vercel AI SDK (`ai` 7) app — `contextPrepareStep`, a `prepareStep` that fits
 * every step's messages into a token budget, pair-safe, approvals included, with the audit of each step.
 *
 * The root exports the function, its options and the audit type. The rest is on module paths:
 * `@ctxkit/ai-sdk/ContextPrepareStep` (the returned function's and its argument's types),
 * `@ctxkit/ai-sdk/Errors` (`InvalidAiSdkOption`) and `@ctxkit/ai-sdk/Diagnostics` (`AiSdkOptionAdjusted`,
 * `AiSdkDiagnostic`). The over-budget refusal is `TokenBudgetExceeded` from `@ctxkit/core`.
 *
 * @since 0.1.0
 */
export { contextPrepareStep, type ContextPrepareStepOptions, type StepFit } from "./ContextPrepareStep.ts"
