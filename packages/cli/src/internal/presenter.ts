/**
 * How `effect/cli`'s own output is shown: help and the version as usual (stdout), and an invalid invocation as one
 * line per problem on stderr that names the fix (the valid flags, commands or values) — not the whole help page,
 * which would bury the problem and put text on stdout where `--json` promises one document.
 *
 * @internal
 */
import type * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import type { HelpDoc } from "effect/cli/HelpDoc"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const flagList = (doc: HelpDoc): string =>
  [...doc.flags, ...(doc.inheritedFlags ?? [])].map((f) => `--${f.name}`).join(", ")

const commandList = (doc: HelpDoc): string =>
  (doc.subcommands ?? []).flatMap((group) => group.commands.map((c) => c.name)).join(", ")

/** One line for one parse error: the problem, then what is accepted. */
export const problemLine = (
  error: CliError.NonShowHelpErrors,
  doc: HelpDoc,
  commandPath: ReadonlyArray<string>
): string => {
  const command = commandPath.join(" ")
  const help = `see \`${command} --help\``
  switch (error._tag) {
    case "UnrecognizedOption": {
      const suggestion = error.suggestions.length > 0 ? `did you mean ${error.suggestions.join(" or ")}? ` : ""
      return `unknown flag ${error.option}; ${suggestion}valid flags: ${flagList(doc) || "none"} (${help})`
    }
    case "UnknownSubcommand": {
      const suggestion = error.suggestions.length > 0 ? `did you mean ${error.suggestions.join(" or ")}? ` : ""
      return `unknown command "${error.subcommand}"; ${suggestion}valid commands: ${commandList(doc)} (${help})`
    }
    case "MissingOption": {
      const flag = doc.flags.find((f) => f.name === error.option)
      const what = flag === undefined ? "" : Option.getOrElse(flag.description, () => "")
      return `missing required flag --${error.option}${what === "" ? "" : `: ${what}`} (${help})`
    }
    case "MissingArgument":
      return `missing argument <${error.argument}> (${help})`
    case "UnexpectedArgument":
      return `unexpected argument${error.arguments.length > 1 ? "s" : ""} ${error.arguments.join(" ")}; ${
        doc.args !== undefined && doc.args.length > 0 ?
          `takes ${doc.args.map((a) => `<${a.name}>`).join(" ")}` :
          "takes no arguments"
      } (${help})`
    case "InvalidValue":
      return `${error.message.split("\n")[0]} (${help})`
    default:
      return `${error.message.split("\n")[0]} (${help})`
  }
}

/** The presenter the `ctxkit` command runs with. */
export const presenterLayer = CliOutput.layerPresenter({
  present: (event) => {
    if (event._tag !== "InvalidInvocation") return CliOutput.defaultPresenter.present(event)
    // The first problem only: one line that names it and the fix (a typo can make the parser report more).
    const first = event.errors[0]
    return first === undefined
      ? Effect.void
      : Console.error(`${event.commandPath.join(" ")}: ${problemLine(first, event.helpDoc, event.commandPath)}`)
  }
})
