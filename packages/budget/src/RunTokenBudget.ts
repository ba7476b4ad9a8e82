/**
 * How many tokens one agent run may spend in total (every request's input and output), before the harness
 * stops it: a multiple of the window, clamped, or a flat default when the window is unknown.
 *
 * @since 0.1.0
 */
import { isTrustedWindow } from "./Window.ts"

/**
 * The run token budget when the window is unknown: 1,000,000 tokens.
 *
 * @example
 * ```ts
 * import { RUN_TOKEN_BUDGET_UNKNOWN_WINDOW } from "@ctxkit/budget/RunTokenBudget"
 *
 * RUN_TOKEN_BUDGET_UNKNOWN_WINDOW // 1_000_000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const RUN_TOKEN_BUDGET_UNKNOWN_WINDOW = 1_000_000

/**
 * Windows per run: a known window gives a run budget of `window × 8` before clamping.
 *
 * @example
 * ```ts
 * import { RUN_TOKEN_BUDGET_WINDOWS } from "@ctxkit/budget/RunTokenBudget"
 *
 * RUN_TOKEN_BUDGET_WINDOWS // 8
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const RUN_TOKEN_BUDGET_WINDOWS = 8

/**
 * The smallest run token budget: 400,000 tokens.
 *
 * @example
 * ```ts
 * import { RUN_TOKEN_BUDGET_MIN } from "@ctxkit/budget/RunTokenBudget"
 *
 * RUN_TOKEN_BUDGET_MIN // 400_000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const RUN_TOKEN_BUDGET_MIN = 400_000

/**
 * The largest run token budget: 8,000,000 tokens.
 *
 * @example
 * ```ts
 * import { RUN_TOKEN_BUDGET_MAX } from "@ctxkit/budget/RunTokenBudget"
 *
 * RUN_TOKEN_BUDGET_MAX // 8_000_000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const RUN_TOKEN_BUDGET_MAX = 8_000_000

/**
 * The default run token budget: 1,000,000 when the window is unknown (or untrusted), else
 * `clamp(window × 8, 400_000, 8_000_000)`.
 *
 * @example
 * ```ts
 * import { runTokenBudget } from "@ctxkit/budget"
 *
 * runTokenBudget(undefined) // 1000000
 * runTokenBudget(4_096) // 400000
 * runTokenBudget(128_000) // 1024000
 * runTokenBudget(2_000_000) // 8000000
 * runTokenBudget(2_000_001) // 1000000: not a trusted window
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const runTokenBudget = (window: number | undefined): number => {
  if (!isTrustedWindow(window)) return RUN_TOKEN_BUDGET_UNKNOWN_WINDOW
  const scaled = Math.floor(window * RUN_TOKEN_BUDGET_WINDOWS)
  return Math.min(RUN_TOKEN_BUDGET_MAX, Math.max(RUN_TOKEN_BUDGET_MIN, scaled))
}
