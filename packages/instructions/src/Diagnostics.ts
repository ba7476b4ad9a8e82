/**
 * What the pure functions of `@ctxkit/instructions` report instead of failing: an option that could not be used
 * as given and the value used instead. Each has a stable `_tag` and a `message` that names the problem and the
 * fix. (Skill files have their own findings, `SkillDiagnostic` in `@ctxkit/instructions/SkillValidation`; the
 * Effect operations fail with the tagged errors of `@ctxkit/instructions/Errors`.)
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An option of `assembleInstructions` that cannot be used as given was replaced (`given` and `used` as text): a
 * `maxBytes` outside 1,024–1,048,576 is clamped to the nearest bound, a fraction is rounded down, and a value that
 * is not a finite number gives the default 32,768. The result's `maxBytes` is the value used.
 *
 * @example
 * ```ts
 * import { assembleInstructions } from "@ctxkit/instructions"
 *
 * const out = assembleInstructions([], { maxBytes: 10 })
 * out.maxBytes // 1024
 * out.diagnostics[0]?.message
 * // "Option maxBytes = 10 cannot be used; used 1024 instead. Set it to an integer from 1024 to 1048576."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class InstructionsOptionAdjusted extends Schema.TaggedClass<InstructionsOptionAdjusted>(
  "@ctxkit/instructions/InstructionsOptionAdjusted"
)("InstructionsOptionAdjusted", {
  /** Which option (`maxBytes`). */
  option: Schema.String,
  /** The value given, as text. */
  given: Schema.String,
  /** What the option accepts. */
  accepted: Schema.String,
  /** The value used instead, as text. */
  used: Schema.String
}) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Option ${this.option} = ${this.given} cannot be used; used ${this.used} instead. Set it to ${this.accepted}.`
  }
}
