/**
 * Knowing the window: which value to believe (configuration, the server's catalog, a probe, the fallback), and
 * which values not to believe at all.
 *
 * @since 0.1.0
 */
import { describeValue } from "@ctxkit/core/Describe"
import { WindowFallback, WindowIgnored, type WindowSource } from "./Diagnostics.ts"

/**
 * The largest window ctxkit believes, in tokens. A larger value (or zero, a negative, NaN, infinity) is
 * treated as unknown: a declared window of 10M would make `window × threshold` hide real pressure.
 *
 * @example
 * ```ts
 * import { isTrustedWindow, WINDOW_TRUST_LIMIT } from "@ctxkit/budget/Window"
 *
 * WINDOW_TRUST_LIMIT // 2_000_000
 * isTrustedWindow(2_000_000) // true
 * isTrustedWindow(2_000_001) // false
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const WINDOW_TRUST_LIMIT = 2_000_000

/**
 * Whether a window value can be believed: a number with `0 < window <= 2_000_000`.
 *
 * @example
 * ```ts
 * import { isTrustedWindow } from "@ctxkit/budget/Window"
 *
 * isTrustedWindow(128_000) // true
 * isTrustedWindow(0) // false
 * isTrustedWindow(Number.NaN) // false
 * isTrustedWindow(undefined) // false
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const isTrustedWindow = (window: unknown): window is number =>
  typeof window === "number" && window > 0 && window <= WINDOW_TRUST_LIMIT

/**
 * The candidate windows, in tokens, in the order they are believed. `fallback` is what to assume when none of
 * the others is known: a number (the local-harness overflow guide assumes 4,096 and warns) or `undefined`
 * (unknown: budgets use the character budget).
 *
 * @inline
 * @since 0.1.0
 */
export interface WindowCandidates {
  /** The caller's setting (`--context-window`, a profile value). */
  readonly configured?: number | undefined
  /** What the server's model catalog says (`GET /v1/models` where it reports one). */
  readonly catalog?: number | undefined
  /** What probing the running server found (Ollama `/api/ps`, llama.cpp `/props`). */
  readonly probe?: number | undefined
  /** What to assume when none of the above is known; `undefined` for unknown. */
  readonly fallback: number | undefined
}

/**
 * The window to use, where it came from, whether it is trusted, and the warnings to show: an ignored absurd
 * value, and a fallback (always warned).
 *
 * @inline
 * @since 0.1.0
 */
export interface ResolvedWindow {
  /** The window in tokens, or `undefined` when unknown. Always trusted when present. */
  readonly window: number | undefined
  /** Where it came from. */
  readonly source: WindowSource
  /** Whether `window` is present (and so trusted). */
  readonly trusted: boolean
  /** Why a value was ignored, and that the fallback was used. */
  readonly warnings: ReadonlyArray<WindowIgnored | WindowFallback>
}

/**
 * Resolves the context window: the first known value among `configured`, `catalog` and `probe`, in that order,
 * else `fallback`, saying where it came from. A value that is not trusted (`0 < window <= 2_000_000`) is
 * ignored with a `WindowIgnored` warning, as if unknown. Falling back always adds a `WindowFallback` warning:
 * erring low only brings clearing forward, erring high disables it.
 *
 * @example
 * ```ts
 * import { resolveWindow } from "@ctxkit/budget"
 *
 * resolveWindow({ catalog: 32_768, fallback: 4_096 }) // { window: 32768, source: "catalog", trusted: true, warnings: [] }
 *
 * const assumed = resolveWindow({ catalog: 10_000_000, fallback: 4_096 })
 * assumed.window // 4096
 * assumed.source // "fallback"
 * assumed.warnings.map((w) => w._tag) // ["WindowIgnored", "WindowFallback"]
 *
 * resolveWindow({ fallback: undefined }).window // undefined: budgets use the character budget
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const resolveWindow = (candidates: WindowCandidates): ResolvedWindow => {
  const given: Partial<WindowCandidates> = typeof candidates === "object" && candidates !== null ? candidates : {}
  const warnings: Array<WindowIgnored | WindowFallback> = []
  const order: ReadonlyArray<readonly [Exclude<WindowSource, "fallback">, unknown]> = [
    ["config", given.configured],
    ["catalog", given.catalog],
    ["probe", given.probe]
  ]
  for (const [source, value] of order) {
    if (value === undefined || value === null) continue
    if (isTrustedWindow(value)) return { window: value, source, trusted: true, warnings }
    warnings.push(new WindowIgnored({ source, window: describeValue(value) }))
  }
  const fallback: unknown = given.fallback
  if (isTrustedWindow(fallback)) {
    warnings.push(new WindowFallback({ window: fallback }))
    return { window: fallback, source: "fallback", trusted: true, warnings }
  }
  if (fallback !== undefined && fallback !== null) {
    warnings.push(new WindowIgnored({ source: "fallback", window: describeValue(fallback) }))
  }
  warnings.push(new WindowFallback({}))
  return { window: undefined, source: "fallback", trusted: false, warnings }
}
