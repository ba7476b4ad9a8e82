/**
 * Agent Skills validation: parsing a `SKILL.md` (YAML frontmatter with `name` and `description`, then a body) and
 * reporting every problem at once.
 *
 * @since 0.1.0
 */
import { parseDocument } from "yaml"
import { byteLength } from "./internal/files.ts"

/**
 * One validation or discovery finding. Errors exclude a skill; warnings do not.
 *
 * @example
 * ```ts
 * import type { SkillDiagnostic } from "@ctxkit/instructions/SkillValidation"
 *
 * const d: SkillDiagnostic = { severity: "error", code: "name-leading-hyphen", message: "Skill name must not start with a hyphen." }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillDiagnostic {
  /** `error` or `warning`. */
  readonly severity: "error" | "warning"
  /** Stable machine-readable code. */
  readonly code: string
  /** What is wrong and what to do. */
  readonly message: string
  /** The file or directory concerned, when known. */
  readonly path?: string
}

/**
 * Maximum length of a skill name, in characters.
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_NAME_MAX = 64

/**
 * Maximum length of a skill description, in characters.
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_DESCRIPTION_MAX = 1_024

/**
 * Maximum size of a `SKILL.md`, in bytes.
 *
 * @category constants
 * @since 0.1.0
 */
export const SKILL_FILE_MAX_BYTES = 64_000

const error = (code: string, message: string): SkillDiagnostic => ({ severity: "error", code, message })

/**
 * Checks a skill name against the Agent Skills rules — 1–64 characters, lowercase letters and digits with single
 * hyphens, no leading or trailing hyphen — returning one diagnostic per broken rule (none when valid).
 *
 * @category operations
 * @since 0.1.0
 */
export const validateSkillName = (name: string): ReadonlyArray<SkillDiagnostic> => [
  ...(name.length === 0 || name.length > SKILL_NAME_MAX
    ? [error("name-length", `Skill name must be 1-${SKILL_NAME_MAX} characters (got ${name.length}).`)]
    : []),
  ...(/[^a-z0-9-]/.test(name)
    ? [error("name-characters", "Skill name may only contain lowercase letters a-z, digits and hyphens.")]
    : []),
  ...(name.startsWith("-") ? [error("name-leading-hyphen", "Skill name must not start with a hyphen.")] : []),
  ...(name.endsWith("-") ? [error("name-trailing-hyphen", "Skill name must not end with a hyphen.")] : []),
  ...(name.includes("--")
    ? [error("name-consecutive-hyphens", "Skill name must not contain consecutive hyphens.")]
    : [])
]

/**
 * The result of validating one `SKILL.md` text: what could be read and every diagnostic.
 *
 * @example
 * ```ts
 * import { validateSkillFile } from "@ctxkit/instructions"
 *
 * const v = validateSkillFile("---\nname: pdf\ndescription: Fill PDF forms.\n---\nSteps...")
 * v.valid // true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SkillFileValidation {
  /** True when there is no error (warnings allowed). */
  readonly valid: boolean
  /** The `name` field, when it is a string. */
  readonly name: string | undefined
  /** The `description` field, when it is a string. */
  readonly description: string | undefined
  /** The text after the frontmatter. */
  readonly body: string
  /** Every problem found. */
  readonly diagnostics: ReadonlyArray<SkillDiagnostic>
}

/**
 * Splits a `SKILL.md` into its YAML frontmatter and body; `undefined` frontmatter when it does not start with a
 * `---` line closed by another `---` line.
 *
 * @category operations
 * @since 0.1.0
 */
export const splitFrontmatter = (
  text: string
): { readonly frontmatter: string | undefined; readonly body: string } => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (lines[0]?.trimEnd() !== "---") return { frontmatter: undefined, body: text }
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---")
  if (end < 0) return { frontmatter: undefined, body: text }
  return { frontmatter: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") }
}

/**
 * Validates the text of a `SKILL.md` and reports every problem in one pass: frontmatter present and a YAML
 * mapping (parsed with the `yaml` package), name rules (`validateSkillName`), description required and at
 * most 1,024 characters, file at most 64,000 bytes, and — a warning only — a directory name that differs from the
 * skill name. Pure.
 *
 * @example
 * ```ts
 * import { validateSkillFile } from "@ctxkit/instructions"
 *
 * const v = validateSkillFile("---\nname: Bad--Name\n---\n", { directoryName: "bad" })
 * v.diagnostics.map((d) => d.code)
 * // ["name-characters", "name-consecutive-hyphens", "description-missing", "directory-mismatch"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const validateSkillFile = (
  text: string,
  options: { readonly directoryName?: string } = {}
): SkillFileValidation => {
  const { body, frontmatter } = splitFrontmatter(text)
  const size = byteLength(text)
  const sizeDiagnostics = size > SKILL_FILE_MAX_BYTES
    ? [error("file-too-large", `SKILL.md is ${size} bytes; the limit is ${SKILL_FILE_MAX_BYTES}.`)]
    : []
  if (frontmatter === undefined) {
    return {
      valid: false,
      name: undefined,
      description: undefined,
      body,
      diagnostics: [
        error("frontmatter-missing", "SKILL.md must start with YAML frontmatter between --- lines."),
        ...sizeDiagnostics
      ]
    }
  }
  const doc = parseDocument(frontmatter, { prettyErrors: false })
  const yamlErrors = doc.errors.map((e) => error("frontmatter-yaml", `Invalid YAML frontmatter: ${e.message}`))
  const data: unknown = yamlErrors.length === 0 ? doc.toJS() : undefined
  const fields: Readonly<Record<string, unknown>> = typeof data === "object" && data !== null && !Array.isArray(data)
    ? data as Readonly<Record<string, unknown>>
    : {}
  const shapeDiagnostics = yamlErrors.length === 0 && fields !== data
    ? [error("frontmatter-not-mapping", "The frontmatter must be a YAML mapping with name and description.")]
    : []
  const rawName = fields["name"]
  const rawDescription = fields["description"]
  const name = typeof rawName === "string" ? rawName : undefined
  const description = typeof rawDescription === "string" ? rawDescription : undefined
  const nameDiagnostics = rawName === undefined || rawName === null
    ? [error("name-missing", "The frontmatter must have a name.")]
    : name === undefined
    ? [error("name-not-string", "The name must be a string.")]
    : validateSkillName(name)
  const descriptionDiagnostics = rawDescription === undefined || rawDescription === null ||
      (description !== undefined && description.trim() === "")
    ? [error("description-missing", "The frontmatter must have a non-empty description.")]
    : description === undefined
    ? [error("description-not-string", "The description must be a string.")]
    : description.length > SKILL_DESCRIPTION_MAX
    ? [
      error(
        "description-too-long",
        `The description is ${description.length} characters; the limit is ${SKILL_DESCRIPTION_MAX}.`
      )
    ]
    : []
  const directoryDiagnostics: ReadonlyArray<SkillDiagnostic> =
    options.directoryName !== undefined && name !== undefined && options.directoryName !== name
      ? [{
        severity: "warning",
        code: "directory-mismatch",
        message: `Directory ${options.directoryName} differs from the skill name ${name}.`
      }]
      : []
  const diagnostics = [
    ...yamlErrors,
    ...shapeDiagnostics,
    ...nameDiagnostics,
    ...descriptionDiagnostics,
    ...sizeDiagnostics,
    ...directoryDiagnostics
  ]
  return {
    valid: diagnostics.every((d) => d.severity !== "error"),
    name,
    description,
    body,
    diagnostics
  }
}
