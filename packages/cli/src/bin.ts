/**
 * The process entry of the `ctxkit` command (run by `bin/ctxkit.js`).
 *
 * @internal
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import { run } from "./Cli.ts"

run(process.argv).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
