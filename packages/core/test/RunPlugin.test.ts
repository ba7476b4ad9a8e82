import { runPlugin } from "@ctxkit/core/RunPlugin"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"

const second = Duration.seconds(1)

describe("runPlugin: a plugin's function as untrusted code", () => {
  it.effect("a value or an Effect's value is the answer", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* runPlugin(() => 42, second), { _tag: "Done", value: 42 })
      assert.deepStrictEqual(yield* runPlugin(() => Effect.succeed("note"), second), { _tag: "Done", value: "note" })
    }))

  it.effect("a throw, a failure and a defect are failures carrying their error, not timeouts", () =>
    Effect.gen(function*() {
      const boom = new Error("boom")
      for (
        const thunk of [
          () => {
            throw boom
          },
          () => Effect.fail(boom),
          () => Effect.die(boom)
        ]
      ) {
        assert.deepStrictEqual(yield* runPlugin(thunk, second), { _tag: "Failed", timedOut: false, error: boom })
      }
    }))

  it.effect("an Effect that runs past its time is interrupted and reported as timed out", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(runPlugin(() => Effect.never, second))
      yield* TestClock.adjust("1 second")
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome._tag, "Failed")
      assert.isTrue(outcome._tag === "Failed" && outcome.timedOut)
      const slow = yield* Effect.forkChild(runPlugin(() => Effect.sleep("500 millis").pipe(Effect.as("ok")), second))
      yield* TestClock.adjust("500 millis")
      assert.deepStrictEqual(yield* Fiber.join(slow), { _tag: "Done", value: "ok" })
    }))
})
