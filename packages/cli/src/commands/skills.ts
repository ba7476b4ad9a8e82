/**
 * `ctxkit skills list [path]` and `ctxkit skills validate [path]`: the Agent Skills a harness would find from a
 * directory (winners, shadowed copies, diagnostics), and a check of SKILL.md files. `validate` exits 1 when a skill
 * has an error.
 *
 * @internal
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { BadInput, Verdict } from "../internal/errors.ts"
import { json } from "../internal/options.ts"
import { n, printJson, printLines } from "../internal/output.ts"
import { existingPath, workspaceOf } from "./context.ts"

const target = Argument.String("path").pipe(
  Argument.withDescription("A directory (default: the working directory)"),
  Argument.optional
)

const list = Command.make("list", {
  json,
  target,
  home: Flag.String("home").pipe(
    Flag.withDescription("The home directory whose ~/.agents/skills is read (default: $HOME)"),
    Flag.withMetavar("DIR"),
    Flag.optional
  ),
  untrusted: Flag.Boolean("untrusted").pipe(
    Flag.withDescription("Treat the project as untrusted: its own .agents/skills (and the like) are not read"),
    Flag.withDefault(false)
  )
}, (flags) =>
  Effect.gen(function*() {
    const { discoverSkills } = yield* Effect.promise(() => import("@ctxkit/instructions"))
    const path = yield* Path.Path
    const dir = Option.getOrElse(flags.target, () => ".")
    const info = yield* existingPath(dir)
    if (info.type !== "Directory") {
      return yield* new BadInput({
        message: `${dir} is not a directory; pass the project directory to list its skills`
      })
    }
    const cwd = path.resolve(dir)
    const root = yield* workspaceOf(Option.none(), cwd)
    const home = Option.getOrElse(flags.home, () => process.env["HOME"] ?? "")
    const found = yield* discoverSkills({
      workspaceRoot: root,
      cwd,
      trusted: !flags.untrusted,
      ...(home === "" ? {} : { homeDirectory: home })
    })
    const view = (s: (typeof found.skills)[number]) => ({
      name: s.name,
      description: s.description,
      source: s.source,
      directory: s.directory,
      file: s.file,
      tokens: s.tokens,
      enabled: s.enabled
    })
    if (flags.json) {
      yield* printJson({
        skills: found.skills.map(view),
        shadowed: found.shadowed.map(view),
        diagnostics: found.diagnostics
      })
      return
    }
    yield* printLines([
      `${n(found.skills.length)} skills (about ${
        n(found.skills.reduce((sum, s) => sum + s.tokens, 0))
      } tokens in the catalog)`,
      ...found.skills.map((s) => `  ${s.name} (${s.source}${s.enabled ? "" : ", disabled"}): ${s.description}`),
      ...found.shadowed.map((s) => `  shadowed: ${s.name} at ${s.file}`),
      ...found.diagnostics.map((d) => `${d.severity}: ${d.message}${d.path === undefined ? "" : ` (${d.path})`}`)
    ])
  })).pipe(Command.withDescription("List the Agent Skills found from a directory"))

const validate = Command.make("validate", { json, target }, (flags) =>
  Effect.gen(function*() {
    const { validateSkill } = yield* Effect.promise(() => import("@ctxkit/instructions"))
    const dir = Option.getOrElse(flags.target, () => ".")
    yield* existingPath(dir)
    const report = yield* validateSkill(dir)
    const diagnostics = [
      ...report.diagnostics,
      ...report.skills.flatMap((s) => s.validation.diagnostics.map((d) => ({ ...d, path: d.path ?? s.file })))
    ]
    if (flags.json) {
      yield* printJson({
        valid: report.valid,
        skills: report.skills.map((s) => ({
          file: s.file,
          name: s.validation.name ?? null,
          valid: s.validation.valid,
          diagnostics: s.validation.diagnostics
        })),
        diagnostics: report.diagnostics
      })
    } else {
      yield* printLines([
        `${report.valid ? "valid" : "invalid"}: ${n(report.skills.length)} SKILL.md file${
          report.skills.length === 1 ? "" : "s"
        } checked`,
        ...report.skills.map((s) =>
          `  ${s.validation.valid ? "ok" : "error"}: ${s.validation.name ?? "(no name)"} (${s.file})`
        ),
        ...diagnostics.map((d) => `${d.severity}: ${d.message}${d.path === undefined ? "" : ` (${d.path})`}`)
      ])
    }
    if (!report.valid) {
      return yield* new Verdict({
        message: `${
          n(diagnostics.filter((d) => d.severity === "error").length)
        } error(s) in the skills at ${dir}; fix each one listed above`
      })
    }
  })).pipe(Command.withDescription("Check SKILL.md files (name, description, size) under a path"))

/** The `skills` subcommand (`skills list`, `skills validate`). */
export const skillsCommand = Command.make("skills").pipe(
  Command.withDescription("Agent Skills (agentskills.io SKILL.md)"),
  Command.withSubcommands([list, validate])
)
