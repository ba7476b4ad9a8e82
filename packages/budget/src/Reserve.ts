/**
 * The reply reserve: room left free in the window for the answer, which is also the `max_tokens` sent. It
 * prevents the loss that detection cannot see: a prompt that fits, but prompt plus reply overflows, makes the
 * server shift the context during generation while reporting the prompt whole.
 *
 * @since 0.1.0
 */
import { effectiveBudget } from "./EffectiveBudget.ts"
import { isPositive } from "./internal/settings.ts"

/**
 * The largest share of the window the reply may take: 25%.
 *
 * @example
 * ```ts
 * import { RESERVE_FRACTION } from "@ctxkit/budget/Reserve"
 *
 * RESERVE_FRACTION // 0.25
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const RESERVE_FRACTION = 0.25

/**
 * Tokens reserved for the reply: `max(1, min(maxTokens, floor(window × 0.25)))`. It is also the `max_tokens`
 * to send. `maxTokens` defaults to no cap (a value that is not a finite number > 0 counts as no cap). An
 * untrusted window (unknown, zero, negative, NaN, above 2,000,000) is replaced by the effective budget of the
 * character budget (`maxContextChars`, default 800,000 ≈ 200,000 tokens), so the result is always a whole
 * number ≥ 1.
 *
 * @example
 * ```ts
 * import { reserve } from "@ctxkit/budget"
 *
 * reserve(4_096, 100_000) // 1024
 * reserve(16_000, 100_000) // 4000
 * reserve(32_768, 100_000) // 8192
 * reserve(32_768, 2_000) // 2000
 * reserve(Number.NaN, 16_000) // 16000: the window is unknown, the 200,000-token char budget applies
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const reserve = (window: number | undefined, maxTokens?: number, maxContextChars?: number): number => {
  const total = effectiveBudget(window, maxContextChars).total
  const share = Math.floor(total * RESERVE_FRACTION)
  const cap = isPositive(maxTokens) ? Math.floor(maxTokens) : share
  return Math.max(1, Math.min(cap, share))
}

/**
 * Tokens available for the input: `max(1, window − reserve(window, maxTokens))`. Every threshold other than
 * the window rule of Alisio's compaction design is a fraction of this. An untrusted window is replaced by the effective
 * budget of the character budget, as in {@link reserve}.
 *
 * @example
 * ```ts
 * import { available } from "@ctxkit/budget"
 *
 * available(4_096, 100_000) // 3072
 * available(32_768, 2_000) // 30768
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const available = (window: number | undefined, maxTokens?: number, maxContextChars?: number): number => {
  const total = effectiveBudget(window, maxContextChars).total
  return Math.max(1, total - reserve(window, maxTokens, maxContextChars))
}
