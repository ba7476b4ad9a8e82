import { formats, type Message, TokenBudgetExceeded } from "@ctxkit/core"
import { fitOrFail, InvalidBudget, strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { pipe } from "effect/Function"

const count = (text: string): number => Math.ceil(text.length / 4)

const messages: ReadonlyArray<Message> = [
  { role: "system", content: "A very long system prompt. ".repeat(100) },
  { role: "user", content: "old question ".repeat(20) },
  { role: "user", content: "hi" }
]

describe("fitOrFail", () => {
  it.effect("succeeds with the fitted conversation when it fits", () =>
    Effect.gen(function*() {
      const result = yield* fitOrFail(messages, count, 740, { format: formats.canonical })
      assert.deepStrictEqual(result.kept, [messages[0], messages[2]])
      assert.isTrue(result.fits)
    }))

  it.effect("fails with TokenBudgetExceeded when the protected context alone does not fit", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fitOrFail(messages, count, 500, { reservedForReply: 100 }))
      assert.instanceOf(error, TokenBudgetExceeded)
      if (error._tag !== "TokenBudgetExceeded") return
      assert.strictEqual(error.code, "TOKEN_BUDGET_EXCEEDED")
      assert.deepStrictEqual([error.contextLimit, error.reservedForReply, error.promptTokens], [600, 100, 684])
      assert.isTrue(error.message.startsWith("Protected prompt context exceeds the configured token budget"))
    }))

  it.effect("reports no reserve when none is given", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fitOrFail(messages, count, 500))
      if (error._tag !== "TokenBudgetExceeded") return assert.fail(error._tag)
      assert.deepStrictEqual([error.contextLimit, error.reservedForReply], [500, 0])
    }))

  it.effect("fails with InvalidBudget on a reply reserve that is not a finite number ≥ 0, even when it fits", () =>
    Effect.gen(function*() {
      for (const reservedForReply of [-5, Number.NaN, Infinity, "100" as unknown as number]) {
        for (const budget of [500, 740]) {
          const error = yield* Effect.flip(fitOrFail(messages, count, budget, { reservedForReply }))
          assert.instanceOf(error, InvalidBudget)
          if (error._tag !== "InvalidBudget") continue
          assert.strictEqual(
            error.reservedForReply,
            typeof reservedForReply === "string" ? "\"100\"" : String(reservedForReply)
          )
          assert.include(error.message, "The reply reserve")
        }
      }
    }))

  it.effect("fails with InvalidBudget on a budget that is not a finite number > 0", () =>
    Effect.gen(function*() {
      for (const budget of [Number.NaN, 0, -1, Infinity]) {
        const error = yield* Effect.flip(fitOrFail(messages, count, budget))
        assert.instanceOf(error, InvalidBudget)
        if (error._tag === "InvalidBudget") assert.strictEqual(error.code, "INVALID_BUDGET")
      }
    }))

  it("runs the strategy given, and is data-last too, and lazy", () => {
    let calls = 0
    const counting = (text: string): number => {
      calls++
      return count(text)
    }
    const effect = pipe(messages, fitOrFail(counting, 740, { strategy: strategies.summarize }))
    assert.strictEqual(calls, 0)
    const exit = Effect.runSyncExit(effect)
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) assert.isTrue(exit.value.summaryCreated)
  })
})
