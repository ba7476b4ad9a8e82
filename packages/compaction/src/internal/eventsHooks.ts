/**
 * Running plugin hooks safely: a throw, a failure, a defect and a timeout all become a `Failed` outcome with a
 * short error text; nothing escapes.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import { errorText } from "./events.ts"

/** What running one hook gave. */
export type HookOutcome =
  | { readonly _tag: "Done"; readonly value: unknown }
  | { readonly _tag: "Failed"; readonly error: string }

/** The hook timeout in milliseconds: the given one when it is a finite number ≥ 0, else the fallback. */
export const hookTimeout = (given: number | undefined, fallback: number): number =>
  typeof given === "number" && Number.isFinite(given) && given >= 0 ? given : fallback

/**
 * Runs `thunk` (a plugin's hook): a throw is a failure; a returned Effect runs under `timeoutMs` (interrupted
 * when it is exceeded); a plain returned value is taken as the answer. Every failure, defect and timeout is
 * caught.
 */
export const runHook = (thunk: () => unknown, timeoutMs: number): Effect.Effect<HookOutcome> =>
  Effect.try({ try: thunk, catch: (error) => error }).pipe(
    Effect.flatMap((out) =>
      Effect.isEffect(out)
        // Hooks are typed as needing no services; one that does dies, and is caught below.
        ? Effect.timeout(out as Effect.Effect<unknown, unknown>, Duration.millis(timeoutMs))
        : Effect.succeed(out)
    ),
    Effect.matchCause({
      onSuccess: (value): HookOutcome => ({ _tag: "Done", value }),
      onFailure: (cause): HookOutcome => {
        const error = Cause.squash(cause)
        return {
          _tag: "Failed",
          error: Cause.isTimeoutError(error) ? `did not complete within ${timeoutMs} ms` : errorText(error)
        }
      }
    })
  )

/** Decodes a plugin's answer; a value whose reading throws (a throwing getter, a cycle) is `undefined`. */
export const safeDecode = <A, E>(
  decode: (input: unknown) => Result.Result<A, E>,
  input: unknown
): Effect.Effect<Result.Result<A, E> | undefined> =>
  Effect.try({ try: () => decode(input), catch: () => undefined }).pipe(
    Effect.orElseSucceed(() => undefined)
  )

/** The first `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
export const cutText = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = max
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return text.slice(0, end)
}
