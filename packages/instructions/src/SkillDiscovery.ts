/**
 * Agent Skills discovery: the skill roots in precedence order, a bounded walk of each, shadowing (first name
 * wins), local enable/disable overrides, and `validateSkill` over a path.
 *
 * @since 0.1.0
 */
import { approximateCounter } from "@ctxkit/budget"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { directoriesDown, isWithin, readTextFile, realPathOr, typeOf } from "./internal/files.ts"
import type { SkillDiagnostic, SkillFileValidation } from "./SkillValidation.ts"
import { validateSkillFile } from "./SkillValidation.ts"

/**
 * Where a skill root comes from, in precedence order: `project`, `config`, `user`, `plugin`.
 *
 * @category models
 * @since 0.1.0
 */
export type SkillSource = "project" | "config" | "user" | "plugin"

/**
 * A directory registered by a plugin; its skills are shown as `plugin:name` and locked.
 *
 * @category models
 * @since 0.1.0
 */
export interface PluginSkills {
  /** The plugin's name (the prefix of its skills' names). */
  readonly plugin: string
  /** The directory holding its skills. */
  readonly directory: string
}

/**
 * Local overrides: names of winning skills the user disabled.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillOverrides {
  /** Disabled skill names. */
  readonly disabled: ReadonlyArray<string>
}

/**
 * Where to look for skills and how far.
 *
 * @example
 * ```ts
 * import type { SkillDiscoveryOptions } from "@ctxkit/instructions/SkillDiscovery"
 *
 * const options: SkillDiscoveryOptions = { workspaceRoot: "/repo", trusted: true, homeDirectory: "/home/me" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillDiscoveryOptions {
  /** The workspace root. */
  readonly workspaceRoot: string
  /** The working directory; defaults to the root. */
  readonly cwd?: string
  /** Only trusted projects get project roots. */
  readonly trusted: boolean
  /** The host's own directory name beside `.agents` and `.claude` (default `.ctxkit`). */
  readonly hostDirectory?: string
  /** Configured skill directories (relative ones resolve against the workspace root). */
  readonly configPaths?: ReadonlyArray<string>
  /** The user's home directory, for `~/.agents/skills`. */
  readonly homeDirectory?: string
  /** The host's config home, for `<config home>/skills`. */
  readonly configHome?: string
  /** Directories registered by plugins. */
  readonly plugins?: ReadonlyArray<PluginSkills>
  /** Local enable/disable overrides. */
  readonly overrides?: SkillOverrides
  /** Deepest level searched below a root (default 5). */
  readonly maxDepth?: number
  /** Most directories visited by the whole discovery, all roots together (default 2,000). */
  readonly maxDirectories?: number
}

/**
 * A skill root: a directory to walk and where it comes from.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillRoot {
  /** Absolute directory. */
  readonly directory: string
  /** Its source. */
  readonly source: SkillSource
  /** The plugin that registered it, for `plugin` roots. */
  readonly plugin: string | undefined
}

/**
 * A discovered skill (the winner of its name). Bodies are not held: see `loadSkill`.
 *
 * @example
 * ```ts
 * import type { Skill } from "@ctxkit/instructions"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Skill {
  /** Name shown and used to load it (`plugin:name` for plugin skills). */
  readonly name: string
  /** The description from the frontmatter. */
  readonly description: string
  /** Where it comes from. */
  readonly source: SkillSource
  /** Its plugin, for plugin skills. */
  readonly plugin: string | undefined
  /** The skill directory (absolute). */
  readonly directory: string
  /** Its `SKILL.md` (absolute). */
  readonly file: string
  /** Characters of `SKILL.md`. */
  readonly chars: number
  /** Approximate token cost of loading it: `approximateCounter` from `@ctxkit/budget` (ceil(chars / 4)). */
  readonly tokens: number
  /** False when a local override disabled it. */
  readonly enabled: boolean
  /** True when its plugin owns its state (plugin skills). */
  readonly locked: boolean
}

/**
 * The outcome of discovery: winners, shadowed copies and every diagnostic.
 *
 * @example
 * ```ts
 * import type { SkillDiscovery } from "@ctxkit/instructions/SkillDiscovery"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillDiscovery {
  /** One skill per name, in discovery order; disabled ones included with `enabled: false`. */
  readonly skills: ReadonlyArray<Skill>
  /** Later skills with a name already taken. */
  readonly shadowed: ReadonlyArray<Skill>
  /** Shadowing, limits, loops and invalid skills. */
  readonly diagnostics: ReadonlyArray<SkillDiagnostic>
  /** The roots walked, in order. */
  readonly roots: ReadonlyArray<SkillRoot>
}

/**
 * Lists the skill roots in precedence order: project roots (`.agents/skills`, `<host>/skills`, `.claude/skills` in
 * each directory from `cwd` up to the workspace root; trusted projects only), configured paths,
 * `~/.agents/skills` and `<config home>/skills`, then plugin directories.
 *
 * @category operations
 * @since 0.1.0
 */
export const skillRoots = (options: SkillDiscoveryOptions): Effect.Effect<ReadonlyArray<SkillRoot>, never, Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const root = path.resolve(options.workspaceRoot)
    const cwd = path.resolve(root, options.cwd ?? root)
    const host = options.hostDirectory ?? ".ctxkit"
    const names = [...new Set([".agents", host, ".claude"])]
    const upward = isWithin(path, root, cwd) ? [...directoriesDown(path, root, cwd)].reverse() : [root]
    const make = (directory: string, source: SkillSource, plugin?: string): SkillRoot => ({
      directory,
      source,
      plugin
    })
    return [
      ...(options.trusted ? upward.flatMap((d) => names.map((n) => make(path.join(d, n, "skills"), "project"))) : []),
      ...(options.configPaths ?? []).map((p) => make(path.resolve(root, p), "config")),
      ...(options.homeDirectory === undefined
        ? []
        : [make(path.join(path.resolve(options.homeDirectory), ".agents", "skills"), "user")]),
      ...(options.configHome === undefined
        ? []
        : [make(path.join(path.resolve(options.configHome), "skills"), "user")]),
      ...(options.plugins ?? []).map((p) => make(path.resolve(root, p.directory), "plugin", p.plugin))
    ]
  })

/**
 * Default walk limits: 5 levels deep, 2,000 directories for the whole discovery (all roots together).
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_WALK_LIMITS = { maxDepth: 5, maxDirectories: 2_000 } as const

interface Walk {
  readonly skillDirectories: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<SkillDiagnostic>
}

/**
 * Breadth-first walk of one root. `seen` (real paths) and `counted` (directories already visited by earlier roots)
 * are shared across roots: one directory is read once, and `maxDirectories` bounds the whole discovery.
 */
const walkRoot = (
  root: string,
  limits: { readonly maxDepth: number; readonly maxDirectories: number },
  seen: ReadonlySet<string>,
  counted: number
): Effect.Effect<
  Walk & { readonly seen: ReadonlySet<string>; readonly counted: number; readonly stopped: boolean },
  never,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const visited = new Set(seen)
    const inThisWalk = new Set<string>()
    const found: Array<string> = []
    const diagnostics: Array<SkillDiagnostic> = []
    let queue: ReadonlyArray<readonly [string, number]> = [[root, 0]]
    let count = counted
    while (queue.length > 0) {
      const next: Array<readonly [string, number]> = []
      for (const [directory, depth] of queue) {
        if (Option.getOrUndefined(yield* typeOf(fs, directory)) !== "Directory") continue
        const real = yield* realPathOr(fs, directory)
        if (inThisWalk.has(real)) {
          diagnostics.push({
            severity: "warning",
            code: "symlink-loop",
            message: "Directory already visited (a symlink loop or duplicate link); skipped.",
            path: directory
          })
          continue
        }
        // Already read from an earlier root (a shared or linked directory): not a second copy.
        if (visited.has(real)) continue
        if (count >= limits.maxDirectories) {
          diagnostics.push({
            severity: "warning",
            code: "directory-limit",
            message: `Stopped after ${limits.maxDirectories} directories in all skill roots together; ` +
              "skills in this root's remaining directories and in later roots were not read.",
            path: root
          })
          return { skillDirectories: found, diagnostics, seen: visited, counted: count, stopped: true }
        }
        count += 1
        visited.add(real)
        inThisWalk.add(real)
        if (Option.getOrUndefined(yield* typeOf(fs, path.join(directory, "SKILL.md"))) === "File") {
          found.push(directory)
          continue
        }
        if (depth >= limits.maxDepth) continue
        const entries = yield* fs.readDirectory(directory).pipe(Effect.orElseSucceed(() => []))
        ;[...entries].sort().filter((name) => !name.startsWith(".") && name !== "node_modules").forEach((name) =>
          next.push([path.join(directory, name), depth + 1])
        )
      }
      queue = next
    }
    return { skillDirectories: found, diagnostics, seen: visited, counted: count, stopped: false }
  })

const readSkill = Effect.fnUntraced(function*(directory: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = path.join(directory, "SKILL.md")
  const text = yield* readTextFile(fs, file)
  return {
    file,
    text,
    validation: Option.map(text, (t) => validateSkillFile(t, { directoryName: path.basename(directory) }))
  }
})

/**
 * Discovers skills: walks each root of `skillRoots` in order (at most `maxDepth` levels below each root and
 * `maxDirectories` directories for all roots together, with one `directory-limit` diagnostic when it stops; hidden directories and `node_modules` skipped; no descent into a skill; directories
 * de-duplicated by real path), validates each `SKILL.md`, keeps the first skill of each name and reports later
 * ones as shadowed. Disabled winners stay winners (`enabled: false`): their shadowed copies are not promoted.
 *
 * @example
 * ```ts
 * import { discoverSkills } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = discoverSkills({ workspaceRoot: "/repo", trusted: true }).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const discoverSkills: (
  options: SkillDiscoveryOptions
) => Effect.Effect<SkillDiscovery, never, FileSystem.FileSystem | Path.Path> = Effect.fn("Skills.discover")(
  function*(options: SkillDiscoveryOptions) {
    const roots = yield* skillRoots(options)
    const limits = {
      maxDepth: options.maxDepth ?? SKILL_WALK_LIMITS.maxDepth,
      maxDirectories: options.maxDirectories ?? SKILL_WALK_LIMITS.maxDirectories
    }
    const disabled = new Set(options.overrides?.disabled ?? [])
    let seen: ReadonlySet<string> = new Set()
    let counted = 0
    let stopped = false
    const skills: Array<Skill> = []
    const shadowed: Array<Skill> = []
    const diagnostics: Array<SkillDiagnostic> = []
    for (const root of roots) {
      // The directory limit is global: once it stops a walk, later roots are not walked at all.
      if (stopped) break
      const walk = yield* walkRoot(root.directory, limits, seen, counted)
      seen = walk.seen
      counted = walk.counted
      stopped = walk.stopped
      diagnostics.push(...walk.diagnostics)
      for (const directory of walk.skillDirectories) {
        const { file, text, validation } = yield* readSkill(directory)
        if (Option.isNone(text) || Option.isNone(validation)) continue
        const v: SkillFileValidation = validation.value
        if (!v.valid || v.name === undefined || v.description === undefined) {
          diagnostics.push({
            severity: "error",
            code: "invalid-skill",
            message: `Skipped an invalid skill: ${
              v.diagnostics.filter((d) => d.severity === "error").map((d) => d.code).join(", ")
            }.`,
            path: file
          })
          continue
        }
        const name = root.plugin === undefined ? v.name : `${root.plugin}:${v.name}`
        const locked = root.source === "plugin"
        const skill: Skill = {
          name,
          description: v.description,
          source: root.source,
          plugin: root.plugin,
          directory,
          file,
          chars: text.value.length,
          tokens: approximateCounter.count(text.value),
          enabled: locked || !disabled.has(name),
          locked
        }
        const winner = skills.find((s) => s.name === name)
        if (winner === undefined) {
          skills.push(skill)
        } else {
          shadowed.push(skill)
          diagnostics.push({
            severity: "warning",
            code: "shadowed",
            message: `Skill ${name} is shadowed by ${winner.file}.`,
            path: file
          })
        }
      }
    }
    return { skills, shadowed, diagnostics, roots }
  }
)

/**
 * The report of {@link validateSkill}: each `SKILL.md` found under the path with its validation, plus walk
 * diagnostics.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillValidationReport {
  /** True when no skill has an error. */
  readonly valid: boolean
  /** Each `SKILL.md` and its validation. */
  readonly skills: ReadonlyArray<{
    /** Path of the `SKILL.md`. */
    readonly file: string
    /** Its validation. */
    readonly validation: SkillFileValidation
  }>
  /** Walk diagnostics (limits, loops, nothing found). */
  readonly diagnostics: ReadonlyArray<SkillDiagnostic>
}

/**
 * Validates the skill(s) at `path` — a `SKILL.md`, a skill directory, or a root of skills (walked with the same
 * limits as discovery) — reporting every diagnostic of every skill.
 *
 * @example
 * ```ts
 * import { validateSkill } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = validateSkill("./.agents/skills").pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const validateSkill: (
  path: string
) => Effect.Effect<SkillValidationReport, never, FileSystem.FileSystem | Path.Path> = Effect.fn("Skills.validate")(
  function*(target: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const resolved = path.resolve(target)
    const isFile = Option.getOrUndefined(yield* typeOf(fs, resolved)) === "File"
    const walk = isFile
      ? { skillDirectories: [path.dirname(resolved)], diagnostics: [] }
      : yield* walkRoot(resolved, SKILL_WALK_LIMITS, new Set(), 0)
    const read = yield* Effect.forEach(walk.skillDirectories, (directory) => readSkill(directory))
    const skills = read.flatMap(({ file, validation }) =>
      Option.isSome(validation) ? [{ file, validation: validation.value }] : []
    )
    const nothing: ReadonlyArray<SkillDiagnostic> = skills.length === 0
      ? [{ severity: "error", code: "no-skill", message: "No SKILL.md found at this path.", path: resolved }]
      : []
    const diagnostics = [...walk.diagnostics, ...nothing]
    return {
      valid: nothing.length === 0 && skills.every((s) => s.validation.valid),
      skills,
      diagnostics
    }
  }
)
