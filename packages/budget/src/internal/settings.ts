import { describeValue } from "@ctxkit/core/Describe"
import { type BudgetDiagnostic, MeasureInvalid, SettingAdjusted } from "../Diagnostics.ts"

/** Default compaction threshold (fraction of a known window). */
export const DEFAULT_THRESHOLD = 0.85
/** Lowest allowed threshold. */
export const MIN_THRESHOLD = 0.1
/** Highest allowed threshold. */
export const MAX_THRESHOLD = 0.99
/** Default character budget. */
export const DEFAULT_CHARS = 800_000
/** Default per-message overhead, in tokens. */
export const DEFAULT_OVERHEAD = 4

/**
 * The largest count believed: `Number.MAX_SAFE_INTEGER`. Above it, integers are no longer exact, and sums of a
 * few such values could overflow to Infinity.
 */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER

/** A number in [0, MAX_COUNT]. */
export const isCount = (value: unknown): value is number =>
  typeof value === "number" && value >= 0 && value <= MAX_COUNT

/** A number in (0, MAX_COUNT]. */
export const isPositive = (value: unknown): value is number =>
  typeof value === "number" && value > 0 && value <= MAX_COUNT

/** The threshold to use: the default when absent, clamped into [0.1, 0.99] (reported) when out of range. */
export const threshold = (given: unknown, report: Array<BudgetDiagnostic>): number => {
  if (given === undefined) return DEFAULT_THRESHOLD
  let used: number
  if (typeof given !== "number" || Number.isNaN(given)) used = DEFAULT_THRESHOLD
  else if (given < MIN_THRESHOLD) used = MIN_THRESHOLD
  else if (given > MAX_THRESHOLD) used = MAX_THRESHOLD
  else return given
  report.push(new SettingAdjusted({ setting: "threshold", given: describeValue(given), used }))
  return used
}

/** The character budget to use: the default when absent or not a finite number > 0 (reported). */
export const maxContextChars = (given: unknown, report: Array<BudgetDiagnostic>): number => {
  if (given === undefined) return DEFAULT_CHARS
  if (isPositive(given)) return given
  report.push(new SettingAdjusted({ setting: "maxContextChars", given: describeValue(given), used: DEFAULT_CHARS }))
  return DEFAULT_CHARS
}

/** The per-message overhead to use: the default when absent or not a finite number ≥ 0 (reported). */
export const overhead = (given: unknown, report: Array<BudgetDiagnostic>): number => {
  if (given === undefined) return DEFAULT_OVERHEAD
  if (isCount(given)) return given
  report.push(
    new SettingAdjusted({ setting: "perMessageOverhead", given: describeValue(given), used: DEFAULT_OVERHEAD })
  )
  return DEFAULT_OVERHEAD
}

/**
 * A measurement: itself when it is a number in [0, MAX_COUNT]; MAX_COUNT when it is larger (Infinity
 * included: more than anything is still more, so triggers stay monotone); else `fallback`. Reported unless
 * it was usable as given.
 */
export const measure = (
  name: MeasureInvalid["measure"],
  given: unknown,
  fallback: number,
  report: Array<BudgetDiagnostic>
): number => {
  if (isCount(given)) return given
  const used = typeof given === "number" && given > MAX_COUNT ? MAX_COUNT : fallback
  report.push(new MeasureInvalid({ measure: name, given: describeValue(given), used }))
  return used
}
