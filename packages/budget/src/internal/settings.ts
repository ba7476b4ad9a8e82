import { describeValue } from "@ctxkit/core/Describe"
import { readSetting, setting } from "@ctxkit/core/Settings"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
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

const thresholdSetting = setting(
  Schema.Number.check(Schema.isBetween({ minimum: MIN_THRESHOLD, maximum: MAX_THRESHOLD })),
  {
    accepted: `a fraction from ${MIN_THRESHOLD} to ${MAX_THRESHOLD}`,
    default: DEFAULT_THRESHOLD,
    repair: (given) =>
      !Predicate.isNumber(given) || Number.isNaN(given)
        ? DEFAULT_THRESHOLD
        : Math.min(MAX_THRESHOLD, Math.max(MIN_THRESHOLD, given))
  }
)
const charsSetting = setting(Schema.Number.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_COUNT)), {
  accepted: "a number of characters > 0",
  default: DEFAULT_CHARS
})
const overheadSetting = setting(
  Schema.Number.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(MAX_COUNT)),
  { accepted: "a number of tokens ≥ 0", default: DEFAULT_OVERHEAD }
)

const read = (
  name: SettingAdjusted["setting"],
  field: typeof thresholdSetting,
  given: unknown,
  report: Array<BudgetDiagnostic>
): number => {
  const { adjustment, value } = readSetting(name, field, given)
  if (adjustment !== undefined) {
    report.push(new SettingAdjusted({ setting: name, given: describeValue(given), used: value }))
  }
  return value
}

/** The threshold to use: the default when absent, clamped into [0.1, 0.99] (reported) when out of range. */
export const threshold = (given: unknown, report: Array<BudgetDiagnostic>): number =>
  read("threshold", thresholdSetting, given, report)

/** The character budget to use: the default when absent or not a finite number > 0 (reported). */
export const maxContextChars = (given: unknown, report: Array<BudgetDiagnostic>): number =>
  read("maxContextChars", charsSetting, given, report)

/** The per-message overhead to use: the default when absent or not a finite number ≥ 0 (reported). */
export const overhead = (given: unknown, report: Array<BudgetDiagnostic>): number =>
  read("perMessageOverhead", overheadSetting, given, report)

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
