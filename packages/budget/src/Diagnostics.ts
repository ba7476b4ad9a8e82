/**
 * What the budget functions report instead of failing: a counter that broke, a setting or measure that was
 * out of range and what was used instead, a window that could not be trusted, a calibration that was clamped.
 * Every diagnostic is a Schema tagged class with a stable `_tag` and a `message` that says what to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { formatCount } from "./internal/format.ts"

/**
 * A token counter threw, or returned something that is not a count (NaN, a negative, Infinity or beyond 2^53, a
 * non-number), on `texts` texts. Those texts
 * were counted with the approximate counter (`ceil(length / 4)`) instead, and the result says it is approximate.
 *
 * @example
 * ```ts
 * import { CounterFailed } from "@ctxkit/budget/Diagnostics"
 *
 * const failure = new CounterFailed({ counter: "my-bpe", failure: "threw", detail: "vocab not loaded", texts: 3 })
 * failure.message // "Token counter \"my-bpe\" threw (vocab not loaded) on 3 texts; ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CounterFailed extends Schema.TaggedClass<CounterFailed>("@ctxkit/budget/CounterFailed")(
  "CounterFailed",
  {
    /** The failing counter's id. */
    counter: Schema.String,
    /** `threw`, or `invalid-count` when it returned NaN, a negative, a value beyond 2^53 or a non-number. */
    failure: Schema.Literals(["threw", "invalid-count"]),
    /** The first error message, or the first invalid value returned. */
    detail: Schema.String,
    /** How many texts fell back to the approximate count. */
    texts: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const what = this.failure === "threw" ? `threw (${this.detail})` : `returned ${this.detail}`
    return `Token counter "${this.counter}" ${what} on ${formatCount(this.texts)} text${
      this.texts === 1 ? "" : "s"
    }; they were counted with the approximate counter (characters / 4) instead. Fix the counter (count must return a finite number >= 0 and never throw) or use approximateCounter.`
  }
}

/**
 * A tool catalog could not be serialized (a `toJSON` that throws, nesting too deep for `JSON.stringify`); it
 * was counted as empty.
 *
 * @example
 * ```ts
 * import { CatalogUnreadable } from "@ctxkit/budget/Diagnostics"
 *
 * new CatalogUnreadable({ detail: "Maximum call stack size exceeded" }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CatalogUnreadable extends Schema.TaggedClass<CatalogUnreadable>("@ctxkit/budget/CatalogUnreadable")(
  "CatalogUnreadable",
  {
    /** Why serialization failed. */
    detail: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `The tool catalog could not be serialized (${this.detail}) and was counted as empty. Pass the serialized catalog as a string, or plain JSON tool schemas.`
  }
}

/**
 * A setting (threshold, character budget, reply cap, per-message overhead) was missing a usable value: the
 * value used instead is in `used`. `given` is the value as text (`"NaN"`, `"-1"`, `"Infinity"`).
 *
 * @example
 * ```ts
 * import { SettingAdjusted } from "@ctxkit/budget/Diagnostics"
 *
 * new SettingAdjusted({ setting: "threshold", given: "1.5", used: 0.99 }).message
 * // "Setting threshold = 1.5 is out of range; used 0.99 instead. ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class SettingAdjusted extends Schema.TaggedClass<SettingAdjusted>("@ctxkit/budget/SettingAdjusted")(
  "SettingAdjusted",
  {
    /** Which setting. */
    setting: Schema.Literals(["threshold", "maxContextChars", "maxTokens", "perMessageOverhead"]),
    /** The value given, as text. */
    given: Schema.String,
    /** The value used instead. */
    used: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const allowed = this.setting === "threshold"
      ? "a fraction between 0.1 and 0.99"
      : this.setting === "perMessageOverhead"
      ? "a finite number of tokens >= 0"
      : "a finite number > 0"
    return `Setting ${this.setting} = ${this.given} is out of range; used ${this.used} instead. Set it to ${allowed}.`
  }
}

/**
 * A measurement passed to a trigger (tokens used, request or conversation characters) was not a count: NaN,
 * negative or not a number — then `used` is the other measure when there is one, else 0 — or beyond 2^53
 * (Infinity included) — then `used` is 2^53 − 1, so that more is still more.
 *
 * @example
 * ```ts
 * import { MeasureInvalid } from "@ctxkit/budget/Diagnostics"
 *
 * new MeasureInvalid({ measure: "usedTokens", given: "NaN", used: 1_200 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class MeasureInvalid extends Schema.TaggedClass<MeasureInvalid>("@ctxkit/budget/MeasureInvalid")(
  "MeasureInvalid",
  {
    /** Which measurement. */
    measure: Schema.Literals([
      "usedTokens",
      "requestChars",
      "conversationChars",
      "charsAfterLastAutoCompaction",
      "used"
    ]),
    /** The value given, as text. */
    given: Schema.String,
    /** The value the decision used instead. */
    used: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Measure ${this.measure} = ${this.given} is not a count (a number from 0 to 2^53); used ${
      formatCount(this.used)
    } instead. Check the counter or the code that measures the request.`
  }
}

/**
 * Where a context window came from: the caller's configuration, the server's model catalog, a probe of the
 * running server, or the fallback.
 *
 * @inline
 * @since 0.1.0
 */
export type WindowSource = "config" | "catalog" | "probe" | "fallback"

/**
 * A window value that cannot be trusted (zero, negative, NaN, infinite, or above the 2,000,000-token trust
 * limit) was ignored: it is treated as unknown, so that `window × threshold` cannot hide real pressure.
 *
 * @example
 * ```ts
 * import { WindowIgnored } from "@ctxkit/budget/Diagnostics"
 *
 * new WindowIgnored({ source: "catalog", window: "10000000" }).message
 * // "Ignored the context window 10000000 from catalog: ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class WindowIgnored extends Schema.TaggedClass<WindowIgnored>("@ctxkit/budget/WindowIgnored")(
  "WindowIgnored",
  {
    /** Where the value came from, when known. */
    source: Schema.optionalKey(Schema.Literals(["config", "catalog", "probe", "fallback"])),
    /** The value, as text. */
    window: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const from = this.source === undefined ? "" : ` from ${this.source}`
    return `Ignored the context window ${this.window}${from}: a trusted window is more than 0 and at most 2,000,000 tokens, so this one is treated as unknown (window × threshold could hide real pressure). Set the real window of the served model.`
  }
}

/**
 * No configured, catalog or probed window was known: the fallback was used. With a `window`, that many tokens
 * are assumed (the local-harness overflow guide assumes 4,096); without one, budgets use the character budget instead.
 *
 * @example
 * ```ts
 * import { WindowFallback } from "@ctxkit/budget/Diagnostics"
 *
 * new WindowFallback({ window: 4_096 }).message
 * // "The context window is not set: assuming 4,096 tokens. ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class WindowFallback extends Schema.TaggedClass<WindowFallback>("@ctxkit/budget/WindowFallback")(
  "WindowFallback",
  {
    /** The assumed window, when the fallback is a number. */
    window: Schema.optionalKey(Schema.Number)
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return this.window === undefined
      ? "The context window is unknown: budgets use the character budget (maxContextChars, about 4 characters per token) instead. Set the real window of the served model for token budgets."
      : `The context window is not set: assuming ${
        formatCount(this.window)
      } tokens. Erring low only brings clearing and compaction forward; erring high disables them. Set the real window of the served model.`
  }
}

/**
 * A calibration scale (reported prompt tokens / local estimate) fell outside the sane range and was clamped.
 * A scale that far from 1 usually means the sample is wrong (a truncated prompt, usage summed over several
 * calls) rather than the counter.
 *
 * @example
 * ```ts
 * import { ScaleClamped } from "@ctxkit/budget/Diagnostics"
 *
 * new ScaleClamped({ raw: 0.06, used: 0.5, min: 0.5, max: 4 }).message
 * // "Calibration scale 0.06 is outside [0.5, 4]; clamped to 0.5. ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ScaleClamped extends Schema.TaggedClass<ScaleClamped>("@ctxkit/budget/ScaleClamped")(
  "ScaleClamped",
  {
    /** Reported tokens / estimate, before clamping. */
    raw: Schema.Number,
    /** The scale used. */
    used: Schema.Number,
    /** The lowest scale allowed. */
    min: Schema.Number,
    /** The highest scale allowed. */
    max: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Calibration scale ${
      Number(this.raw.toPrecision(3))
    } is outside [${this.min}, ${this.max}]; clamped to ${this.used}. Check that the usage belongs to this one request (not summed over several calls, not from a truncated prompt) and that the counter matches the served model.`
  }
}

/**
 * Any diagnostic of `@ctxkit/budget`.
 *
 * @example
 * ```ts
 * import type { BudgetDiagnostic } from "@ctxkit/budget"
 *
 * const show = (d: BudgetDiagnostic) => `${d._tag}: ${d.message}`
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type BudgetDiagnostic =
  | CounterFailed
  | CatalogUnreadable
  | SettingAdjusted
  | MeasureInvalid
  | WindowIgnored
  | WindowFallback
  | ScaleClamped
