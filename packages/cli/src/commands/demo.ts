/**
 * `ctxkit demo`: the whole pipeline on an embedded default (owned by the demo work; see cli.md "Commands").
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"

/** The `demo` subcommand. */
export const demoCommand = Command.make("demo", {}, () => Console.log("ctxkit demo"))
