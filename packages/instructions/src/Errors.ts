/**
 * Typed errors of `@ctxkit/instructions`: tagged, Schema-defined, each with a message that says what to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A path given to the instructions loader lies outside the workspace root.
 *
 * @example
 * ```ts
 * import { OutsideWorkspace } from "@ctxkit/instructions"
 *
 * new OutsideWorkspace({ path: "/etc", workspaceRoot: "/repo" }).message
 * // "Path /etc is outside the workspace /repo; instructions are only read inside the workspace."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class OutsideWorkspace extends Schema.TaggedError<OutsideWorkspace>()("OutsideWorkspace", {
  /** The offending path. */
  path: Schema.String,
  /** The workspace root it should be under. */
  workspaceRoot: Schema.String
}) {
  override get message(): string {
    return `Path ${this.path} is outside the workspace ${this.workspaceRoot}; instructions are only read inside the workspace.`
  }
}

/**
 * An option is outside its allowed range (for example `maxBytes` outside 1,024–1,048,576).
 *
 * @example
 * ```ts
 * import { InvalidInstructionsOption } from "@ctxkit/instructions"
 *
 * new InvalidInstructionsOption({ option: "maxBytes", value: 10, allowed: "1024-1048576" }).message
 * // "Option maxBytes = 10 is not allowed (allowed: 1024-1048576)."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidInstructionsOption extends Schema.TaggedError<InvalidInstructionsOption>()(
  "InvalidInstructionsOption",
  {
    /** The option's name. */
    option: Schema.String,
    /** The value given. */
    value: Schema.Number,
    /** The allowed values, in words. */
    allowed: Schema.String
  }
) {
  override get message(): string {
    return `Option ${this.option} = ${this.value} is not allowed (allowed: ${this.allowed}).`
  }
}

/**
 * No enabled skill has this name.
 *
 * @example
 * ```ts
 * import { SkillNotFound } from "@ctxkit/instructions"
 *
 * new SkillNotFound({ name: "pdf", reason: "disabled" }).message
 * // "Skill pdf is disabled; enable it or pick a skill from the catalog."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SkillNotFound extends Schema.TaggedError<SkillNotFound>()("SkillNotFound", {
  /** The requested name. */
  name: Schema.String,
  /** Why it cannot be used. */
  reason: Schema.Literals(["unknown", "disabled", "unreadable"])
}) {
  override get message(): string {
    const why = this.reason === "unknown" ? "is not in the catalog" : `is ${this.reason}`
    return `Skill ${this.name} ${why}; enable it or pick a skill from the catalog.`
  }
}

/**
 * A supporting file of a skill cannot be served: outside the skill directory, missing, or larger than the cap.
 *
 * @example
 * ```ts
 * import { SkillResourceDenied } from "@ctxkit/instructions"
 *
 * new SkillResourceDenied({ skill: "pdf", resource: "../x", reason: "outside" }).message
 * // "Resource ../x of skill pdf cannot be read: outside the skill directory."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SkillResourceDenied extends Schema.TaggedError<SkillResourceDenied>()("SkillResourceDenied", {
  /** The skill's name. */
  skill: Schema.String,
  /** The requested relative path. */
  resource: Schema.String,
  /** Why it was refused. */
  reason: Schema.Literals(["outside", "missing", "too-large"])
}) {
  override get message(): string {
    const why = this.reason === "outside"
      ? "outside the skill directory"
      : this.reason === "missing"
      ? "no such file"
      : "larger than the resource cap"
    return `Resource ${this.resource} of skill ${this.skill} cannot be read: ${why}.`
  }
}

/**
 * Writing a file (an override or the root AGENTS.md) failed.
 *
 * @example
 * ```ts
 * import { InstructionsWriteFailed } from "@ctxkit/instructions"
 *
 * new InstructionsWriteFailed({ path: "/repo/AGENTS.md", detail: "EACCES" }).message
 * // "Could not write /repo/AGENTS.md: EACCES"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InstructionsWriteFailed extends Schema.TaggedError<InstructionsWriteFailed>()("InstructionsWriteFailed", {
  /** The file that could not be written. */
  path: Schema.String,
  /** The platform's reason. */
  detail: Schema.String
}) {
  override get message(): string {
    return `Could not write ${this.path}: ${this.detail}`
  }
}

/**
 * Saving skill overrides into an existing config file that is not trusted was refused: an existing config file
 * must be trusted before the host writes into it.
 *
 * @example
 * ```ts
 * import { UntrustedConfigFile } from "@ctxkit/instructions"
 *
 * new UntrustedConfigFile({ path: "/repo/.ctxkit/config.json" }).message
 * // "Refused to write /repo/.ctxkit/config.json: the existing config file is not trusted; trust the project first."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UntrustedConfigFile extends Schema.TaggedError<UntrustedConfigFile>()("UntrustedConfigFile", {
  /** The config file that was not written. */
  path: Schema.String
}) {
  override get message(): string {
    return `Refused to write ${this.path}: the existing config file is not trusted; trust the project first.`
  }
}
