/**
 * `ctxkit demo`: the whole pipeline on an embedded default (cli.md "Commands"). Part 1 runs an agent session built
 * from this package's own files through the engine at a 4,096-token window; part 2 sends an overflow experiment's
 * conversation to a scripted server on 127.0.0.1 that truncates like Ollama, and shows the engine catching it.
 * Offline, a few seconds; `--json` prints one JSON document. Exits 0 when it ran.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { runOverflow } from "../internal/demoOverflow.ts"
import { runPipeline } from "../internal/demoPipeline.ts"
import { demoJson, demoLines } from "../internal/demoText.ts"

const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print one JSON document (both parts, every request and event) instead of the text"),
  Flag.withDefault(false)
)

/** The `demo` subcommand. */
export const demoCommand = Command.make(
  "demo",
  { json },
  Effect.fn(function*({ json }) {
    const pipeline = yield* runPipeline()
    const overflow = yield* runOverflow
    yield* Console.log(
      json ? JSON.stringify(demoJson(pipeline, overflow), null, 2) : demoLines(pipeline, overflow).join("\n")
    )
  })
).pipe(
  Command.withDescription(
    "The whole pipeline on a bundled agent session at a small window, then a silently truncating server caught (offline)"
  )
)
