/**
 * The process entry of the `ctxkit` command (run by `bin/ctxkit.js`).
 *
 * @internal
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import { run } from "./Cli.ts"

const main = run(process.argv).pipe(
  // The exit code is set, not forced: the process ends once stdout has been written out.
  Effect.flatMap((code) =>
    Effect.sync(() => {
      process.exitCode = code
    })
  ),
  Effect.provide(NodeServices.layer)
)

NodeRuntime.runMain(main)
