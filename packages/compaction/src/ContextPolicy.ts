/**
 * The context policy of the local-harness overflow guide in four numbers, and the decision it drives before each
 * model call: do nothing, clear old tool results, or compact (after clearing, when clearing cannot bring the
 * context under `compactAt`).
 * Everything is measured against `available`, the input room of the window (`available(window, maxTokens)` from
 * `@ctxkit/budget`).
 *
 * @since 0.1.0
 */
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings, setting } from "@ctxkit/core/Settings"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { ContextPolicyAdjusted } from "./Diagnostics.ts"
import { formatNumber } from "./internal/capFormat.ts"

export { ContextPolicyAdjusted } from "./Diagnostics.ts"

/**
 * The three steps' settings, all relative to `available`:
 *
 * - `maxToolResultTokens`: no tool result may take more than this many tokens (nor more than 20% of `available`);
 *   see `capToolResult`.
 * - `clearAt`: past `clearAt × available` tokens, old tool results are cleared (`clearOldToolResults`).
 * - `compactAt`: past `compactAt × available` tokens after clearing, the conversation is compacted.
 * - `keepToolResults`: the most recent tool results that clearing never touches.
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextPolicy {
  /** The most tokens one tool result may take, whatever the window. Default 25,000. */
  readonly maxToolResultTokens: number
  /** Fraction of `available`, in (0, 1], past which old tool results are cleared. Default 0.6. */
  readonly clearAt: number
  /** Fraction of `available`, in (0, 1] and ≥ `clearAt`, past which the conversation is compacted. Default 0.85. */
  readonly compactAt: number
  /** How many of the most recent tool results clearing never touches: a whole number ≥ 0. Default 6. */
  readonly keepToolResults: number
}

/**
 * The local-harness overflow guide's policy: results capped at 25,000 tokens (and 20% of `available`), old
 * results cleared past 60% of `available` keeping the 6 most recent, compaction past 85%.
 *
 * @example
 * ```ts
 * import { defaultContextPolicy } from "@ctxkit/compaction"
 *
 * defaultContextPolicy // { maxToolResultTokens: 25000, clearAt: 0.6, compactAt: 0.85, keepToolResults: 6 }
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultContextPolicy: ContextPolicy = {
  maxToolResultTokens: 25_000,
  clearAt: 0.6,
  compactAt: 0.85,
  keepToolResults: 6
}

/**
 * A context state that cannot drive a decision ({@link decideContextAction}), or a policy config that cannot be
 * decoded ({@link decodeContextPolicy}): `field` names the offending measure or setting (`used`, `available`,
 * `clearable`; `clearAt`, `compactAt`, `maxToolResultTokens`, `keepToolResults`, or `policy` for a config that
 * is not an object) and `message` says what is wrong and how to fix it.
 *
 * @example
 * ```ts
 * import { decideContextAction, defaultContextPolicy } from "@ctxkit/compaction"
 * import * as Result from "effect/Result"
 *
 * const decision = decideContextAction({ used: Number.NaN, available: 3_072 }, defaultContextPolicy)
 * if (Result.isFailure(decision)) {
 *   decision.failure.field // "used"
 * }
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidContextPolicy extends Schema.TaggedError<InvalidContextPolicy>()("InvalidContextPolicy", {
  /** What is wrong and how to fix it. */
  message: Schema.String,
  /** The setting or measure at fault. */
  field: Schema.String
}) {}

/**
 * Where the context stands before the next model call.
 *
 * - `used`: tokens of the next request as it would be sent now (instructions, transcript, tool catalog).
 * - `available`: tokens available for the input, `available(window, maxTokens)` from `@ctxkit/budget`.
 * - `clearable`: tokens clearing old tool results would free now (`freedTokens` of `clearOldToolResults`, which is
 *   pure, so it can be asked first). Unknown (left out): clearing is assumed to help, and the decision is to clear
 *   first and ask again.
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextState {
  readonly used: number
  readonly available: number
  readonly clearable?: number | undefined
}

const figures = {
  /** One English sentence with the figures: why this action. */
  reason: Schema.String,
  /** Tokens of the next request. */
  used: Schema.Number,
  /** Tokens available for the input. */
  available: Schema.Number,
  /** `clearAt × available`, in tokens (rounded to 6 decimals). */
  clearAtTokens: Schema.Number,
  /** `compactAt × available`, in tokens (rounded to 6 decimals). */
  compactAtTokens: Schema.Number,
  /** Tokens clearing would free, when the state said. */
  clearable: Schema.optionalKey(Schema.Number),
  /** `max(0, used − clearable)`, when `clearable` is known. */
  afterClearing: Schema.optionalKey(Schema.Number),
  /** The policy fields replaced by their default, when any was (absent otherwise). */
  diagnostics: Schema.optionalKey(Schema.Array(ContextPolicyAdjusted))
}

/**
 * What to do before the next model call, with the figures behind it:
 *
 * - `Nothing`: the context is within `clearAt` (`below: "clearAt"`), or over it with nothing left to clear but
 *   within `compactAt` (`below: "compactAt"`);
 * - `Clear`: clear old tool results (then measure again and ask again);
 * - `Compact`: compact the conversation; `clearFirst` says to clear old tool results first (clearing frees
 *   something, but not enough to get under `compactAt`).
 *
 * Every action carries `used`, `available`, both thresholds in tokens and, when known, `clearable` and
 * `afterClearing`, and a `reason` sentence quoting them. A Schema, so that actions can be logged and decoded.
 *
 * @example
 * ```ts
 * import { ContextAction } from "@ctxkit/compaction"
 * import * as Schema from "effect/Schema"
 *
 * const isAction = Schema.is(ContextAction)
 * isAction({ _tag: "Clear", reason: "…", used: 2_000, available: 3_072, clearAtTokens: 1_843.2, compactAtTokens: 2_611.2 }) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextAction = Schema.Union([
  Schema.TaggedStruct("Nothing", {
    ...figures,
    /** The threshold the context is below: `clearAt`, or `compactAt` when there is nothing left to clear. */
    below: Schema.Literals(["clearAt", "compactAt"])
  }),
  Schema.TaggedStruct("Clear", figures),
  Schema.TaggedStruct("Compact", {
    ...figures,
    /** Clear old tool results before compacting. */
    clearFirst: Schema.Boolean
  })
])

/**
 * The type of {@link ContextAction} values.
 *
 * @example
 * ```ts
 * import type { ContextAction } from "@ctxkit/compaction"
 *
 * const describe = (action: ContextAction) => `${action._tag}: ${action.reason}`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ContextAction = typeof ContextAction.Type

const isNumber = (value: unknown): value is number => typeof value === "number"
const isFraction = (value: unknown): value is number => isNumber(value) && value > 0 && value <= 1
const invalid = (field: string, message: string): Result.Result<never, InvalidContextPolicy> =>
  Result.fail(new InvalidContextPolicy({ field, message }))

/** The policy itself, checked field by field, then `clearAt ≤ compactAt`. */
const checkPolicy = (policy: ContextPolicy): Result.Result<ContextPolicy, InvalidContextPolicy> => {
  if (typeof policy !== "object" || policy === null) {
    return invalid(
      "policy",
      `The context policy must be an object with maxToolResultTokens, clearAt, compactAt and keepToolResults (got ${
        describeValue(policy)
      }); start from defaultContextPolicy.`
    )
  }
  const { clearAt, compactAt, keepToolResults, maxToolResultTokens } = policy
  if (!isNumber(maxToolResultTokens) || !(maxToolResultTokens > 0) || !Number.isFinite(maxToolResultTokens)) {
    return invalid(
      "maxToolResultTokens",
      `maxToolResultTokens must be a finite number of tokens greater than 0 (got ${
        describeValue(maxToolResultTokens)
      }); the default is 25,000.`
    )
  }
  if (!isFraction(clearAt)) {
    return invalid(
      "clearAt",
      `clearAt must be a fraction of the available tokens greater than 0 and at most 1 (got ${
        describeValue(clearAt)
      }); the default is 0.6.`
    )
  }
  if (!isFraction(compactAt)) {
    return invalid(
      "compactAt",
      `compactAt must be a fraction of the available tokens greater than 0 and at most 1 (got ${
        describeValue(compactAt)
      }); the default is 0.85.`
    )
  }
  if (clearAt > compactAt) {
    return invalid(
      "clearAt",
      `clearAt (${clearAt}) must not be greater than compactAt (${compactAt}): clearing is the cheaper step and comes first. Lower clearAt or raise compactAt.`
    )
  }
  if (!isNumber(keepToolResults) || !Number.isInteger(keepToolResults) || keepToolResults < 0) {
    return invalid(
      "keepToolResults",
      `keepToolResults must be a whole number of tool results, 0 or more (got ${
        describeValue(keepToolResults)
      }); the default is 6.`
    )
  }
  return Result.succeed(policy)
}

const FRACTION = "a fraction of the available tokens greater than 0 and at most 1"
const Fraction = Schema.Number.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1))

// Every field has a default (defaultContextPolicy): a bad one is replaced by it and reported, never refused.
const policyFields = {
  maxToolResultTokens: setting(Schema.Finite.check(Schema.isGreaterThan(0)), {
    accepted: "a finite number of tokens greater than 0",
    default: defaultContextPolicy.maxToolResultTokens
  }),
  clearAt: setting(Fraction, { accepted: `${FRACTION}, at most compactAt`, default: defaultContextPolicy.clearAt }),
  compactAt: setting(Fraction, { accepted: FRACTION, default: defaultContextPolicy.compactAt }),
  keepToolResults: setting(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), {
    accepted: "a whole number of tool results, 0 or more",
    default: defaultContextPolicy.keepToolResults
  })
}

/** The policy to decide with: each unusable field replaced by its default, with one diagnostic each. */
const usablePolicy = (
  policy: unknown
): { readonly policy: ContextPolicy; readonly diagnostics: ReadonlyArray<ContextPolicyAdjusted> } => {
  const diagnostics: Array<ContextPolicyAdjusted> = []
  if (!Predicate.isObject(policy)) {
    diagnostics.push(
      new ContextPolicyAdjusted({
        option: "policy",
        given: describeValue(policy),
        accepted: "an object with maxToolResultTokens, clearAt, compactAt and keepToolResults",
        used: "defaultContextPolicy"
      })
    )
  }
  const read = readSettings(policyFields, policy)
  for (const a of read.adjusted) {
    diagnostics.push(
      new ContextPolicyAdjusted({
        option: a.option,
        given: describeValue(a.given),
        accepted: a.accepted,
        used: String(a.used)
      })
    )
  }
  const { compactAt } = read.settings
  let { clearAt } = read.settings
  // Clearing is the cheaper step and comes first: a clearAt above compactAt falls back to the default (or
  // compactAt itself when the default is above it too).
  if (clearAt > compactAt) {
    const used = Math.min(defaultContextPolicy.clearAt, compactAt)
    diagnostics.push(
      new ContextPolicyAdjusted({
        option: "clearAt",
        given: `${clearAt} (above compactAt ${compactAt})`,
        accepted: policyFields.clearAt.accepted,
        used: String(used)
      })
    )
    clearAt = used
  }
  return { policy: { ...read.settings, clearAt }, diagnostics }
}

const isCount = (value: unknown): value is number => isNumber(value) && value >= 0 && Number.isFinite(value)

// Products such as 0.6 × 3,072 come out as 1843.1999999999998; six decimals is far below a token.
const tokensAt = (fraction: number, available: number): number => Math.round(fraction * available * 1e6) / 1e6

const percent = (used: number, available: number): string => `${formatNumber((used / available) * 100)}%`

/**
 * The next step of the local-harness overflow guide's context management, as a pure decision the caller loops on:
 *
 * - `used ≤ clearAt × available` → `Nothing` (`below: "clearAt"`);
 * - over it, with `clearable` unknown or above 0 → `Clear`, unless `used − clearable` is known to stay over
 *   `compactAt × available`: then `Compact` with `clearFirst: true`;
 * - over it with `clearable` 0: `Compact` (`clearFirst: false`) past `compactAt × available`, else `Nothing`
 *   (`below: "compactAt"`).
 *
 * A typical loop: decide; on `Clear`, run `clearOldToolResults`, measure again and decide again with `clearable: 0`
 * (or the new `freedTokens`); on `Compact`, clear first when asked, then compact.
 *
 * The policy (default {@link defaultContextPolicy}) is read field by field: a fraction outside (0, 1], `clearAt`
 * above `compactAt`, a `maxToolResultTokens` that is not a finite number > 0 or a `keepToolResults` that is not a
 * whole number ≥ 0 is replaced by its default and reported in the action's `diagnostics`
 * ({@link ContextPolicyAdjusted}). The state has no default: a `used` or `clearable` that is not a finite number
 * ≥ 0, or an `available` that is not a finite number > 0, fails with {@link InvalidContextPolicy} naming the
 * field and the fix.
 *
 * @example
 * ```ts
 * import { available } from "@ctxkit/budget"
 * import { decideContextAction } from "@ctxkit/compaction"
 * import * as Result from "effect/Result"
 *
 * const room = available(4_096, 100_000) // 3072: clearAt is 1,843.2 tokens, compactAt 2,611.2
 * const first = Result.getOrThrow(decideContextAction({ used: 4_300, available: room }))
 * first._tag // "Clear": nothing says what clearing frees, so clear and measure again
 * const second = Result.getOrThrow(decideContextAction({ used: 3_700, available: room, clearable: 0 }))
 * second._tag // "Compact"
 * second.reason
 * // "Context uses 3,700 of 3,072 available tokens (120.4%), over the compaction threshold of 2,611.2 (compactAt 0.85), with no old tool results left to clear: compact the conversation."
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const decideContextAction = (
  state: ContextState,
  policy: ContextPolicy = defaultContextPolicy
): Result.Result<ContextAction, InvalidContextPolicy> => {
  const usable = usablePolicy(policy)
  const { clearAt, compactAt } = usable.policy
  const given: Partial<ContextState> = typeof state === "object" && state !== null ? state : {}
  const { available, clearable, used } = given
  if (!isCount(used)) {
    return invalid(
      "used",
      `used must be a finite number of tokens, 0 or more (got ${
        describeValue(used)
      }): measure the next request with conversationCost or estimateTokens from @ctxkit/budget.`
    )
  }
  if (!isCount(available) || available === 0) {
    return invalid(
      "available",
      `available must be a finite number of tokens greater than 0 (got ${
        describeValue(available)
      }): compute it with available(window, maxTokens) from @ctxkit/budget.`
    )
  }
  if (clearable !== undefined && !isCount(clearable)) {
    return invalid(
      "clearable",
      `clearable must be a finite number of tokens, 0 or more, or left out when unknown (got ${
        describeValue(clearable)
      }): use freedTokens from clearOldToolResults.`
    )
  }
  const clearAtTokens = tokensAt(clearAt, available)
  const compactAtTokens = tokensAt(compactAt, available)
  const afterClearing = clearable === undefined ? undefined : Math.max(0, used - clearable)
  const base = {
    used,
    available,
    clearAtTokens,
    compactAtTokens,
    ...(clearable === undefined ? {} : { clearable }),
    ...(afterClearing === undefined ? {} : { afterClearing }),
    ...(usable.diagnostics.length === 0 ? {} : { diagnostics: usable.diagnostics })
  }
  const uses = `Context uses ${formatNumber(used)} of ${formatNumber(available)} available tokens (${
    percent(used, available)
  })`
  const clearLine = `the clearing threshold of ${formatNumber(clearAtTokens)} (clearAt ${clearAt})`
  const compactLine = `the compaction threshold of ${formatNumber(compactAtTokens)} (compactAt ${compactAt})`
  if (used <= clearAtTokens) {
    return Result.succeed({
      _tag: "Nothing",
      below: "clearAt",
      reason: `${uses}, ${formatNumber(clearAtTokens - used)} below ${clearLine}: nothing to do.`,
      ...base
    })
  }
  if (clearable === undefined) {
    return Result.succeed({
      _tag: "Clear",
      reason: `${uses}, over ${clearLine}: clear old tool results, then measure again.`,
      ...base
    })
  }
  const after = afterClearing ?? used
  if (clearable > 0) {
    const frees = `clearing old tool results frees ${formatNumber(clearable)} tokens, leaving ${formatNumber(after)}`
    if (after > compactAtTokens) {
      return Result.succeed({
        _tag: "Compact",
        clearFirst: true,
        reason:
          `${uses}, over ${clearLine}; ${frees}, still over ${compactLine}: clear, then compact the conversation.`,
        ...base
      })
    }
    return Result.succeed({
      _tag: "Clear",
      reason: `${uses}, over ${clearLine}; ${frees}, within ${compactLine}: clear old tool results.`,
      ...base
    })
  }
  if (used > compactAtTokens) {
    return Result.succeed({
      _tag: "Compact",
      clearFirst: false,
      reason: `${uses}, over ${compactLine}, with no old tool results left to clear: compact the conversation.`,
      ...base
    })
  }
  return Result.succeed({
    _tag: "Nothing",
    below: "compactAt",
    reason: `${uses}, over ${clearLine} with no old tool results left to clear, ${
      formatNumber(compactAtTokens - used)
    } below ${compactLine}: nothing to do.`,
    ...base
  })
}

/**
 * A context policy as a user writes it in a config file: every field optional (a missing one takes the value of
 * {@link defaultContextPolicy}), unknown keys refused. Decode and check it with {@link decodeContextPolicy}.
 *
 * @example
 * ```ts
 * import { ContextPolicyConfig } from "@ctxkit/compaction/ContextPolicy"
 * import * as Schema from "effect/Schema"
 *
 * Schema.is(ContextPolicyConfig)({ clearAt: 0.5 }) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextPolicyConfig = Schema.Struct({
  maxToolResultTokens: Schema.optionalKey(Schema.Number),
  clearAt: Schema.optionalKey(Schema.Number),
  compactAt: Schema.optionalKey(Schema.Number),
  keepToolResults: Schema.optionalKey(Schema.Number)
})

/**
 * The type of {@link ContextPolicyConfig} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ContextPolicyConfig = typeof ContextPolicyConfig.Type

const decodeConfig = Schema.decodeUnknownResult(ContextPolicyConfig)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A context policy from a user's config (the parsed JSON value; `undefined` gives the default): missing fields take
 * the values of {@link defaultContextPolicy}, then the whole policy is checked as {@link decideContextAction} checks
 * it. A config that is not an object, a field that is not a number, an unknown key or a value out of range fails
 * with {@link InvalidContextPolicy} naming the field.
 *
 * @example
 * ```ts
 * import { decodeContextPolicy } from "@ctxkit/compaction/ContextPolicy"
 * import * as Result from "effect/Result"
 *
 * Result.getOrThrow(decodeContextPolicy({ clearAt: 0.5 }))
 * // { maxToolResultTokens: 25000, clearAt: 0.5, compactAt: 0.85, keepToolResults: 6 }
 * const typo = decodeContextPolicy({ clear_at: 0.5 })
 * if (Result.isFailure(typo)) typo.failure.field // "clear_at"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const decodeContextPolicy = (input: unknown): Result.Result<ContextPolicy, InvalidContextPolicy> => {
  if (input === undefined) return Result.succeed(defaultContextPolicy)
  const decoded = decodeConfig(input, { onExcessProperty: "error" })
  if (Result.isFailure(decoded)) {
    const first = formatIssue(decoded.failure.issue).issues[0]
    const segment = first?.path?.[0]
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    const field = typeof key === "string" ? key : "policy"
    const known = field in defaultContextPolicy
    const detail = first?.message ?? "unreadable"
    return invalid(
      field,
      field === "policy"
        ? `The context policy must be an object (got ${describeValue(input)}): ${detail}.`
        : known
        ? `${field} must be a number: ${detail}.`
        : `${field} is not a context policy setting: use maxToolResultTokens, clearAt, compactAt or keepToolResults.`
    )
  }
  return checkPolicy({ ...defaultContextPolicy, ...decoded.success })
}
