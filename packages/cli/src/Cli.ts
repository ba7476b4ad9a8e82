/**
 * The `ctxkit` command tree and its runner.
 *
 * @since 0.1.0
 */
import * as Command from "effect/cli/Command"
import { demoCommand } from "./commands/demo.ts"

/**
 * The `ctxkit` root command with every subcommand of cli.md.
 *
 * @example
 * ```ts
 * import { ctxkit } from "@ctxkit/cli/Cli"
 * import * as Command from "effect/cli/Command"
 *
 * const runArgs = Command.runWith(ctxkit, { version: "0.1.0" })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const ctxkit = Command.make("ctxkit").pipe(Command.withSubcommands([demoCommand]))

/**
 * Runs the `ctxkit` command on a process's arguments (`process.argv`: the first two are skipped).
 *
 * @example
 * ```ts
 * import { run } from "@ctxkit/cli/Cli"
 * import * as NodeServices from "@effect/platform-node/NodeServices"
 * import * as Effect from "effect/Effect"
 *
 * const program = run(["node", "ctxkit", "demo"]).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const run = (argv: ReadonlyArray<string>) => Command.runWith(ctxkit, { version: "0.1.0" })(argv.slice(2))
