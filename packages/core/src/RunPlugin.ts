/**
 * Running a plugin's function (a compaction hook, a fit strategy or interceptor) as untrusted code: the one runner,
 * so that every package catches the same failures and times out the same way.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * What running a plugin's function gave: its value, or the error it failed with (`timedOut` when it ran past its
 * time; then `error` is Effect's timeout error).
 *
 * @category plugins
 * @since 0.1.0
 */
export type PluginOutcome =
  | { readonly _tag: "Done"; readonly value: unknown }
  | { readonly _tag: "Failed"; readonly timedOut: boolean; readonly error: unknown }

/**
 * Runs `thunk`, a plugin's function: a throw is a failure; a returned Effect runs under `timeout` and is interrupted
 * when it exceeds it; a plain returned value is the answer. Every failure, defect and timeout becomes a `Failed`
 * outcome, so nothing a plugin does escapes. A synchronous function is not timed: JavaScript cannot interrupt
 * synchronous code. Callers word the failure for their own diagnostics or events.
 *
 * @example
 * ```ts
 * import { runPlugin } from "@ctxkit/core/RunPlugin"
 * import * as Duration from "effect/Duration"
 * import * as Effect from "effect/Effect"
 *
 * const outcome = Effect.runSync(runPlugin(() => Effect.succeed("note"), Duration.seconds(5)))
 * outcome._tag // "Done"
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const runPlugin = (thunk: () => unknown, timeout: Duration.Duration): Effect.Effect<PluginOutcome> =>
  Effect.try({ try: thunk, catch: (error) => error }).pipe(
    Effect.flatMap((out) =>
      Effect.isEffect(out)
        // A plugin's Effect is typed as needing no services; one that does dies, and is caught below.
        ? Effect.timeout(out as Effect.Effect<unknown, unknown>, timeout)
        : Effect.succeed(out)
    ),
    Effect.matchCause({
      onSuccess: (value): PluginOutcome => ({ _tag: "Done", value }),
      onFailure: (cause): PluginOutcome => {
        const error = Cause.squash(cause)
        return { _tag: "Failed", timedOut: Cause.isTimeoutError(error), error }
      }
    })
  )
