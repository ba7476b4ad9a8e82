/**
 * The `/init` template: creates the workspace root AGENTS.md, or adds the template's missing sections to an
 * existing one without touching what is there.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { InstructionsWriteFailed } from "./Errors.ts"
import { readTextFile, writeAtomically } from "./internal/files.ts"

const SECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["## Project overview", "<!-- What this project is, its layout, and where to start reading. -->"],
  ["## Build and test", "<!-- Exact commands to install, build, test and lint; what must pass before a change. -->"],
  ["## Code style", "<!-- Language rules, formatting, naming and patterns to follow or avoid. -->"],
  ["## Conventions", "<!-- Commits, pull requests, files never to edit, and anything an agent must ask first. -->"]
]

/**
 * The template written by `/init` for a new root AGENTS.md.
 *
 * @category operations
 * @since 0.1.0
 */
export const AGENTS_INIT_TEMPLATE = [
  "# AGENTS.md\n\nInstructions for coding agents working in this repository. Files in subdirectories refine these; " +
  "the closest file wins.",
  ...SECTIONS.map(([heading, hint]) => `${heading}\n\n${hint}`)
].join("\n\n") + "\n"

/**
 * What `/init` did: the new text, whether it `created`, `updated` or left the file `unchanged`, and the section
 * headings it added.
 *
 * @example
 * ```ts
 * import { updateAgentsTemplate } from "@ctxkit/instructions"
 *
 * updateAgentsTemplate(undefined).action // "created"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export interface InitResult {
  /** The file's text after `/init`. */
  readonly text: string
  /** What happened. */
  readonly action: "created" | "updated" | "unchanged"
  /** Headings appended. */
  readonly added: ReadonlyArray<string>
}

/**
 * Pure step of `/init`: the template when there is no file, otherwise the existing text with the missing template
 * sections appended.
 *
 * @example
 * ```ts
 * import { updateAgentsTemplate } from "@ctxkit/instructions"
 *
 * updateAgentsTemplate("# Mine\n\n## Build and test\n\nnpm test\n").added
 * // ["## Project overview", "## Code style", "## Conventions"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const updateAgentsTemplate = (existing: string | undefined): InitResult => {
  if (existing === undefined) {
    return { text: AGENTS_INIT_TEMPLATE, action: "created", added: SECTIONS.map(([h]) => h) }
  }
  const lines = new Set(existing.split(/\r?\n/).map((l) => l.trim()))
  const missing = SECTIONS.filter(([heading]) => !lines.has(heading))
  if (missing.length === 0) return { text: existing, action: "unchanged", added: [] }
  const text = [existing.trimEnd(), ...missing.map(([heading, hint]) => `${heading}\n\n${hint}`)].join("\n\n") + "\n"
  return { text, action: "updated", added: missing.map(([h]) => h) }
}

/**
 * `/init`: creates or updates `<workspace root>/AGENTS.md` with {@link updateAgentsTemplate}, writing atomically
 * (temporary file, then rename).
 *
 * @example
 * ```ts
 * import { initAgentsFile } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = initAgentsFile("/repo").pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const initAgentsFile: (
  workspaceRoot: string
) => Effect.Effect<InitResult, InstructionsWriteFailed, FileSystem.FileSystem | Path.Path> = Effect.fn(
  "Instructions.init"
)(function*(workspaceRoot: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = path.join(path.resolve(workspaceRoot), "AGENTS.md")
  const existing = yield* readTextFile(fs, file)
  const result = updateAgentsTemplate(Option.getOrUndefined(existing))
  if (result.action === "unchanged") return result
  yield* writeAtomically(fs, file, result.text)
  return result
})
