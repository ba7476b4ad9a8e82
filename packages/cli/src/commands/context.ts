/**
 * `ctxkit context explain <path>`: which AGENTS.md (or override, legacy, CLAUDE.md) file applies in each directory
 * from the workspace root down to the path.
 *
 * @internal
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { BadInput } from "../internal/errors.ts"
import { json } from "../internal/options.ts"
import { printJson, printLines } from "../internal/output.ts"

/** The workspace root: `--workspace`, else the nearest ancestor of `start` holding `.git`, else `start` itself. */
export const workspaceOf = Effect.fnUntraced(function*(given: Option.Option<string>, start: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (Option.isSome(given)) {
    const info = yield* Effect.option(fs.stat(given.value))
    if (Option.isNone(info) || info.value.type !== "Directory") {
      return yield* new BadInput({
        message: `--workspace ${given.value} is not a directory; pass the project's root directory`
      })
    }
    return path.resolve(given.value)
  }
  const from = path.resolve(start)
  for (let dir = from;;) {
    if (yield* fs.exists(path.join(dir, ".git")).pipe(Effect.orElseSucceed(() => false))) return dir
    const parent = path.dirname(dir)
    // No repository above: the directory itself is the workspace.
    if (parent === dir) return from
    dir = parent
  }
})

/** An existing path, or a usage error that names it. */
export const existingPath = Effect.fnUntraced(function*(target: string) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* Effect.option(fs.stat(target))
  if (Option.isNone(info)) {
    return yield* new BadInput({ message: `${target}: no such file or directory; check the path` })
  }
  return info.value
})

const workspace = Flag.String("workspace").pipe(
  Flag.withDescription(
    "The workspace root (default: the nearest directory with .git above the path, else the path's own directory)"
  ),
  Flag.withMetavar("DIR"),
  Flag.optional
)

const explain = Command.make("explain", {
  json,
  workspace,
  configHome: Flag.String("config-home").pipe(
    Flag.withDescription("The global scope's directory (its AGENTS.md applies everywhere)"),
    Flag.withMetavar("DIR"),
    Flag.optional
  ),
  claudeMd: Flag.Boolean("claude-md").pipe(
    Flag.withDescription("Also read CLAUDE.md where no AGENTS.md exists"),
    Flag.withDefault(false)
  ),
  target: Argument.String("path").pipe(Argument.withDescription("A file or directory inside the workspace"))
}, (flags) =>
  Effect.gen(function*() {
    const { explainInstructions } = yield* Effect.promise(() => import("@ctxkit/instructions"))
    const path = yield* Path.Path
    const info = yield* existingPath(flags.target)
    const start = info.type === "Directory" ? flags.target : path.dirname(flags.target)
    const root = yield* workspaceOf(flags.workspace, start)
    const directories = yield* explainInstructions({
      workspaceRoot: root,
      claudeMdFallback: flags.claudeMd,
      ...(Option.isSome(flags.configHome) ? { configHome: flags.configHome.value } : {})
    }, path.resolve(flags.target)).pipe(
      Effect.mapError(() =>
        new BadInput({
          message: `${flags.target} is outside the workspace ${root}; pass a path inside it, or --workspace DIR`
        })
      )
    )
    if (flags.json) {
      yield* printJson({ workspace: root, directories })
      return
    }
    yield* printLines([
      `workspace ${root}`,
      ...directories.map((d) =>
        `  ${d.scope === "global" ? "global " : ""}${d.directory}: ${
          d.file === undefined ? "(none)" : `${d.file} (${d.kind})`
        }`
      )
    ])
  })).pipe(Command.withDescription("Which AGENTS.md applies in each directory from the workspace root to a path"))

/** The `context` subcommand (`context explain`). */
export const contextCommand = Command.make("context").pipe(
  Command.withDescription("Project instructions (AGENTS.md)"),
  Command.withSubcommands([explain])
)
