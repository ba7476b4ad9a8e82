import { formats } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  CHAR_RULE_GROWTH_MARGIN,
  charRuleFires,
  DEFAULT_COMPACTION_THRESHOLD,
  MAX_COMPACTION_THRESHOLD,
  MeasureInvalid,
  MIN_COMPACTION_THRESHOLD,
  requestChars,
  SettingAdjusted,
  shouldCompactContext
} from "./all.ts"
import { nonFiniteNumbers } from "./helpers.ts"

describe("shouldCompactContext: the window rule", () => {
  it("compacts at window × 0.85 by default, measured on the full request", () => {
    assert.strictEqual(DEFAULT_COMPACTION_THRESHOLD, 0.85)
    const limit = 4_096 * 0.85
    const below = shouldCompactContext({ usedTokens: 3_481, requestChars: 0, window: 4_096 })
    assert.deepStrictEqual(below, {
      compact: false,
      decidedBy: "window",
      basis: "window",
      used: 3_481,
      limit,
      threshold: 0.85,
      warnings: []
    })
    assert.isTrue(shouldCompactContext({ usedTokens: 3_482, requestChars: 0, window: 4_096 }).compact)
    assert.isTrue(shouldCompactContext({ usedTokens: 170_000, requestChars: 0, window: 200_000 }).compact)
    assert.isFalse(shouldCompactContext({ usedTokens: 169_999, requestChars: 0, window: 200_000 }).compact)
  })

  it("uses the whole trusted range, up to the 2M boundary", () => {
    assert.strictEqual(
      shouldCompactContext({ usedTokens: 0, requestChars: 0, window: 2_000_000 }).basis,
      "window"
    )
    assert.strictEqual(
      shouldCompactContext({ usedTokens: 0, requestChars: 0, window: 2_000_001 }).basis,
      "chars"
    )
  })

  it("takes thresholds from 0.1 to 0.99, and clamps others with a warning", () => {
    assert.strictEqual(MIN_COMPACTION_THRESHOLD, 0.1)
    assert.strictEqual(MAX_COMPACTION_THRESHOLD, 0.99)
    const at = (threshold: number) =>
      shouldCompactContext({ usedTokens: 0, requestChars: 0, window: 10_000, threshold })
    assert.strictEqual(at(0.1).limit, 1_000)
    assert.strictEqual(at(0.99).limit, 9_900)
    assert.deepStrictEqual(at(0.5).warnings, [])
    assert.strictEqual(at(0.05).threshold, 0.1)
    assert.deepStrictEqual(at(0.05).warnings, [new SettingAdjusted({ setting: "threshold", given: "0.05", used: 0.1 })])
    assert.strictEqual(at(1.5).threshold, 0.99)
    assert.strictEqual(at(Number.NaN).threshold, 0.85)
    assert.strictEqual(at(-Infinity).threshold, 0.1)
    assert.strictEqual(at(Infinity).threshold, 0.99)
  })

  it("with maxTokens, measures against available (the tutorial's policy)", () => {
    // 4,096 − reserve 1,024 = 3,072 available; 85% of it.
    const decision = shouldCompactContext({ usedTokens: 2_612, requestChars: 0, window: 4_096, maxTokens: 100_000 })
    assert.strictEqual(decision.limit, 3_072 * 0.85)
    assert.isTrue(decision.compact)
    assert.isFalse(
      shouldCompactContext({ usedTokens: 2_611, requestChars: 0, window: 4_096, maxTokens: 100_000 }).compact
    )
  })

  it("auto: false never compacts, and says so", () => {
    const decision = shouldCompactContext({ usedTokens: 9_999, requestChars: 0, window: 4_096, auto: false })
    assert.isFalse(decision.compact)
    assert.strictEqual(decision.decidedBy, "disabled")
  })
})

describe("shouldCompactContext: the char fallback", () => {
  it("with no trusted window, compacts when requestChars / 4 >= maxContextChars / 4 (no threshold)", () => {
    const at = shouldCompactContext({ usedTokens: 0, requestChars: 800_000 })
    assert.deepStrictEqual(at, {
      compact: true,
      decidedBy: "chars",
      basis: "chars",
      used: 200_000,
      limit: 200_000,
      threshold: undefined,
      warnings: []
    })
    assert.isFalse(shouldCompactContext({ usedTokens: 0, requestChars: 799_999 }).compact)
    // The threshold does not apply on this basis.
    assert.isFalse(shouldCompactContext({ usedTokens: 0, requestChars: 700_000, threshold: 0.5 }).compact)
    assert.isTrue(shouldCompactContext({ usedTokens: 0, requestChars: 400_000, maxContextChars: 400_000 }).compact)
  })

  it("treats an absurd or invalid window as unknown, with a warning", () => {
    for (const window of [0, -1, Number.NaN, Infinity, 2_000_001, 10_000_000]) {
      const decision = shouldCompactContext({ usedTokens: 0, requestChars: 800_000, window })
      assert.strictEqual(decision.decidedBy, "chars", String(window))
      assert.isTrue(decision.compact)
      assert.strictEqual(decision.warnings[0]?._tag, "WindowIgnored")
    }
  })

  it("an invalid measure is replaced by the other one, with a warning — never a NaN comparison", () => {
    const tokens = shouldCompactContext({ usedTokens: Number.NaN, requestChars: 14_000, window: 4_096 })
    assert.strictEqual(tokens.used, 3_500)
    assert.isTrue(tokens.compact)
    assert.deepStrictEqual(tokens.warnings, [new MeasureInvalid({ measure: "usedTokens", given: "NaN", used: 3_500 })])
    const chars = shouldCompactContext({ usedTokens: 200_000, requestChars: -1 })
    assert.strictEqual(chars.used, 200_000)
    assert.isTrue(chars.compact)
    const neither = shouldCompactContext({ usedTokens: -1, requestChars: Number.NaN, window: 4_096 })
    assert.strictEqual(neither.used, 0)
    assert.isFalse(neither.compact)
    assert.strictEqual(neither.warnings.length, 1)
    // More than anything is still more: an infinite measure is capped at 2^53 − 1, and compacts.
    const huge = shouldCompactContext({ usedTokens: Infinity, requestChars: 0, window: 4_096 })
    assert.strictEqual(huge.used, Number.MAX_SAFE_INTEGER)
    assert.isTrue(huge.compact)
    assert.strictEqual(huge.warnings[0]?._tag, "MeasureInvalid")
  })
})

describe("charRuleFires: the independent char rule", () => {
  it("fires at maxContextChars × threshold with the 10% growth margin, even with a huge window", () => {
    assert.strictEqual(CHAR_RULE_GROWTH_MARGIN, 0.1)
    assert.isFalse(charRuleFires({ conversationChars: 679_999 }).compact)
    const fires = charRuleFires({ conversationChars: 680_000 })
    assert.deepStrictEqual(fires, {
      compact: true,
      decidedBy: "char-budget",
      conversationChars: 680_000,
      limit: 680_000,
      growthFloor: 80_000,
      atThreshold: true,
      grown: true,
      threshold: 0.85,
      warnings: []
    })
    // After an automatic compaction left 650,000 characters, the conversation must grow by 80,000 first.
    const justAfter = charRuleFires({ conversationChars: 729_999, charsAfterLastAutoCompaction: 650_000 })
    assert.isTrue(justAfter.atThreshold)
    assert.isFalse(justAfter.grown)
    assert.isFalse(justAfter.compact)
    assert.isTrue(charRuleFires({ conversationChars: 730_000, charsAfterLastAutoCompaction: 650_000 }).compact)
    // Other budgets and thresholds.
    assert.isTrue(charRuleFires({ conversationChars: 50_000, maxContextChars: 100_000, threshold: 0.5 }).compact)
    assert.isFalse(
      charRuleFires({
        conversationChars: 50_000,
        charsAfterLastAutoCompaction: 45_000,
        maxContextChars: 100_000,
        threshold: 0.5
      }).compact
    )
  })

  it("never counts the tool catalog: a huge catalog with a small conversation does not fire it", () => {
    const chars = requestChars({
      instructions: "You are a coding agent.",
      messages: [{ role: "user", content: "hello" }],
      format: formats.openaiChat,
      tools: "t".repeat(900_000)
    })
    assert.strictEqual(chars.conversation, 28)
    assert.strictEqual(chars.request, 900_028)
    assert.isFalse(charRuleFires({ conversationChars: chars.conversation }).compact)
    // The fallback measures the full request, catalog included: it does fire.
    assert.isTrue(shouldCompactContext({ usedTokens: 0, requestChars: chars.request }).compact)
  })

  it("auto: false never fires", () => {
    const decision = charRuleFires({ conversationChars: 900_000, auto: false })
    assert.isFalse(decision.compact)
    assert.strictEqual(decision.decidedBy, "disabled")
  })

  it("invalid settings and measures become defaults or 0, with warnings", () => {
    const decision = charRuleFires({
      conversationChars: Number.NaN,
      charsAfterLastAutoCompaction: -5,
      maxContextChars: 0,
      threshold: 7
    })
    assert.deepStrictEqual(nonFiniteNumbers(decision), [])
    assert.isFalse(decision.compact)
    assert.deepStrictEqual(decision.warnings.map((w) => w._tag), [
      "SettingAdjusted",
      "SettingAdjusted",
      "MeasureInvalid",
      "MeasureInvalid"
    ])
  })
})

describe("the two rules are independent", () => {
  it("the char rule fires even when a 1M window says there is room", () => {
    const context = shouldCompactContext({ usedTokens: 190_000, requestChars: 760_000, window: 1_000_000 })
    const charRule = charRuleFires({ conversationChars: 700_000 })
    assert.isFalse(context.compact)
    assert.isTrue(charRule.compact)
    assert.strictEqual(charRule.decidedBy, "char-budget")
  })
})

describe("trigger laws", () => {
  const window = fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.constant(undefined), fc.double())
  const threshold = fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 1.2, noNaN: true }))
  const chars = fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 2_000_000 }))

  it("monotone in used: more tokens or characters never turns compaction off", () => {
    fc.assert(
      fc.property(
        window,
        threshold,
        chars,
        fc.nat(3_000_000),
        fc.nat(3_000_000),
        fc.nat(12_000_000),
        fc.nat(12_000_000),
        (w, t, max, used1, used2, chars1, chars2) => {
          const [lowUsed, highUsed] = used1 <= used2 ? [used1, used2] : [used2, used1]
          const [lowChars, highChars] = chars1 <= chars2 ? [chars1, chars2] : [chars2, chars1]
          const low = shouldCompactContext({
            usedTokens: lowUsed,
            requestChars: lowChars,
            window: w,
            threshold: t,
            maxContextChars: max
          })
          const high = shouldCompactContext({
            usedTokens: highUsed,
            requestChars: highChars,
            window: w,
            threshold: t,
            maxContextChars: max
          })
          if (low.compact) assert.isTrue(high.compact)
          assert.deepStrictEqual(nonFiniteNumbers([low, high]), [])
        }
      )
    )
  })

  it("the char rule is monotone in conversationChars and never fires before the growth floor", () => {
    fc.assert(
      fc.property(threshold, chars, fc.nat(1_000_000), fc.nat(3_000_000), fc.nat(3_000_000), (t, max, after, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a]
        const input = { charsAfterLastAutoCompaction: after, maxContextChars: max, threshold: t }
        const lowDecision = charRuleFires({ ...input, conversationChars: low })
        const highDecision = charRuleFires({ ...input, conversationChars: high })
        if (lowDecision.compact) assert.isTrue(highDecision.compact)
        if (highDecision.compact) {
          assert.isTrue(high >= after + 0.1 * (max ?? 800_000))
          assert.isTrue(high >= (max ?? 800_000) * highDecision.threshold)
        }
      })
    )
  })

  it("a threshold always ends up in [0.1, 0.99]", () => {
    fc.assert(
      fc.property(fc.anything(), (t) => {
        const decided = charRuleFires({ conversationChars: 1, threshold: t as number }).threshold
        assert.isTrue(decided >= 0.1 && decided <= 0.99)
      })
    )
  })
})
