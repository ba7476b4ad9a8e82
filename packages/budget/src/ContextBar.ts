/**
 * The context bar a UI shows each turn (`ctx 638/4.1k (16%)`): tokens used, and against a known window the
 * total and the percentage.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { effectiveBudget } from "./EffectiveBudget.ts"
import { isCount, MAX_COUNT } from "./internal/settings.ts"
import { isTrustedWindow } from "./Window.ts"

/**
 * A context bar value: `used` tokens and, with a trusted window, the `total` and `percent` (rounded to a whole
 * percent; above 100 when over). `basis` is `window`, or `unknown` when there is no trusted window.
 *
 * @example
 * ```ts
 * import { ContextBar } from "@ctxkit/budget/ContextBar"
 *
 * new ContextBar({ used: 638, total: 4_096, percent: 16, basis: "window" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class ContextBar extends Schema.Class<ContextBar>("@ctxkit/budget/ContextBar")({
  /** Tokens used. */
  used: Schema.Number,
  /** The window, when trusted. */
  total: Schema.optionalKey(Schema.Number),
  /** `round(used / total × 100)`, when there is a total. */
  percent: Schema.optionalKey(Schema.Number),
  /** Whether there is a window to measure against. */
  basis: Schema.Literals(["window", "unknown"])
}) {}

/**
 * The context bar for `used` tokens against `window`. An untrusted window (unknown, zero, negative, NaN, above
 * 2,000,000) gives basis `unknown` with no total; a `used` that is NaN or negative shows as 0.
 *
 * @example
 * ```ts
 * import { contextBar } from "@ctxkit/budget"
 *
 * contextBar({ used: 638, window: 4_096 }) // { used: 638, total: 4096, percent: 16, basis: "window" }
 * contextBar({ used: 638, window: undefined }) // { used: 638, basis: "unknown" }
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const contextBar = (input: { readonly used: number; readonly window?: number | undefined }): ContextBar => {
  const given: unknown = input?.used
  const used = isCount(given) ? given : typeof given === "number" && given > MAX_COUNT ? MAX_COUNT : 0
  const window: unknown = input?.window
  if (!isTrustedWindow(window)) return new ContextBar({ used, basis: "unknown" })
  const total = effectiveBudget(window).total
  return new ContextBar({ used, total, percent: Math.round((used / total) * 100), basis: "window" })
}

const compact = (n: number): string => {
  if (n < 1_000) return String(Math.round(n))
  if (n < 1_000_000) return `${Number((n / 1_000).toFixed(n < 10_000 ? 1 : 0))}k`
  return `${Number((n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0))}M`
}

/**
 * One line for a terminal: `ctx 638/4.1k (16%)`, or `ctx 638 (window unknown)`.
 *
 * @example
 * ```ts
 * import { contextBar } from "@ctxkit/budget"
 * import { formatContextBar } from "@ctxkit/budget/ContextBar"
 *
 * formatContextBar(contextBar({ used: 638, window: 4_096 })) // "ctx 638/4.1k (16%)"
 * formatContextBar(contextBar({ used: 52_300, window: undefined })) // "ctx 52k (window unknown)"
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const formatContextBar = (bar: ContextBar): string =>
  bar.total === undefined
    ? `ctx ${compact(bar.used)} (window unknown)`
    : `ctx ${compact(bar.used)}/${compact(bar.total)} (${bar.percent ?? 0}%)`
