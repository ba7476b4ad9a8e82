/**
 * Output: one JSON document on stdout with `--json`, human lines otherwise, and progress on stderr only when stderr
 * is a terminal (piped runs stay quiet).
 *
 * @internal
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import { LARGE_INPUT_BYTES } from "./input.ts"

/** Prints `value` as the one JSON document of the run, on one line (pipe it to `jq` to read it). */
export const printJson = (value: unknown): Effect.Effect<void> => Console.log(JSON.stringify(value))

/** Prints human lines. */
export const printLines = (lines: ReadonlyArray<string>): Effect.Effect<void> => Console.log(lines.join("\n"))

/** A number with thousands separators, as the human output shows token counts. */
export const n = (value: number): string => value.toLocaleString("en-US")

/**
 * A progress reporter for long work: on a terminal, and only for an input of at least 8 MB, each step is written to
 * stderr on one line that the next step overwrites; `done` clears it. Otherwise every call is a no-op.
 */
export const progressFor = Effect.fnUntraced(function*(bytes: number) {
  const stdio = yield* Stdio.Stdio
  const on = bytes >= LARGE_INPUT_BYTES && (yield* stdio.stderrIsTerminal)
  return {
    step: (
      text: string
    ): Effect.Effect<void> => (on ? Effect.sync(() => process.stderr.write(`\r\x1b[2K${text}…`)) : Effect.void),
    done: on ? Effect.sync(() => process.stderr.write("\r\x1b[2K")) : Effect.void
  }
})
