import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import {
  applyCalibration,
  calibrate,
  Calibration,
  CALIBRATION_MAX_SCALE,
  CALIBRATION_MIN_SCALE,
  promptTokens,
  ScaleClamped,
  uncalibrated
} from "./all.ts"

describe("calibrate", () => {
  it("a good sample scales later estimates by tokens / estimate", () => {
    const update = calibrate(uncalibrated, { tokens: 4_400, estimate: 4_000, truncated: false })
    assert.strictEqual(update.reason, "calibrated")
    assert.isTrue(update.accepted)
    assert.deepStrictEqual(
      update.calibration,
      new Calibration({ sample: { tokens: 4_400, estimate: 4_000 }, scale: 1.1, clamped: false })
    )
    assert.strictEqual(applyCalibration(1_000, update.calibration), 1_100)
    assert.strictEqual(pipe(1_000, applyCalibration(update.calibration)), 1_100)
  })

  it("the tutorial's plateau (3,725 reported for 6,204 estimated), flagged truncated, never calibrates", () => {
    const good = calibrate(uncalibrated, { tokens: 4_400, estimate: 4_000, truncated: false }).calibration
    const plateau = calibrate(good, { tokens: 3_725, estimate: 6_204, truncated: true })
    assert.strictEqual(plateau.reason, "truncated")
    assert.isFalse(plateau.accepted)
    assert.strictEqual(plateau.calibration, good)
  })

  it("no usage (0) never calibrates", () => {
    for (const tokens of [0, -5, Number.NaN, Infinity, promptTokens({})]) {
      const update = calibrate(uncalibrated, { tokens, estimate: 3_600, truncated: false })
      assert.strictEqual(update.reason, "no-usage")
      assert.strictEqual(update.calibration, uncalibrated)
    }
  })

  it("no estimate never calibrates", () => {
    for (const estimate of [0, 0.5, -1, Number.NaN, Infinity]) {
      assert.strictEqual(calibrate(uncalibrated, { tokens: 100, estimate, truncated: false }).reason, "no-estimate")
    }
  })

  it("clamps the scale to [0.5, 4] and reports the clamp", () => {
    assert.strictEqual(CALIBRATION_MIN_SCALE, 0.5)
    assert.strictEqual(CALIBRATION_MAX_SCALE, 4)
    // The collapse (63 prompt tokens for 6,204 estimated), had it not been flagged.
    const collapse = calibrate(uncalibrated, { tokens: 63, estimate: 6_204, truncated: false })
    assert.strictEqual(collapse.reason, "clamped")
    assert.strictEqual(collapse.calibration.scale, 0.5)
    assert.isTrue(collapse.calibration.clamped)
    assert.deepStrictEqual(collapse.warnings, [new ScaleClamped({ raw: 63 / 6_204, used: 0.5, min: 0.5, max: 4 })])
    assert.include(collapse.warnings[0]?.message ?? "", "not summed over several calls")
    // Usage summed over a ten-step tool loop.
    const summed = calibrate(uncalibrated, { tokens: 60_000, estimate: 6_000, truncated: false })
    assert.strictEqual(summed.calibration.scale, 4)
    assert.strictEqual(summed.reason, "clamped")
  })

  it("a sample from another model starts afresh", () => {
    const a = calibrate(uncalibrated, { tokens: 2_000, estimate: 1_000, truncated: false, model: "a" }).calibration
    assert.strictEqual(a.model, "a")
    const rejected = calibrate(a, { tokens: 0, estimate: 1_000, truncated: false, model: "b" })
    assert.strictEqual(rejected.calibration.scale, 1)
    const b = calibrate(a, { tokens: 1_200, estimate: 1_000, truncated: false, model: "b" }).calibration
    assert.strictEqual(b.model, "b")
    assert.strictEqual(b.scale, 1.2)
  })

  it("is data-last too, and its state survives a Schema round trip", () => {
    const input = { tokens: 4_400, estimate: 4_000, truncated: false }
    assert.deepStrictEqual(pipe(uncalibrated, calibrate(input)), calibrate(uncalibrated, input))
    const state = calibrate(uncalibrated, input).calibration
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(Calibration)(state)))
    assert.deepStrictEqual(Schema.decodeUnknownSync(Calibration)(json), state)
  })

  it("applyCalibration never returns a non-finite or negative number", () => {
    assert.strictEqual(applyCalibration(Number.NaN, uncalibrated), 0)
    assert.strictEqual(applyCalibration(-4, uncalibrated), 0)
    assert.strictEqual(applyCalibration(10, null as never), 10)
  })
})

describe("calibration laws", () => {
  it("truncated or usage-less samples never calibrate; accepted scales are clamp(tokens / estimate)", () => {
    const sample = fc.record({
      tokens: fc.oneof(fc.nat(500_000), fc.double()),
      estimate: fc.oneof(fc.nat(500_000), fc.double()),
      truncated: fc.boolean()
    })
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 12 }), (samples) => {
        let calibration = uncalibrated
        for (const s of samples) {
          const update = calibrate(calibration, s)
          // Counts are numbers up to 2^53 − 1; an estimate must be at least one token.
          const usable = !s.truncated && s.tokens > 0 && s.tokens <= Number.MAX_SAFE_INTEGER && s.estimate >= 1 &&
            s.estimate <= Number.MAX_SAFE_INTEGER
          assert.strictEqual(update.accepted, usable)
          if (!usable) assert.strictEqual(update.calibration, calibration)
          else {
            const raw = s.tokens / s.estimate
            const expected = Math.min(4, Math.max(0.5, raw))
            assert.strictEqual(update.calibration.scale, expected)
            assert.strictEqual(update.calibration.clamped, expected !== raw)
            assert.strictEqual(update.warnings.length, expected !== raw ? 1 : 0)
          }
          assert.isTrue(update.calibration.scale >= 0.5 && update.calibration.scale <= 4)
          calibration = update.calibration
        }
        const applied = applyCalibration(10_000, calibration)
        assert.isTrue(Number.isInteger(applied) && applied >= 5_000 && applied <= 40_000)
      })
    )
  })
})
