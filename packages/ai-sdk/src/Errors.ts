/**
 * Typed errors of `@ctxkit/ai-sdk`: tagged, Schema-defined, each with a message that says what to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An option of `contextPrepareStep` that has no safe default cannot be used (a budget or a window that is not a
 * finite number of tokens > 0, both given, neither given): every step refuses with this error before anything
 * is sent, so `generateText` rejects with it instead of sending a prompt fitted to a made-up limit. Also what a
 * direct call refuses with when the step has no `messages` array (`option` is then `messages`).
 *
 * @example
 * ```ts
 * import { InvalidAiSdkOption } from "@ctxkit/ai-sdk/Errors"
 *
 * new InvalidAiSdkOption({ option: "budget", given: "NaN", allowed: "a finite number of tokens > 0" }).message
 * // "Option budget = NaN cannot be used, so no step was sent. Set it to a finite number of tokens > 0."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidAiSdkOption extends Schema.TaggedError<InvalidAiSdkOption>()("InvalidAiSdkOption", {
  /** The option's name (`budget`, `window`, `budget | window` when neither or both were given, `messages`). */
  option: Schema.String,
  /** The value given, described. */
  given: Schema.String,
  /** What is accepted, in words. */
  allowed: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_AI_SDK_OPTION" as const
  override get message(): string {
    return `Option ${this.option} = ${this.given} cannot be used, so no step was sent. Set it to ${this.allowed}.`
  }
}
