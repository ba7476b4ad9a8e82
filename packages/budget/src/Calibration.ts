/**
 * Calibration: the last good sample `{ tokens, estimate }` of a request — what the server reported reading and
 * what ctxkit estimated for the same request — scales later estimates. A bad sample calibrates badly and
 * delays clearing, so samples that look truncated, that report no usage, or that have no estimate never
 * calibrate, and the scale is clamped to a sane range (and the clamp reported).
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import { ScaleClamped } from "./Diagnostics.ts"
import { isCount } from "./internal/settings.ts"

/**
 * The lowest calibration scale: 0.5. Untruncated requests measured 1.00–1.48 reported/estimated (code to
 * JSON), and 0.22 only on text of repeated spaces; a scale below 0.5 would let estimates shrink enough to
 * hide real pressure, and usually means the sample was truncated.
 *
 * @example
 * ```ts
 * import { CALIBRATION_MIN_SCALE } from "@ctxkit/budget/Calibration"
 *
 * CALIBRATION_MIN_SCALE // 0.5
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CALIBRATION_MIN_SCALE = 0.5

/**
 * The highest calibration scale: 4 (text where each character is a token, such as CJK, against the
 * 4-characters-per-token estimate).
 *
 * @example
 * ```ts
 * import { CALIBRATION_MAX_SCALE } from "@ctxkit/budget/Calibration"
 *
 * CALIBRATION_MAX_SCALE // 4
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CALIBRATION_MAX_SCALE = 4

/**
 * The calibration state: the last good sample, the scale it gives (`tokens / estimate`, clamped; 1 with no
 * sample), whether it was clamped, and the model it belongs to. Persistable (a Schema class).
 *
 * @example
 * ```ts
 * import { uncalibrated } from "@ctxkit/budget"
 *
 * uncalibrated.scale // 1
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class Calibration extends Schema.Class<Calibration>("@ctxkit/budget/Calibration")({
  /**
   * The last good sample, if any: the prompt tokens the server reported (input + cache read + cache write, see
   * `promptTokens`) and ctxkit's estimate of the same request — the `{ tokens, estimate }` sample
   * `@ctxkit/overflow` judges.
   */
  sample: Schema.optionalKey(Schema.Struct({
    /** Prompt tokens reported by the server. */
    tokens: Schema.Number,
    /** ctxkit's estimate of the same request. */
    estimate: Schema.Number
  })),
  /** Multiplier for estimates. */
  scale: Schema.Number,
  /** Whether `scale` was clamped. */
  clamped: Schema.Boolean,
  /** The model the sample came from. */
  model: Schema.optionalKey(Schema.String)
}) {}

/**
 * No calibration: scale 1.
 *
 * @example
 * ```ts
 * import { applyCalibration, uncalibrated } from "@ctxkit/budget"
 *
 * applyCalibration(1_000, uncalibrated) // 1000
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const uncalibrated: Calibration = new Calibration({ scale: 1, clamped: false })

/**
 * A new sample for {@link calibrate}. `truncated` is required: say whether the request looked truncated (for
 * example `looksTruncated(prev, { tokens, estimate })` from `@ctxkit/overflow`); a truncated sample never
 * calibrates.
 *
 * @inline
 * @since 0.1.0
 */
export interface CalibrationInput {
  /** Prompt tokens reported (input + cache read + cache write). 0 means none reported. */
  readonly tokens: number
  /** ctxkit's estimate of the same request. */
  readonly estimate: number
  /** Whether the request looked truncated. */
  readonly truncated: boolean
  /** The model that answered; a different model than the calibration's starts afresh. */
  readonly model?: string | undefined
}

/**
 * What {@link calibrate} did: the new state, whether the sample was accepted, and why.
 *
 * - `calibrated`: accepted; `clamped`: accepted, with the scale clamped (see `warnings`);
 * - `no-usage`: the provider reported no usage (0, or not a finite number) — never calibrates;
 * - `truncated`: the request looked truncated — never calibrates (it would make ctxkit believe there is room);
 * - `no-estimate`: no usable estimate to compare with (below one token, or not a number).
 *
 * A sample from another model than the calibration's resets it first, whether or not the sample is accepted.
 *
 * @inline
 * @since 0.1.0
 */
export interface CalibrationUpdate {
  /** The calibration to use from now on. */
  readonly calibration: Calibration
  /** Whether the sample became the last good sample. */
  readonly accepted: boolean
  /** Why. */
  readonly reason: "calibrated" | "clamped" | "no-usage" | "truncated" | "no-estimate"
  /** The clamp, when it happened. */
  readonly warnings: ReadonlyArray<ScaleClamped>
}

const update = (current: Calibration, input: CalibrationInput): CalibrationUpdate => {
  const given: Partial<CalibrationInput> = typeof input === "object" && input !== null ? input : {}
  const model = typeof given.model === "string" ? given.model : undefined
  const base = current instanceof Calibration ? current : uncalibrated
  // Another model tokenizes differently: its scale says nothing about this one.
  const start = model !== undefined && base.model !== undefined && base.model !== model ? uncalibrated : base
  const reject = (reason: CalibrationUpdate["reason"]): CalibrationUpdate => ({
    calibration: start,
    accepted: false,
    reason,
    warnings: []
  })
  if (given.truncated === true) return reject("truncated")
  if (!isCount(given.tokens) || given.tokens === 0) return reject("no-usage")
  // An estimate below one token is no estimate (and would make the ratio explode).
  if (!isCount(given.estimate) || given.estimate < 1) return reject("no-estimate")
  const raw = given.tokens / given.estimate
  const scale = Math.min(CALIBRATION_MAX_SCALE, Math.max(CALIBRATION_MIN_SCALE, raw))
  const clamped = scale !== raw
  const calibration = new Calibration({
    sample: { tokens: given.tokens, estimate: given.estimate },
    scale,
    clamped,
    ...(model !== undefined ? { model } : start.model !== undefined ? { model: start.model } : {})
  })
  return {
    calibration,
    accepted: true,
    reason: clamped ? "clamped" : "calibrated",
    warnings: clamped
      ? [new ScaleClamped({ raw, used: scale, min: CALIBRATION_MIN_SCALE, max: CALIBRATION_MAX_SCALE })]
      : []
  }
}

/**
 * Takes a new sample into the calibration: when it is good, it becomes the last good sample and its
 * `tokens / estimate`, clamped to [0.5, 4], scales later estimates. A sample that looks truncated, a provider
 * that reports no usage (0), or a missing estimate leaves the calibration as it was, and says why. Report the
 * sample's own request: `tokens` from `promptTokens(usage)` of that response (input + cache read + cache
 * write, not summed over several calls), `estimate` of that request.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { calibrate, uncalibrated } from "@ctxkit/budget"
 * import { pipe } from "effect/Function"
 *
 * const good = calibrate(uncalibrated, { tokens: 4_400, estimate: 4_000, truncated: false })
 * good.calibration.scale // 1.1
 *
 * // The plateau measured in the local-harness overflow guide: 3,725 reported for 6,204 estimated, flagged as
 * // truncated: never calibrates.
 * const plateau = pipe(good.calibration, calibrate({ tokens: 3_725, estimate: 6_204, truncated: true }))
 * plateau.reason // "truncated"
 * plateau.calibration.scale // 1.1
 *
 * // The collapse (63 for 6,204) if it were not flagged: clamped to 0.5, and reported.
 * calibrate(uncalibrated, { tokens: 63, estimate: 6_204, truncated: false }).reason // "clamped"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const calibrate: {
  (input: CalibrationInput): (calibration: Calibration) => CalibrationUpdate
  (calibration: Calibration, input: CalibrationInput): CalibrationUpdate
} = dual(2, update)

/**
 * A calibrated estimate: `ceil(estimate × scale)`. An estimate that is not a finite number ≥ 0 gives 0.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { applyCalibration, calibrate, uncalibrated } from "@ctxkit/budget"
 *
 * const { calibration } = calibrate(uncalibrated, { tokens: 4_400, estimate: 4_000, truncated: false })
 * applyCalibration(1_000, calibration) // 1100
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const applyCalibration: {
  (calibration: Calibration): (estimate: number) => number
  (estimate: number, calibration: Calibration): number
} = dual(2, (estimate: number, calibration: Calibration): number => {
  if (!isCount(estimate)) return 0
  const scale = calibration instanceof Calibration && isCount(calibration.scale) ? calibration.scale : 1
  // Round away floating-point noise first (1000 × 1.1 is 1100.0000000000002, which must give 1100).
  return Math.ceil(Math.round(estimate * scale * 1e6) / 1e6)
})
