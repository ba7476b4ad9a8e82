/**
 * Options to settings, once for every package: each option is described by a Schema of the values accepted, a
 * sentence saying what those are, and its documented default. Reading an options object gives the settings
 * and one {@link SettingAdjustment} per option that could not be used as given (which option, the value given,
 * what is accepted, what was used), from which each package builds its own diagnostic.
 *
 * This is the project's bad-options policy for an option that has a default (docs/architecture.md): a bad
 * value is never used, and never replaced silently.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * How one option is read: the values accepted (a Schema), what they are in words, the documented default, and
 * optionally a repair that turns a refused value into the one used instead (a clamp into range, say); without a
 * repair the default is used.
 *
 * @category models
 * @since 0.1.0
 */
export interface Setting<A> {
  /** Whether a given value is accepted as it is (built from the Schema). */
  readonly accepts: (given: unknown) => given is A
  /** What is accepted, as the end of "Set it to …": `"an integer from 1 to 20"`. */
  readonly accepted: string
  /** The value used when the option is absent (`undefined`). */
  readonly default: A
  /** The value used instead of one that is not accepted; the default when absent. */
  readonly repair: ((given: unknown) => A) | undefined
}

/**
 * Describes one option: a Schema of the accepted values, what they are in words and the documented default.
 *
 * @example
 * ```ts
 * import { setting } from "@ctxkit/core/Settings"
 * import * as Schema from "effect/Schema"
 *
 * const keepToolResults = setting(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), {
 *   accepted: "a whole number of tool results, 0 or more",
 *   default: 6
 * })
 * keepToolResults.accepts(-1) // false
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const setting = <S extends Schema.Constraint>(
  schema: S,
  options: {
    readonly accepted: string
    readonly default: S["Type"]
    readonly repair?: ((given: unknown) => S["Type"]) | undefined
  }
): Setting<S["Type"]> => {
  const is = Schema.is(schema)
  return {
    accepts: (given: unknown): given is S["Type"] => is(given),
    accepted: options.accepted,
    default: options.default,
    repair: options.repair
  }
}

/**
 * One option that could not be used as given: its name (with the prefix of a nested option, such as
 * `compress.keep`), the value given, what is accepted and the value used instead.
 *
 * @category models
 * @since 0.1.0
 */
export interface SettingAdjustment {
  readonly option: string
  readonly given: unknown
  readonly accepted: string
  readonly used: unknown
}

/**
 * Reads one option on its own (a value passed as a parameter rather than in an options object): the value to
 * use, and the adjustment when the value given could not be used as it is.
 *
 * @example
 * ```ts
 * import { readSetting, setting } from "@ctxkit/core/Settings"
 * import * as Schema from "effect/Schema"
 *
 * const threshold = setting(Schema.Number.check(Schema.isBetween({ minimum: 0.1, maximum: 0.99 })), {
 *   accepted: "a fraction from 0.1 to 0.99",
 *   default: 0.85
 * })
 * readSetting("threshold", threshold, Number.NaN).value // 0.85, with an adjustment saying so
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const readSetting = <A>(
  option: string,
  field: Setting<A>,
  given: unknown
): { readonly value: A; readonly adjustment: SettingAdjustment | undefined } => {
  if (given === undefined) return { value: field.default, adjustment: undefined }
  if (field.accepts(given)) return { value: given, adjustment: undefined }
  const value = field.repair === undefined ? field.default : field.repair(given)
  return { value, adjustment: { option, given, accepted: field.accepted, used: value } }
}

/**
 * The settings read from a set of {@link Setting}s: each option's value as used.
 *
 * @category models
 * @since 0.1.0
 */
export type SettingsOf<F extends Readonly<Record<string, Setting<unknown>>>> = {
  readonly [K in keyof F]: F[K] extends Setting<infer A> ? A : never
}

/**
 * What {@link readSettings} returns: the settings and one adjustment per option not used as given.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadSettings<F extends Readonly<Record<string, Setting<unknown>>>> {
  readonly settings: SettingsOf<F>
  readonly adjusted: ReadonlyArray<SettingAdjustment>
}

/**
 * Reads an options object: every option of `fields` is taken as given when its Schema accepts it, is the
 * default when absent, and otherwise is repaired (or defaulted) and reported. Options not in `fields` are left
 * to the caller. A value that is not an object (`null`, a number, from an untyped caller) reads as no options.
 * Pure; never throws.
 *
 * @example
 * ```ts
 * import { readSettings, setting } from "@ctxkit/core/Settings"
 * import * as Schema from "effect/Schema"
 *
 * const fields = {
 *   keepToolResults: setting(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), {
 *     accepted: "a whole number of tool results, 0 or more",
 *     default: 6
 *   }),
 *   clearAtLeast: setting(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), {
 *     accepted: "a number of tokens, 0 or more",
 *     default: 0
 *   })
 * }
 * const read = readSettings(fields, { keepToolResults: -1 })
 * read.settings // { keepToolResults: 6, clearAtLeast: 0 }
 * read.adjusted // [{ option: "keepToolResults", given: -1, accepted: "a whole number of tool results, 0 or more", used: 6 }]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const readSettings = <F extends Readonly<Record<string, Setting<unknown>>>>(
  fields: F,
  options: unknown,
  prefix = ""
): ReadSettings<F> => {
  const given: Readonly<Record<string, unknown>> = Predicate.isObject(options) ? options : {}
  const settings: Record<string, unknown> = {}
  const adjusted: Array<SettingAdjustment> = []
  for (const name of Object.keys(fields)) {
    const read = readSetting(prefix + name, fields[name] as Setting<unknown>, given[name])
    settings[name] = read.value
    if (read.adjustment !== undefined) adjusted.push(read.adjustment)
  }
  return { settings: settings as SettingsOf<F>, adjusted }
}
