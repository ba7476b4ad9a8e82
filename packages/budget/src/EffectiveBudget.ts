/**
 * The token budget to measure against: the window when it is trusted, otherwise the character budget at
 * about 4 characters per token.
 *
 * @since 0.1.0
 */
import { DEFAULT_CHARS, isPositive } from "./internal/settings.ts"
import { isTrustedWindow } from "./Window.ts"

/**
 * The character budget assumed when the window is unknown: 800,000 characters ≈ 200,000 tokens (the budget
 * OpenCode assumes for custom providers), so a local server that reports no window gets a ~200k-token budget.
 * A trusted window always overrides it.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONTEXT_CHARS } from "@ctxkit/budget/EffectiveBudget"
 *
 * DEFAULT_MAX_CONTEXT_CHARS // 800_000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_CONTEXT_CHARS: number = DEFAULT_CHARS

/**
 * Characters per token of the approximate rule (`ceil(length / 4)`), used wherever characters stand in for
 * tokens.
 *
 * @example
 * ```ts
 * import { CHARS_PER_TOKEN } from "@ctxkit/budget/EffectiveBudget"
 *
 * CHARS_PER_TOKEN // 4
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CHARS_PER_TOKEN = 4

/**
 * A budget in tokens and its basis: a trusted `window`, or the character budget (`chars`).
 *
 * @inline
 * @since 0.1.0
 */
export interface EffectiveBudget {
  /** Tokens: the window, or `max(1, round(maxContextChars / 4))`. */
  readonly total: number
  /** Where `total` comes from. */
  readonly basis: "window" | "chars"
}

/**
 * The budget in tokens: a trusted window gives `{ total: window, basis: "window" }` (rounded down to a whole
 * token); anything else (unknown, zero, negative, NaN, above 2,000,000) gives
 * `{ total: max(1, round(maxContextChars / 4)), basis: "chars" }`. `maxContextChars` defaults to 800,000
 * (≈ 200,000 tokens); a value that is not a finite number > 0 is replaced by the default.
 *
 * @example
 * ```ts
 * import { effectiveBudget } from "@ctxkit/budget"
 *
 * effectiveBudget(32_768) // { total: 32768, basis: "window" }
 * effectiveBudget(undefined) // { total: 200000, basis: "chars" }
 * effectiveBudget(5_000_000, 400_000) // { total: 100000, basis: "chars" }: 5M is not trusted
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const effectiveBudget = (window: number | undefined, maxContextChars?: number): EffectiveBudget => {
  if (isTrustedWindow(window)) return { total: Math.max(1, Math.floor(window)), basis: "window" }
  const chars = isPositive(maxContextChars) ? maxContextChars : DEFAULT_CHARS
  return { total: Math.max(1, Math.round(chars / CHARS_PER_TOKEN)), basis: "chars" }
}
