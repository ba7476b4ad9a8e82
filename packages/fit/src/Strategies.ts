/**
 * The built-in context strategies, by id: `manual`, `summarize`, `truncate`, `vector-recall`.
 *
 * @since 0.1.0
 */
import type { FormatInput, MessageFormat } from "@ctxkit/core"
import type { ContextStrategy } from "./ContextStrategy.ts"
import type { CountTokens, FitOptions } from "./FitOptions.ts"
import type { FitResult } from "./FitResult.ts"
import { manualFit, summarizeFit, truncateFit, vectorRecallFit } from "./internal/strategies.ts"

/**
 * The built-in strategies, by id (ids sorted). Each is a {@link ContextStrategy}: a pure `fit` with the inputs
 * and outputs of `shiftContext`, the same protection, whole-group removal and budget guarantees, and the same
 * options (`compress` included).
 *
 * - `truncate` — drops the oldest unprotected groups until it fits (exactly `shiftContext`).
 * - `summarize` — truncates; if anything was excluded, inserts a local extractive summary of the excluded
 *   history just before the current request, as a note made by the format (`makeNote(text, { role: "user",
 *   kind: "summary" })`). Its first line is `[Summary of earlier context]`, then one line `role: text` per
 *   excluded message in input order (whitespace collapsed; a text over 160 characters becomes its first 104,
 *   ` … `, its last 40); the body is cut to 72% of its length until the summary's text costs at most
 *   `max(8, min(128, floor(budget × 0.35)))` tokens. More groups are removed to make room for it; the summary
 *   itself goes last (a `SummaryOmitted` diagnostic then says why). Reports `summaryCreated`.
 * - `vector-recall` — removes memory and lorebook blocks (system messages from those sources) first, lowest
 *   relevance first (`meta.relevance` in [0, 1], else the `relevance` scorer's score over the current request —
 *   BM25 by default — divided by the highest score), then the oldest history (`removalPriority` applies there).
 * - `manual` — first excludes every group with a message marked `meta.manualExcluded: true` (reason `manual`;
 *   a group with a protected message stays), then truncates if more room is needed, reporting
 *   `manualFallback: true`.
 *
 * @example
 * ```ts
 * import { strategies } from "@ctxkit/fit"
 *
 * Object.keys(strategies) // ["manual", "summarize", "truncate", "vector-recall"]
 *
 * const messages = [
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "Tell me everything about the build. ".repeat(10) },
 *   { role: "assistant", content: "It uses tsc -b and vitest. ".repeat(10) },
 *   { role: "user", content: "And the docs?" }
 * ]
 * const result = strategies.summarize.fit(messages, (text) => Math.ceil(text.length / 4), 100)
 * result.summaryCreated // true
 * result.inserted[0]
 * // { role: "user", content: "[Summary of earlier context]\nuser: Tell me everything about the build. Tell me…" }
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const strategies: {
  readonly manual: ContextStrategy & { readonly id: "manual"; readonly fit: BuiltinFit }
  readonly summarize: ContextStrategy & { readonly id: "summarize"; readonly fit: BuiltinFit }
  readonly truncate: ContextStrategy & { readonly id: "truncate"; readonly fit: BuiltinFit }
  readonly "vector-recall": ContextStrategy & { readonly id: "vector-recall"; readonly fit: BuiltinFit }
} = {
  manual: Object.freeze({ id: "manual", fit: manualFit }),
  summarize: Object.freeze({ id: "summarize", fit: summarizeFit }),
  truncate: Object.freeze({ id: "truncate", fit: truncateFit }),
  "vector-recall": Object.freeze({ id: "vector-recall", fit: vectorRecallFit })
}

/**
 * A built-in strategy's `fit`: a {@link ContextStrategy}'s, and with a `format` given it gives back the caller's own
 * message type (LangChain `BaseMessage`s with `formats.langchain`, AI SDK `ModelMessage`s with `formats.aiSdk`),
 * as `shiftContext` does.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { formats } from "@ctxkit/core"
 * import { strategies } from "@ctxkit/fit"
 * import type { BuiltinFit } from "@ctxkit/fit/Strategies"
 *
 * interface ChatMessage { role: "system" | "user" | "assistant"; content: string }
 * const fit: BuiltinFit = strategies.truncate.fit
 * const mine: Array<ChatMessage> = [{ role: "user", content: "hi" }]
 * const kept: ReadonlyArray<ChatMessage> = fit(mine, approximateCounter, 100, { format: formats.openaiChat }).kept
 * ```
 *
 * @category plugins
 * @since 0.1.0
 * @inline
 */
export interface BuiltinFit {
  // A plugin's own `fit` passes its `FitOptions<M>` through: that signature comes first, so that the callbacks
  // it adds (`removalPriority`) are typed from it.
  <M>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: FitOptions<M> | undefined
  ): FitResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options: FitOptions<F> & { readonly format: MessageFormat<F> }
  ): FitResult<M>
}

/**
 * The id of a built-in strategy.
 *
 * @example
 * ```ts
 * import type { BuiltinStrategyId } from "@ctxkit/fit/Strategies"
 *
 * const id: BuiltinStrategyId = "vector-recall"
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export type BuiltinStrategyId = keyof typeof strategies
