/**
 * Token counters: `{ id, approximate, count(text) }`, pure and synchronous. The approximate counter is the
 * default; exact counters live in their own subpath modules (`@ctxkit/budget/o200k`, …) so that nobody pays
 * for a vocabulary they do not use.
 *
 * @since 0.1.0
 */

/**
 * Counts the tokens of a text. Pure and synchronous; `approximate` says whether the count is an estimate
 * (every report and audit that used an approximate counter says so).
 *
 * @example
 * ```ts
 * import type { TokenCounter } from "@ctxkit/budget"
 *
 * const words: TokenCounter = { id: "words-v1", approximate: true, count: (text) => text.split(/\s+/).filter(Boolean).length }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenCounter {
  /** A stable id naming the tokenizer profile (`approximate-chars-v1`, `o200k_base`, `llama3`, …). */
  readonly id: string
  /** Whether counts are estimates rather than the served model's own tokenization. */
  readonly approximate: boolean
  /** The number of tokens of `text`. */
  readonly count: (text: string) => number
}

/**
 * The id of {@link approximateCounter}.
 *
 * @example
 * ```ts
 * import { APPROXIMATE_COUNTER_ID } from "@ctxkit/budget"
 *
 * APPROXIMATE_COUNTER_ID // "approximate-chars-v1"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const APPROXIMATE_COUNTER_ID = "approximate-chars-v1"

/**
 * The default counter: `ceil(length / 4)` UTF-16 code units, reported as approximate. Fast and dependency-free;
 * real tokenizers give 1.00–1.48× this on code and JSON, less on plain English prose.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 *
 * approximateCounter.count("hello world") // 3
 * approximateCounter.approximate // true
 * ```
 *
 * @category counters
 * @since 0.1.0
 */
export const approximateCounter: TokenCounter = {
  id: APPROXIMATE_COUNTER_ID,
  approximate: true,
  count: (text) => Math.ceil(text.length / 4)
}
