/**
 * What the compaction steps report instead of failing, in one place: an option that could not be used (replaced
 * by its documented default, or — where none is safe — the step did nothing), and a cap too small for its
 * marker. Every diagnostic has a stable `_tag` and a `message` that names the problem and the fix. The modules
 * of the steps re-export their own (`@ctxkit/compaction/CapToolResult` exports `CapOptionAdjusted`, …).
 *
 * @since 0.1.0
 */
import type { CounterFailed } from "@ctxkit/budget/Diagnostics"
import * as Schema from "effect/Schema"
import { formatNumber } from "./internal/capFormat.ts"

// The fields and message every "option adjusted" diagnostic of this package shares: the value given, what the
// option accepts, and the documented default used instead (all as text).
const adjustedFields = {
  /** The value given, as text. */
  given: Schema.String,
  /** What the option accepts. */
  accepted: Schema.String,
  /** The value used instead, as text. */
  used: Schema.String
}

const adjustedMessage = (
  d: { readonly option: string; readonly given: string; readonly accepted: string; readonly used: string }
): string => `Option ${d.option} = ${d.given} cannot be used; used ${d.used} instead. Set it to ${d.accepted}.`

/**
 * An argument of `capToolResult` / `capToolResults` that cannot be used and has no default (`given` is the value
 * as text): for `available`, `options` (not an options object) and `text`, nothing was capped; for `from`, every
 * message was considered. Options that have a default are replaced by it instead (`CapOptionAdjusted`).
 *
 * @example
 * ```ts
 * import { capToolResult } from "@ctxkit/compaction"
 *
 * const result = capToolResult("a long result", { available: Number.NaN })
 * result.capped // false
 * result.diagnostics[0]?.message // "Option available = NaN cannot be used: ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CapOptionInvalid extends Schema.TaggedClass<CapOptionInvalid>("@ctxkit/compaction/CapOptionInvalid")(
  "CapOptionInvalid",
  {
    /** Which argument: `available`, `options`, `text` or `from`. */
    option: Schema.String,
    /** The value given, as text. */
    given: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const rule = RULES[this.option] ?? "a usable value"
    const outcome = this.option === "from" ? "every message was considered" : "nothing was capped"
    return `Option ${this.option} = ${this.given} cannot be used: it must be ${rule}; ${outcome}.`
  }
}

const RULES: Readonly<Record<string, string>> = {
  available: "a finite number of tokens greater than 0 (available(window, maxTokens) from @ctxkit/budget)",
  options: "token options ({ available }) or character options ({ overChars, keepChars, marker })",
  text: "a string",
  from: "a message index, 0 or more"
}

/**
 * A cap option that cannot be used as given was replaced by its default (`given` and `used` as text): the cap
 * still ran, with the value `used`.
 *
 * @example
 * ```ts
 * import { capToolResult } from "@ctxkit/compaction"
 *
 * const result = capToolResult("x".repeat(20_000), { available: 3_072, share: 1.5 })
 * result.capped // true: capped with the default share 0.2
 * result.diagnostics[0]?.message
 * // "Option share = 1.5 cannot be used; used 0.2 instead. Set it to a fraction greater than 0 and at most 1."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CapOptionAdjusted
  extends Schema.TaggedClass<CapOptionAdjusted>("@ctxkit/compaction/CapOptionAdjusted")("CapOptionAdjusted", {
    /** Which option: `share`, `maxToolResultTokens`, `overChars`, `keepChars`, `marker` or `measure`. */
    option: Schema.String,
    ...adjustedFields
  })
{
  /** What happened and what to do about it. */
  get message(): string {
    return adjustedMessage(this)
  }
}

/**
 * The token limit is too small to hold even the marker that says what was left out (`markerTokens` tokens): the
 * result was cut to the longest start that fits, with no marker (possibly empty).
 *
 * @example
 * ```ts
 * import { capToolResult } from "@ctxkit/compaction"
 *
 * const result = capToolResult("x".repeat(400), { available: 15 }) // limit floor(0.2 × 15) = 3 tokens
 * result.text // "xxxxxxxxxxxx": 12 characters, 3 tokens, no room for a marker
 * result.diagnostics[0]?._tag // "CapLimitTooSmall"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CapLimitTooSmall extends Schema.TaggedClass<CapLimitTooSmall>("@ctxkit/compaction/CapLimitTooSmall")(
  "CapLimitTooSmall",
  {
    /** The cap, in tokens. */
    limit: Schema.Number,
    /** Tokens of the marker alone. */
    markerTokens: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `A tool result cap of ${
      formatNumber(this.limit, 0)
    } tokens cannot hold even the marker that says what was left out (${
      formatNumber(this.markerTokens, 0)
    } tokens): the result was cut to the longest start that fits, with no marker. Raise available, share or maxToolResultTokens.`
  }
}

/**
 * Anything `capToolResult` / `capToolResults` report instead of failing.
 *
 * @example
 * ```ts
 * import type { CapDiagnostic } from "@ctxkit/compaction/CapToolResult"
 *
 * const show = (d: CapDiagnostic) => `${d._tag}: ${d.message}`
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type CapDiagnostic = CapOptionInvalid | CapOptionAdjusted | CapLimitTooSmall | CounterFailed

/**
 * The options of `clearOldToolResults` are not an options object (`given` is the value as text): nothing
 * was cleared. A single option that cannot be used is replaced by its default instead (`ClearOptionAdjusted`).
 *
 * @example
 * ```ts
 * import { clearOldToolResults } from "@ctxkit/compaction"
 *
 * const result = clearOldToolResults([], 42 as never)
 * result.skipped // "invalid-options"
 * result.diagnostics[0]?.message // "Option options = 42 cannot be used: it must be an options object; nothing was cleared."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ClearOptionInvalid
  extends Schema.TaggedClass<ClearOptionInvalid>("@ctxkit/compaction/ClearOptionInvalid")("ClearOptionInvalid", {
    /** `options` (the only argument without a default). */
    option: Schema.String,
    /** The value given, as text. */
    given: Schema.String
  })
{
  /** What happened and what to do about it. */
  get message(): string {
    return `Option ${this.option} = ${this.given} cannot be used: it must be an options object; nothing was cleared.`
  }
}

/**
 * An option of `clearOldToolResults` that cannot be used as given was replaced (`given` and `used` as
 * text): clearing ran with the value `used`.
 *
 * @example
 * ```ts
 * import { clearOldToolResults } from "@ctxkit/compaction"
 *
 * const result = clearOldToolResults([], { keepToolResults: -1 })
 * result.diagnostics[0]?.message
 * // "Option keepToolResults = -1 cannot be used; used 6 instead. Set it to a whole number of tool results, 0 or more."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ClearOptionAdjusted
  extends Schema.TaggedClass<ClearOptionAdjusted>("@ctxkit/compaction/ClearOptionAdjusted")("ClearOptionAdjusted", {
    /** `keepToolResults`, `clearAtLeast` or `excludeTools`. */
    option: Schema.String,
    ...adjustedFields
  })
{
  /** What happened and what to do about it. */
  get message(): string {
    return adjustedMessage(this)
  }
}

/**
 * Anything `clearOldToolResults` reports instead of failing.
 *
 * @example
 * ```ts
 * import type { ClearDiagnostic } from "@ctxkit/compaction/ClearOldToolResults"
 *
 * const show = (d: ClearDiagnostic) => `${d._tag}: ${d.message}`
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type ClearDiagnostic = ClearOptionInvalid | ClearOptionAdjusted | CounterFailed

/**
 * A field of the context policy given to `decideContextAction` could not be used, so its value in
 * `defaultContextPolicy` was (`given` and `used` as text; `option` is `policy` when the policy is not an
 * object, then the whole default policy was used). `clearAt` above `compactAt` is reported on `clearAt`.
 *
 * @example
 * ```ts
 * import { decideContextAction, defaultContextPolicy } from "@ctxkit/compaction"
 * import * as Result from "effect/Result"
 *
 * const action = Result.getOrThrow(decideContextAction({ used: 1_000, available: 3_072 }, { ...defaultContextPolicy, clearAt: 2 }))
 * action.diagnostics?.[0]?.message
 * // "Option clearAt = 2 cannot be used; used 0.6 instead. Set it to a fraction of the available tokens greater than 0 and at most 1, at most compactAt."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ContextPolicyAdjusted
  extends Schema.TaggedClass<ContextPolicyAdjusted>("@ctxkit/compaction/ContextPolicyAdjusted")(
    "ContextPolicyAdjusted",
    {
      /** `maxToolResultTokens`, `clearAt`, `compactAt`, `keepToolResults` or `policy`. */
      option: Schema.String,
      ...adjustedFields
    }
  )
{
  /** What happened and what to do about it. */
  get message(): string {
    return adjustedMessage(this)
  }
}

/**
 * An option of `planCompaction` that cannot be used as given (`keepTurns` not an integer from 0 to 20,
 * `minKeepMessages` not an integer of at least 1) was replaced by its documented default (`given` and `used` as
 * text): the plan was made with the value `used`.
 *
 * @example
 * ```ts
 * import { planCompaction } from "@ctxkit/compaction"
 *
 * const plan = planCompaction([{ role: "user", content: "hi" }], { keepTurns: -1 })
 * plan.diagnostics[0]?.message
 * // "Option keepTurns = -1 cannot be used; used 2 instead. Set it to an integer from 0 to 20."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class PlanOptionAdjusted
  extends Schema.TaggedClass<PlanOptionAdjusted>("@ctxkit/compaction/PlanOptionAdjusted")("PlanOptionAdjusted", {
    /** `keepTurns` or `minKeepMessages`. */
    option: Schema.String,
    ...adjustedFields
  })
{
  /** What happened and what to do about it. */
  get message(): string {
    return adjustedMessage(this)
  }
}
