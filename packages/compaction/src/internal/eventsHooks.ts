/**
 * Running plugin hooks safely: a throw, a failure, a defect and a timeout all become a `Failed` outcome with a
 * short error text; nothing escapes.
 *
 * @internal
 */
import { runPlugin } from "@ctxkit/core/RunPlugin"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Result from "effect/Result"
import { errorText } from "./events.ts"

/** What running one hook gave. */
export type HookOutcome =
  | { readonly _tag: "Done"; readonly value: unknown }
  | { readonly _tag: "Failed"; readonly error: string }

/** How long each plugin hook may run when no timeout is given: 5 seconds. */
export const DEFAULT_HOOK_TIMEOUT: Duration.Duration = Duration.seconds(5)

/** The hook timeout given as a `Duration.Input` (`"2 seconds"`, `Duration.millis(500)`, a number of ms), or
 * `undefined` when it is not one or is negative. */
export const hookTimeout = (given: Duration.Input | undefined): Duration.Duration | undefined => {
  if (given === undefined) return DEFAULT_HOOK_TIMEOUT
  // `Duration.fromInput` reads NaN as zero: a NaN is a mistake, not "no time at all".
  if (typeof given === "number" && Number.isNaN(given)) return undefined
  const decoded = Option.getOrUndefined(Duration.fromInput(given))
  return decoded !== undefined && Duration.toMillis(decoded) >= 0 ? decoded : undefined
}

/** Runs `thunk` (a plugin's hook) with core's plugin runner; a failure becomes the event's error text. */
export const runHook = (thunk: () => unknown, timeout: Duration.Duration): Effect.Effect<HookOutcome> =>
  Effect.map(runPlugin(thunk, timeout), (outcome): HookOutcome =>
    outcome._tag === "Done" ? outcome : {
      _tag: "Failed",
      error: outcome.timedOut ? `did not complete within ${Duration.toMillis(timeout)} ms` : errorText(outcome.error)
    })

/** Decodes a plugin's answer; a value whose reading throws (a throwing getter, a cycle) is `undefined`. */
export const safeDecode = <A, E>(
  decode: (input: unknown) => Result.Result<A, E>,
  input: unknown
): Effect.Effect<Result.Result<A, E> | undefined> =>
  Effect.try({ try: () => decode(input), catch: () => undefined }).pipe(
    Effect.orElseSucceed(() => undefined)
  )
