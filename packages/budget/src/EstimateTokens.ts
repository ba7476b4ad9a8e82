/**
 * Counting one text with any counter, safely: a counter that throws or returns garbage never crashes the count
 * and never yields NaN — the text is counted approximately and the result says so.
 *
 * @since 0.1.0
 */
import type { BudgetDiagnostic } from "./Diagnostics.ts"
import { counterId } from "./internal/counting.ts"
import type { Counter } from "./TokenCounter.ts"
import { TokenTally } from "./TokenTally.ts"

/**
 * A token count and how much to trust it: the counter used, whether the count is approximate (an approximate
 * counter, or a fallback after the counter failed), and what went wrong.
 *
 * @example
 * ```ts
 * import { estimateTokens } from "@ctxkit/budget"
 * import type { TokenEstimate } from "@ctxkit/budget/EstimateTokens"
 *
 * const estimate: TokenEstimate = estimateTokens("hello world")
 * estimate.tokens // 3
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenEstimate {
  /** The number of tokens: a finite integer ≥ 0. */
  readonly tokens: number
  /** The id of the counter asked. */
  readonly counter: string
  /** True when the counter is approximate or some text fell back to the approximate count. */
  readonly approximate: boolean
  /** What went wrong, if anything (a failing counter, an unreadable tool catalog, an adjusted setting). */
  readonly diagnostics: ReadonlyArray<BudgetDiagnostic>
}

/**
 * Counts the tokens of one text with `counter` (default: the approximate counter, `ceil(length / 4)`; a plain
 * `(text) => number` is read by `toCounter`).
 * A counter that throws, or returns NaN, a negative, an infinite or a non-number value, does not crash the
 * count: the text is counted approximately, `approximate` is true, and a `CounterFailed` diagnostic names the
 * counter and the fix. A fractional count is rounded up. Anything that is not a string counts as empty.
 *
 * @example
 * ```ts
 * import { estimateTokens, type TokenCounter } from "@ctxkit/budget"
 *
 * estimateTokens("const x = 1;").tokens // 3
 *
 * const broken: TokenCounter = { id: "broken", approximate: false, count: () => Number.NaN }
 * const estimate = estimateTokens("const x = 1;", broken)
 * estimate.tokens // 3 (the approximate count)
 * estimate.diagnostics[0]?._tag // "CounterFailed"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const estimateTokens = (text: string, counter?: Counter): TokenEstimate => {
  const tally = new TokenTally(counter)
  const tokens = tally.count(typeof text === "string" ? text : "")
  return { tokens, counter: counterId(tally.counter), approximate: tally.approximate, diagnostics: tally.diagnostics() }
}
