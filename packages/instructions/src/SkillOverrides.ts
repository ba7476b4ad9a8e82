/**
 * Local enable/disable overrides of skills: a pure update and an atomic save (temporary file, then rename).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { InstructionsWriteFailed, UntrustedConfigFile } from "./Errors.ts"
import { readTextFile, typeOf, writeAtomically } from "./internal/files.ts"
import type { SkillDiscovery, SkillOverrides } from "./SkillDiscovery.ts"

/**
 * The result of {@link setSkillEnabled}: the new overrides and what happened.
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillToggle {
  /** The overrides after the change. */
  readonly overrides: SkillOverrides
  /** `enabled`, `disabled`, `unchanged`, `locked` (a plugin skill) or `unknown` (no winner of that name). */
  readonly change: "enabled" | "disabled" | "unchanged" | "locked" | "unknown"
}

/**
 * Enables or disables a winning skill in the local overrides. Plugin skills are locked; unknown names change
 * nothing. Pure.
 *
 * @example
 * ```ts
 * import { setSkillEnabled } from "@ctxkit/instructions"
 *
 * const discovery = { skills: [{ name: "pdf", locked: false }] }
 * setSkillEnabled(discovery, { disabled: [] }, "pdf", false).overrides // { disabled: ["pdf"] }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const setSkillEnabled = (
  discovery: { readonly skills: ReadonlyArray<Pick<SkillDiscovery["skills"][number], "name" | "locked">> },
  overrides: SkillOverrides,
  name: string,
  enabled: boolean
): SkillToggle => {
  const skill = discovery.skills.find((s) => s.name === name)
  if (skill === undefined) return { overrides, change: "unknown" }
  if (skill.locked) return { overrides, change: "locked" }
  const isDisabled = overrides.disabled.includes(name)
  if (isDisabled === !enabled) return { overrides, change: "unchanged" }
  return enabled
    ? { overrides: { disabled: overrides.disabled.filter((n) => n !== name) }, change: "enabled" }
    : { overrides: { disabled: [...overrides.disabled, name].sort() }, change: "disabled" }
}

const parseJsonObject = (text: string): Effect.Effect<Readonly<Record<string, unknown>>> =>
  Effect.try({ try: (): unknown => JSON.parse(text), catch: () => "invalid" }).pipe(
    Effect.map((data) =>
      typeof data === "object" && data !== null && !Array.isArray(data) ? data as Readonly<Record<string, unknown>> : {}
    ),
    Effect.orElseSucceed(() => ({}))
  )

/**
 * Reads the overrides from a JSON config file (`{ "skills": { "disabled": [...] } }`); a missing or unreadable
 * file means no overrides.
 *
 * @example
 * ```ts
 * import { readSkillOverrides } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = readSkillOverrides("/repo/.ctxkit/config.json").pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const readSkillOverrides: (file: string) => Effect.Effect<SkillOverrides, never, FileSystem.FileSystem> = Effect
  .fn("Skills.readOverrides")(function*(file: string) {
    const fs = yield* FileSystem.FileSystem
    const text = yield* readTextFile(fs, file)
    const config = Option.isSome(text) ? yield* parseJsonObject(text.value) : {}
    const skills = config["skills"]
    const disabled = typeof skills === "object" && skills !== null && "disabled" in skills &&
        Array.isArray(skills.disabled)
      ? skills.disabled.filter((n: unknown): n is string => typeof n === "string")
      : []
    return { disabled }
  })

/**
 * Saves the overrides into a JSON config file atomically: other keys of an existing file are kept, the new text
 * is written to a unique temporary file in the same directory (named from a hash of the text plus a counter, created
 * exclusively), then renamed over it; the temporary file is removed if the rename fails.
 *
 * An existing config file must be trusted: with `trusted: false` and a file already there, nothing is written and
 * the save fails with {@link UntrustedConfigFile}. A missing file (and its directories) is created either way.
 *
 * @example
 * ```ts
 * import { saveSkillOverrides } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = saveSkillOverrides("/repo/.ctxkit/config.json", { disabled: ["pdf"] }, { trusted: true }).pipe(
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const saveSkillOverrides: (
  file: string,
  overrides: SkillOverrides,
  options: {
    /** Whether the existing config file is trusted (a trusted project or an explicit config). */
    readonly trusted: boolean
  }
) => Effect.Effect<void, InstructionsWriteFailed | UntrustedConfigFile, FileSystem.FileSystem | Path.Path> = Effect
  .fn("Skills.saveOverrides")(
    function*(file: string, overrides: SkillOverrides, options: { readonly trusted: boolean }) {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const exists = Option.isSome(yield* typeOf(fs, file))
      if (exists && !options.trusted) return yield* new UntrustedConfigFile({ path: file })
      const existing = yield* readTextFile(fs, file)
      const config = Option.isSome(existing) ? yield* parseJsonObject(existing.value) : {}
      const previous = config["skills"]
      const skills = typeof previous === "object" && previous !== null && !Array.isArray(previous) ? previous : {}
      const text = `${JSON.stringify({ ...config, skills: { ...skills, disabled: overrides.disabled } }, null, 2)}\n`
      const failed = (e: { readonly message: string }) => new InstructionsWriteFailed({ path: file, detail: e.message })
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.mapError(failed))
      yield* writeAtomically(fs, file, text)
    }
  )
