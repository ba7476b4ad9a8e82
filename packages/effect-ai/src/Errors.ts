/**
 * Typed errors of `@ctxkit/effect-ai`: tagged, Schema-defined, each with a message that says what to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An option given to `tokenizerLayer` or `OpenAiCompatible.layer` cannot be used: the layer is not built,
 * so nothing is ever sent with a bad value.
 *
 * @example
 * ```ts
 * import { InvalidEffectAiOption } from "@ctxkit/effect-ai"
 *
 * new InvalidEffectAiOption({ option: "baseUrl", given: "\"localhost\"", allowed: "an http(s) URL" }).message
 * // "Option baseUrl = \"localhost\" cannot be used. Set it to an http(s) URL."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidEffectAiOption extends Schema.TaggedError<InvalidEffectAiOption>()("InvalidEffectAiOption", {
  /** The option's name. */
  option: Schema.String,
  /** The value given, described. */
  given: Schema.String,
  /** What is accepted, in words. */
  allowed: Schema.String
}) {
  override get message(): string {
    return `Option ${this.option} = ${this.given} cannot be used. Set it to ${this.allowed}.`
  }
}
