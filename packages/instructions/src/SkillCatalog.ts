/**
 * Progressive disclosure of skills: a catalog of names and descriptions for the context, search over it, and
 * the body and supporting files loaded on demand.
 *
 * @since 0.1.0
 */
import { approximateCounter } from "@ctxkit/budget"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { SkillNotFound, SkillResourceDenied } from "./Errors.ts"
import { isWithin, readTextFile, realPathOr } from "./internal/files.ts"
import type { Skill, SkillDiscovery, SkillSource } from "./SkillDiscovery.ts"
import { splitFrontmatter } from "./SkillValidation.ts"

/**
 * One catalog line: what the model sees of a skill before loading it, and its approximate token cost.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillCatalogEntry {
  /** The skill's name. */
  readonly name: string
  /** Its description. */
  readonly description: string
  /** Where it comes from. */
  readonly source: SkillSource
  /** Approximate tokens of loading its body (`approximateCounter` from `@ctxkit/budget`: ceil(chars / 4)). */
  readonly tokens: number
}

/**
 * The catalog: enabled skills and the text for the context (`list`), or a pointer to search when the list would
 * exceed `maxChars` (`pointer`).
 *
 * @example
 * ```ts
 * import type { SkillCatalog } from "@ctxkit/instructions"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillCatalog {
  /** `list` or `pointer`. */
  readonly mode: "list" | "pointer"
  /** Enabled skills, in discovery order. */
  readonly entries: ReadonlyArray<SkillCatalogEntry>
  /** Text for the model; empty when there is no enabled skill. */
  readonly text: string
  /** Sum of the entries' token costs. */
  readonly totalTokens: number
}

/**
 * Default size above which the catalog is replaced by a pointer to search, in characters.
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_CATALOG_MAX_CHARS = 8_000

/**
 * Header of the catalog text.
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_CATALOG_HEADER = "# Skills\n" +
  "Skills are instructions loaded on demand. Load a skill with skill_load before following it; read its " +
  "supporting files with skill_resource."

/**
 * Builds the catalog of enabled skills: names and descriptions only, never bodies or paths. Pure.
 *
 * @example
 * ```ts
 * import { type Skill, skillCatalog } from "@ctxkit/instructions"
 *
 * const pdf: Skill = {
 *   name: "pdf-tools",
 *   description: "Fill and merge PDF forms.",
 *   source: "project",
 *   plugin: undefined,
 *   directory: "/repo/.agents/skills/pdf-tools",
 *   file: "/repo/.agents/skills/pdf-tools/SKILL.md",
 *   chars: 2_400,
 *   tokens: 600,
 *   enabled: true,
 *   locked: false
 * }
 * const catalog = skillCatalog({ skills: [pdf] })
 * catalog.mode // "list": small enough to list every skill
 * catalog.totalTokens // 600
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const skillCatalog = (
  discovery: Pick<SkillDiscovery, "skills">,
  options: { readonly maxChars?: number } = {}
): SkillCatalog => {
  const entries = discovery.skills.filter((s) => s.enabled).map((s): SkillCatalogEntry => ({
    name: s.name,
    description: s.description,
    source: s.source,
    tokens: s.tokens
  }))
  const totalTokens = entries.reduce((sum, e) => sum + e.tokens, 0)
  if (entries.length === 0) return { mode: "list", entries, text: "", totalTokens }
  const list = [SKILL_CATALOG_HEADER, ...entries.map((e) => `- ${e.name}: ${e.description.replace(/\s+/g, " ")}`)]
    .join("\n")
  if (list.length <= (options.maxChars ?? SKILL_CATALOG_MAX_CHARS)) {
    return { mode: "list", entries, text: list, totalTokens }
  }
  const pointer = `${SKILL_CATALOG_HEADER}\n${entries.length} skills are available, too many to list. ` +
    "Find one with skill_search, then load it with skill_load."
  return { mode: "pointer", entries, text: pointer, totalTokens }
}

/**
 * Searches catalog entries: every query word must occur in the name or description (case-insensitive); name hits
 * rank higher; ties keep catalog order. Pure.
 *
 * @example
 * ```ts
 * import { searchSkills } from "@ctxkit/instructions"
 *
 * const entries = [{ name: "pdf", description: "Fill PDF forms.", source: "user" as const, tokens: 10 }]
 * searchSkills(entries, "pdf forms").map((e) => e.name) // ["pdf"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const searchSkills = (
  entries: ReadonlyArray<SkillCatalogEntry>,
  query: string,
  options: { readonly limit?: number } = {}
): ReadonlyArray<SkillCatalogEntry> => {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== "")
  if (words.length === 0) return []
  return entries
    .map((entry, index) => {
      const name = entry.name.toLowerCase()
      const description = entry.description.toLowerCase()
      const all = words.every((w) => name.includes(w) || description.includes(w))
      const score = words.reduce((s, w) => s + (name.includes(w) ? 3 : 0) + (description.includes(w) ? 1 : 0), 0)
      return { entry, index, score: all ? score : 0 }
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, options.limit ?? 10)
    .map((r) => r.entry)
}

const findEnabled = (discovery: Pick<SkillDiscovery, "skills">, name: string): Effect.Effect<Skill, SkillNotFound> => {
  const skill = discovery.skills.find((s) => s.name === name)
  if (skill === undefined) return Effect.fail(new SkillNotFound({ name, reason: "unknown" }))
  if (!skill.enabled) return Effect.fail(new SkillNotFound({ name, reason: "disabled" }))
  return Effect.succeed(skill)
}

/**
 * A loaded skill: its body (the `SKILL.md` text after the frontmatter) and its token cost.
 *
 * @category models
 * @since 0.1.0
 */
export interface LoadedSkill {
  /** The skill's name. */
  readonly name: string
  /** The body. */
  readonly body: string
  /** Approximate tokens of the body (`approximateCounter` from `@ctxkit/budget`: ceil(chars / 4)). */
  readonly tokens: number
}

/**
 * Loads the body of an enabled skill on demand, reading its `SKILL.md` again (it may have changed).
 *
 * @example
 * ```ts
 * import { discoverSkills, loadSkill } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = discoverSkills({ workspaceRoot: "/repo", trusted: true }).pipe(
 *   Effect.flatMap((found) => loadSkill(found, "pdf")),
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const loadSkill: (
  discovery: Pick<SkillDiscovery, "skills">,
  name: string
) => Effect.Effect<LoadedSkill, SkillNotFound, FileSystem.FileSystem> = Effect.fn("Skills.load")(
  function*(discovery: Pick<SkillDiscovery, "skills">, name: string) {
    const fs = yield* FileSystem.FileSystem
    const skill = yield* findEnabled(discovery, name)
    const text = yield* readTextFile(fs, skill.file)
    if (Option.isNone(text)) return yield* new SkillNotFound({ name, reason: "unreadable" })
    const body = splitFrontmatter(text.value).body.replace(/^\n+/, "")
    return { name, body, tokens: approximateCounter.count(body) }
  }
)

/**
 * Default cap on a skill resource, in bytes (256 KiB).
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_RESOURCE_MAX_BYTES = 262_144

/**
 * Reads a supporting file of an enabled skill, given relative to the skill directory: confined to that directory
 * (also through symlinks) and refused above `maxBytes`.
 *
 * @example
 * ```ts
 * import { discoverSkills, skillResource } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = discoverSkills({ workspaceRoot: "/repo", trusted: true }).pipe(
 *   Effect.flatMap((found) => skillResource(found, "pdf", "reference/forms.md")),
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const skillResource: (
  discovery: Pick<SkillDiscovery, "skills">,
  name: string,
  resource: string,
  options?: { readonly maxBytes?: number }
) => Effect.Effect<string, SkillNotFound | SkillResourceDenied, FileSystem.FileSystem | Path.Path> = Effect.fn(
  "Skills.resource"
)(function*(
  discovery: Pick<SkillDiscovery, "skills">,
  name: string,
  resource: string,
  options: { readonly maxBytes?: number } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const skill = yield* findEnabled(discovery, name)
  const target = path.resolve(skill.directory, resource)
  const denied = (reason: "outside" | "missing" | "too-large") =>
    new SkillResourceDenied({ skill: name, resource, reason })
  if (path.isAbsolute(resource) || !isWithin(path, skill.directory, target)) return yield* denied("outside")
  const info = yield* fs.stat(target).pipe(Effect.option)
  if (Option.isNone(info) || info.value.type !== "File") return yield* denied("missing")
  const real = yield* realPathOr(fs, target)
  if (!isWithin(path, yield* realPathOr(fs, skill.directory), real)) return yield* denied("outside")
  if (Number(info.value.size) > (options.maxBytes ?? SKILL_RESOURCE_MAX_BYTES)) return yield* denied("too-large")
  return yield* fs.readFileString(target).pipe(Effect.mapError(() => denied("missing")))
})
