/**
 * What the governor reports instead of failing: a setting that was out of range and the value used instead.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A governor setting was missing a usable value (`mode` not `off`/`shadow`/`on`, `minAgeTurns` outside 1–20,
 * `epochMessages` outside 0–1000, a `policyVersion` other than 1, a `request` that is not a positive integer):
 * `used` is the value applied instead. `given` is the value as text.
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 * import { GovernorSettingAdjusted } from "@ctxkit/governor/Diagnostics"
 *
 * const [diagnostic] = govern([], { mode: "on", minAgeTurns: 0 }).diagnostics
 * diagnostic instanceof GovernorSettingAdjusted && diagnostic.message
 * // "Governor setting minAgeTurns = 0 is out of range; used 1 instead. Set it to an integer from 1 to 20."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class GovernorSettingAdjusted
  extends Schema.TaggedClass<GovernorSettingAdjusted>("@ctxkit/governor/GovernorSettingAdjusted")(
    "GovernorSettingAdjusted",
    {
      /** Which setting. */
      setting: Schema.Literals([
        "mode",
        "minAgeTurns",
        "epochMessages",
        "policyVersion",
        "request",
        "keepToolResults"
      ]),
      /** The value given, as text. */
      given: Schema.String,
      /** The value used instead, as text. */
      used: Schema.String
    }
  )
{
  /** What happened and what to do about it. */
  get message(): string {
    return `Governor setting ${this.setting} = ${this.given} is out of range; used ${this.used} instead. Set it to ${
      ALLOWED[this.setting]
    }.`
  }
}

const ALLOWED: Readonly<Record<GovernorSettingAdjusted["setting"], string>> = {
  mode: "\"off\", \"shadow\" or \"on\"",
  minAgeTurns: "an integer from 1 to 20",
  epochMessages: "an integer from 0 to 1000",
  policyVersion: "1 (the only policy version) or leave it unset",
  request: "a positive integer",
  keepToolResults: "an integer >= 0, or leave it unset"
}
