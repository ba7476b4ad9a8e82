/**
 * The `ctxkit` command tree and its runner.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { compactCommand } from "./commands/compact.ts"
import { contextCommand } from "./commands/context.ts"
import { demoCommand } from "./commands/demo.ts"
import { detectCommand } from "./commands/detect.ts"
import { fitCommand } from "./commands/fit.ts"
import { governCommand } from "./commands/govern.ts"
import { reportCommand } from "./commands/report.ts"
import { skillsCommand } from "./commands/skills.ts"
import { windowCommand } from "./commands/window.ts"
import { BadInput, EXIT, Verdict } from "./internal/errors.ts"
import { presenterLayer } from "./internal/presenter.ts"

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
export const ctxkit = Command.make("ctxkit").pipe(
  Command.withDescription(
    "Context engineering for LLM conversations: does it fit, what fills the window, did the server drop the prompt"
  ),
  Command.withSubcommands([
    fitCommand,
    reportCommand,
    governCommand,
    compactCommand,
    detectCommand,
    windowCommand,
    contextCommand,
    skillsCommand,
    demoCommand
  ])
)

const VERSION = "0.1.0"

/** The exit code of a failed run, after its one-line message went to stderr (help errors printed their own). */
const failureCode = (cause: Cause.Cause<unknown>): Effect.Effect<number> => {
  const error = Cause.squash(cause)
  if (CliError.isCliError(error) && error._tag === "ShowHelp") {
    return Effect.succeed(error.errors.length > 0 ? EXIT.badInput : EXIT.ok)
  }
  if (error instanceof BadInput) return Effect.as(Console.error(`ctxkit: ${error.message}`), EXIT.badInput)
  if (error instanceof Verdict) return Effect.as(Console.error(`ctxkit: ${error.message}`), EXIT.verdict)
  if (CliError.isCliError(error)) {
    return Effect.as(Console.error(`ctxkit: ${error.message.split("\n")[0]}`), EXIT.badInput)
  }
  const text = error instanceof Error ? error.message : String(error)
  return Effect.as(
    Console.error(`ctxkit: internal error (${text.split("\n")[0]}); this is a bug in ctxkit, please report it`),
    EXIT.internal
  )
}

/**
 * Runs the `ctxkit` command on a process's arguments (`process.argv`: the first two are skipped) and succeeds with
 * the exit code of cli.md: 0 ok, 1 the conversation does not fit or truncation was found, 2 bad input or usage (its
 * one-line message already on stderr). It never fails.
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
export const run = (argv: ReadonlyArray<string>) =>
  Command.runWith(ctxkit, { version: VERSION })(argv.slice(2)).pipe(
    Effect.provide(presenterLayer),
    Effect.exit,
    Effect.flatMap((exit) => (Exit.isSuccess(exit) ? Effect.succeed(EXIT.ok as number) : failureCode(exit.cause)))
  )
