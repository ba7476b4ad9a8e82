import { readSettings, setting } from "@ctxkit/core/Settings"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"

const fields = {
  minAgeTurns: setting(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 20 })), {
    accepted: "an integer from 1 to 20",
    default: 2,
    repair: (given) =>
      typeof given === "number" && !Number.isNaN(given) ? Math.min(20, Math.max(1, Math.trunc(given))) : 2
  }),
  mode: setting(Schema.Literals(["off", "on"]), { accepted: "\"off\" or \"on\"", default: "off" })
}

describe("readSettings", () => {
  it("takes accepted values as given and absent ones as their default, with no adjustment", () => {
    assert.deepStrictEqual(readSettings(fields, { minAgeTurns: 5, mode: "on" }), {
      settings: { minAgeTurns: 5, mode: "on" },
      adjusted: []
    })
    assert.deepStrictEqual(readSettings(fields, {}), { settings: { minAgeTurns: 2, mode: "off" }, adjusted: [] })
  })

  it("reports every refused value once, with what is accepted and what was used", () => {
    const read = readSettings(fields, { minAgeTurns: 0, mode: "loud" }, "govern.")
    assert.deepStrictEqual(read.settings, { minAgeTurns: 1, mode: "off" })
    assert.deepStrictEqual(read.adjusted, [
      { option: "govern.minAgeTurns", given: 0, accepted: "an integer from 1 to 20", used: 1 },
      { option: "govern.mode", given: "loud", accepted: "\"off\" or \"on\"", used: "off" }
    ])
  })

  it("reads a value that is not an options object as no options", () => {
    for (const given of [null, 3, "x", [1], undefined]) {
      assert.deepStrictEqual(readSettings(fields, given), { settings: { minAgeTurns: 2, mode: "off" }, adjusted: [] })
    }
  })

  it("never uses a refused value: every setting is accepted, and each refused one is reported (property)", () => {
    fc.assert(fc.property(fc.record({ minAgeTurns: fc.anything(), mode: fc.anything() }), (options) => {
      const read = readSettings(fields, Object.freeze(options))
      assert.isTrue(fields.minAgeTurns.accepts(read.settings.minAgeTurns))
      assert.isTrue(fields.mode.accepts(read.settings.mode))
      const refused = Object.entries(options).filter(([name, value]) =>
        value !== undefined && !fields[name as keyof typeof fields].accepts(value)
      )
      assert.deepStrictEqual(read.adjusted.map((a) => a.option), refused.map(([name]) => name))
    }))
  })
})
