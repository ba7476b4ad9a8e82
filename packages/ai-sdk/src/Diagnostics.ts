/**
 * What `contextPrepareStep` reports besides fitting's own diagnostics: an option that could not be used as
 * given and was replaced by its documented default.
 *
 * @since 0.1.0
 */
import type { BudgetDiagnostic } from "@ctxkit/budget"
import type { FitDiagnostic } from "@ctxkit/fit"
import * as Schema from "effect/Schema"

/**
 * An option of `contextPrepareStep` that has a documented default had a value that cannot be used (a counter
 * that is not a counter, an unknown strategy id or a strategy that threw, a `maxTokens` that is not a number of
 * tokens > 0, an `onFit` that is not a function): the value in `used` was used instead. Reported in every
 * step's `diagnostics`.
 *
 * @example
 * ```ts
 * import { AiSdkOptionAdjusted } from "@ctxkit/ai-sdk/Diagnostics"
 *
 * new AiSdkOptionAdjusted({
 *   option: "strategy",
 *   given: "\"shift\"",
 *   accepted: "\"truncate\", \"summarize\", \"manual\", \"vector-recall\" or a ContextStrategy",
 *   used: "truncate"
 * }).message
 * // "Option strategy = \"shift\" cannot be used; used truncate instead. Set it to \"truncate\", …"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class AiSdkOptionAdjusted extends Schema.TaggedClass<AiSdkOptionAdjusted>("@ctxkit/ai-sdk/AiSdkOptionAdjusted")(
  "AiSdkOptionAdjusted",
  {
    /** Which option. */
    option: Schema.Literals(["counter", "strategy", "maxTokens", "onFit"]),
    /** The value given, described. */
    given: Schema.String,
    /** What is accepted, in words. */
    accepted: Schema.String,
    /** The value used instead, described. */
    used: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Option ${this.option} = ${this.given} cannot be used; used ${this.used} instead. Set it to ${this.accepted}.`
  }
}

/**
 * Everything a step's fit can report: an adjusted option of `contextPrepareStep`, a diagnostic of fitting
 * (`@ctxkit/fit`) or of counting (`@ctxkit/budget`, such as a counter that threw).
 *
 * @example
 * ```ts
 * import type { AiSdkDiagnostic } from "@ctxkit/ai-sdk/Diagnostics"
 *
 * const messages = (diagnostics: ReadonlyArray<AiSdkDiagnostic>) => diagnostics.map((d) => d.message)
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type AiSdkDiagnostic = AiSdkOptionAdjusted | FitDiagnostic | BudgetDiagnostic
