import { available } from "@ctxkit/budget"
import { ContextAction, type ContextPolicy, decideContextAction, defaultContextPolicy } from "@ctxkit/compaction"
import { decodeContextPolicy, InvalidContextPolicy } from "@ctxkit/compaction/ContextPolicy"
import type { ContextState } from "@ctxkit/compaction/ContextPolicy"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { ContextPolicyAdjusted, ContextPolicyConfig } from "../src/ContextPolicy.ts"

// The tutorial's figures: a 4,096-token window keeps 1,024 for the reply.
const ROOM = 3_072

const decide = (state: ContextState, policy?: ContextPolicy): ContextAction => {
  const result = decideContextAction(state, policy)
  if (Result.isFailure(result)) throw new Error(`unexpected failure: ${result.failure.message}`)
  return result.success
}

const failure = (state: ContextState, policy?: ContextPolicy): InvalidContextPolicy => {
  const result = decideContextAction(state, policy)
  if (Result.isSuccess(result)) throw new Error(`unexpected success: ${result.success._tag}`)
  return result.failure
}

describe("defaultContextPolicy", () => {
  it("is the tutorial's four numbers", () => {
    assert.deepStrictEqual(defaultContextPolicy, {
      maxToolResultTokens: 25_000,
      clearAt: 0.6,
      compactAt: 0.85,
      keepToolResults: 6
    })
  })

  it("measures against available: window 4,096 leaves 3,072", () => {
    assert.strictEqual(available(4_096, 100_000), ROOM)
  })
})

describe("decideContextAction", () => {
  it("does nothing at or below clearAt × available, saying how far below", () => {
    const action = decide({ used: 1_500, available: ROOM })
    assert.deepStrictEqual(action, {
      _tag: "Nothing",
      below: "clearAt",
      reason:
        "Context uses 1,500 of 3,072 available tokens (48.8%), 343.2 below the clearing threshold of 1,843.2 (clearAt 0.6): nothing to do.",
      used: 1_500,
      available: ROOM,
      clearAtTokens: 1_843.2,
      compactAtTokens: 2_611.2
    })
    // Exactly at the threshold is still within it (the tutorial clears when used > clearAt × available).
    assert.strictEqual(decide({ used: 1_843.2, available: ROOM })._tag, "Nothing")
    assert.strictEqual(decide({ used: 1_844, available: ROOM })._tag, "Clear")
  })

  it("clears when over clearAt and nothing says what clearing frees", () => {
    const action = decide({ used: 4_300, available: ROOM })
    assert.strictEqual(action._tag, "Clear")
    assert.strictEqual(
      action.reason,
      "Context uses 4,300 of 3,072 available tokens (140%), over the clearing threshold of 1,843.2 (clearAt 0.6): clear old tool results, then measure again."
    )
    assert.isUndefined(action.clearable)
    assert.isUndefined(action.afterClearing)
  })

  it("clears when clearing brings the context within compactAt", () => {
    const action = decide({ used: 2_900, available: ROOM, clearable: 600 })
    assert.deepStrictEqual(action, {
      _tag: "Clear",
      reason:
        "Context uses 2,900 of 3,072 available tokens (94.4%), over the clearing threshold of 1,843.2 (clearAt 0.6); clearing old tool results frees 600 tokens, leaving 2,300, within the compaction threshold of 2,611.2 (compactAt 0.85): clear old tool results.",
      used: 2_900,
      available: ROOM,
      clearAtTokens: 1_843.2,
      compactAtTokens: 2_611.2,
      clearable: 600,
      afterClearing: 2_300
    })
    // Landing exactly on compactAt is within it.
    assert.strictEqual(decide({ used: 3_000, available: ROOM, clearable: 388.8 })._tag, "Clear")
  })

  it("compacts after clearing when clearing is not enough (the tutorial's run: 4.3k → 3.7k, then compaction)", () => {
    const action = decide({ used: 4_300, available: ROOM, clearable: 600 })
    assert.strictEqual(action._tag, "Compact")
    if (action._tag !== "Compact") return
    assert.isTrue(action.clearFirst)
    assert.strictEqual(action.afterClearing, 3_700)
    assert.strictEqual(
      action.reason,
      "Context uses 4,300 of 3,072 available tokens (140%), over the clearing threshold of 1,843.2 (clearAt 0.6); clearing old tool results frees 600 tokens, leaving 3,700, still over the compaction threshold of 2,611.2 (compactAt 0.85): clear, then compact the conversation."
    )
  })

  it("compacts without clearing when nothing is left to clear and the context is over compactAt", () => {
    const action = decide({ used: 3_700, available: ROOM, clearable: 0 })
    assert.deepStrictEqual(action, {
      _tag: "Compact",
      clearFirst: false,
      reason:
        "Context uses 3,700 of 3,072 available tokens (120.4%), over the compaction threshold of 2,611.2 (compactAt 0.85), with no old tool results left to clear: compact the conversation.",
      used: 3_700,
      available: ROOM,
      clearAtTokens: 1_843.2,
      compactAtTokens: 2_611.2,
      clearable: 0,
      afterClearing: 3_700
    })
  })

  it("does nothing when nothing is left to clear and the context is within compactAt", () => {
    const action = decide({ used: 2_000, available: ROOM, clearable: 0 })
    assert.strictEqual(action._tag, "Nothing")
    if (action._tag !== "Nothing") return
    assert.strictEqual(action.below, "compactAt")
    assert.strictEqual(
      action.reason,
      "Context uses 2,000 of 3,072 available tokens (65.1%), over the clearing threshold of 1,843.2 (clearAt 0.6) with no old tool results left to clear, 611.2 below the compaction threshold of 2,611.2 (compactAt 0.85): nothing to do."
    )
    assert.strictEqual(decide({ used: 2_611.2, available: ROOM, clearable: 0 })._tag, "Nothing")
    assert.strictEqual(decide({ used: 2_612, available: ROOM, clearable: 0 })._tag, "Compact")
  })

  it("uses the policy given", () => {
    const policy: ContextPolicy = { maxToolResultTokens: 1_000, clearAt: 0.5, compactAt: 0.5, keepToolResults: 0 }
    const action = decide({ used: 1_600, available: ROOM, clearable: 50 }, policy)
    assert.strictEqual(action._tag, "Compact")
    assert.strictEqual(action.clearAtTokens, 1_536)
    assert.strictEqual(action.compactAtTokens, 1_536)
    assert.strictEqual(
      decide({ used: 1_600, available: ROOM, clearable: 50 }, { ...policy, compactAt: 1 })._tag,
      "Clear"
    )
    assert.strictEqual(decide({ used: 1_600, available: ROOM, clearable: 100 }, policy)._tag, "Clear")
  })

  it("clamps what is left after clearing at 0", () => {
    assert.strictEqual(decide({ used: 2_000, available: ROOM, clearable: 5_000 }).afterClearing, 0)
  })

  it("names the field and the fix for every unusable state", () => {
    const cases: ReadonlyArray<readonly [ContextState, string, string]> = [
      [{ used: -1, available: ROOM }, "used", "used must be a finite number of tokens, 0 or more (got -1)"],
      [{ used: Number.NaN, available: ROOM }, "used", "(got NaN)"],
      [{ used: Infinity, available: ROOM }, "used", "(got Infinity)"],
      [{ used: 1, available: 0 }, "available", "available(window, maxTokens) from @ctxkit/budget"],
      [{ used: 1, available: -5 }, "available", "(got -5)"],
      [{ used: 1, available: Number.NaN }, "available", "(got NaN)"],
      [{ used: 1, available: Infinity }, "available", "(got Infinity)"],
      [{ used: 1, available: ROOM, clearable: -3 }, "clearable", "freedTokens from clearOldToolResults"],
      [{ used: 1, available: ROOM, clearable: Number.NaN }, "clearable", "(got NaN)"]
    ]
    for (const [state, field, fragment] of cases) {
      const error = failure(state)
      assert.instanceOf(error, InvalidContextPolicy)
      assert.strictEqual(error._tag, "InvalidContextPolicy")
      assert.strictEqual(error.field, field, JSON.stringify(state))
      assert.include(error.message, fragment)
    }
    assert.strictEqual(
      failure({ used: 1, available: 0 }).message,
      "available must be a finite number of tokens greater than 0 (got 0): compute it with available(window, maxTokens) from @ctxkit/budget."
    )
    assert.strictEqual(failure(null as unknown as ContextState).field, "used")
  })

  it("decides with the default of every unusable policy field, and reports each", () => {
    const cases: ReadonlyArray<readonly [Partial<ContextPolicy>, string, string]> = [
      [{ clearAt: 0 }, "clearAt", "0.6"],
      [{ clearAt: 1.2 }, "clearAt", "0.6"],
      [{ clearAt: Number.NaN }, "clearAt", "0.6"],
      [{ compactAt: -0.1 }, "compactAt", "0.85"],
      [{ compactAt: 1.01 }, "compactAt", "0.85"],
      [{ clearAt: 0.9, compactAt: 0.85 }, "clearAt", "0.6"],
      [{ maxToolResultTokens: 0 }, "maxToolResultTokens", "25000"],
      [{ maxToolResultTokens: Infinity }, "maxToolResultTokens", "25000"],
      [{ keepToolResults: -1 }, "keepToolResults", "6"],
      [{ keepToolResults: 2.5 }, "keepToolResults", "6"]
    ]
    for (const state of [{ used: 1_000, available: ROOM }, { used: 2_400, available: ROOM, clearable: 0 }]) {
      const expected = decide(state)
      for (const [overrides, option, used] of cases) {
        const action = decide(state, { ...defaultContextPolicy, ...overrides })
        const { diagnostics, ...rest } = action
        assert.deepStrictEqual(rest, expected, JSON.stringify(overrides))
        assert.strictEqual(diagnostics?.length, 1)
        const diagnostic = diagnostics?.[0]
        assert.instanceOf(diagnostic, ContextPolicyAdjusted)
        assert.strictEqual(diagnostic?.option, option)
        assert.strictEqual(diagnostic?.used, used)
      }
    }
    // A clearAt above compactAt when the default is above it too: compactAt itself.
    const low = decide({ used: 1_000, available: ROOM }, { ...defaultContextPolicy, clearAt: 0.5, compactAt: 0.4 })
    assert.strictEqual(low.clearAtTokens, low.compactAtTokens)
    assert.strictEqual(
      decide({ used: 1, available: ROOM }, { ...defaultContextPolicy, clearAt: 2 }).diagnostics?.[0]?.message,
      "Option clearAt = 2 cannot be used; used 0.6 instead. Set it to a fraction of the available tokens greater than 0 and at most 1, at most compactAt."
    )
    const whole = decide({ used: 1, available: ROOM }, null as unknown as ContextPolicy)
    assert.strictEqual(whole.diagnostics?.[0]?.option, "policy")
    assert.isUndefined(decide({ used: 1, available: ROOM }).diagnostics)
  })

  it("every action is a valid ContextAction whose tag follows the rules (property)", () => {
    const isAction = Schema.is(ContextAction)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
        (used, room, clearable) => {
          const action = decide({ used, available: room, clearable })
          assert.isTrue(isAction(action))
          const clearAt = 0.6 * room
          const compactAt = 0.85 * room
          const expected = used <= clearAt + 1e-6
            ? "Nothing"
            : clearable === undefined
            ? "Clear"
            : clearable > 0
            ? (used - clearable > compactAt + 1e-6 ? "Compact" : "Clear")
            : used > compactAt + 1e-6
            ? "Compact"
            : "Nothing"
          assert.strictEqual(action._tag, expected)
          if (action._tag === "Compact") assert.strictEqual(action.clearFirst, clearable !== undefined && clearable > 0)
          assert.include(action.reason, `Context uses ${used.toLocaleString("en-US")} of`)
        }
      )
    )
  })
})

describe("decodeContextPolicy", () => {
  it("fills missing fields from the default policy", () => {
    assert.deepStrictEqual(Result.getOrThrow(decodeContextPolicy({ clearAt: 0.5 })), {
      maxToolResultTokens: 25_000,
      clearAt: 0.5,
      compactAt: 0.85,
      keepToolResults: 6
    })
    assert.strictEqual(Result.getOrThrow(decodeContextPolicy(undefined)), defaultContextPolicy)
    assert.deepStrictEqual(Result.getOrThrow(decodeContextPolicy(JSON.parse("{}"))), defaultContextPolicy)
  })

  it("names the field of a wrong type, an unknown key, a non-object and a value out of range", () => {
    const fieldOf = (input: unknown) => {
      const result = decodeContextPolicy(input)
      return Result.isFailure(result) ? [result.failure.field, result.failure.message] : ["ok", ""]
    }
    const [typeField, typeMessage] = fieldOf({ compactAt: "0.9" })
    assert.strictEqual(typeField, "compactAt")
    assert.include(typeMessage, "compactAt must be a number")
    assert.deepStrictEqual(fieldOf({ clear_at: 0.5 }), [
      "clear_at",
      "clear_at is not a context policy setting: use maxToolResultTokens, clearAt, compactAt or keepToolResults."
    ])
    assert.strictEqual(fieldOf(42)[0], "policy")
    assert.strictEqual(fieldOf([1])[0], "policy")
    assert.strictEqual(fieldOf({ keepToolResults: -2 })[0], "keepToolResults")
    assert.strictEqual(fieldOf({ clearAt: 0.95 })[0], "clearAt")
  })

  it("ContextPolicyConfig accepts partial configs", () => {
    assert.isTrue(Schema.is(ContextPolicyConfig)({ compactAt: 0.9 }))
    assert.isFalse(Schema.is(ContextPolicyConfig)({ compactAt: "0.9" }))
  })
})
