/**
 * When to compact, as pure predicates the engine calls before each model call: the window rule (or, with no
 * trusted window, the char fallback) over the full request, and the independent char rule over the
 * conversation. Either one firing means compact; `auto: false` disables both. Each decision says which rule
 * decided and why. (`decideContextAction` in `@ctxkit/compaction` is the one decider of the next step — clear or
 * compact — against a known window's `available` room.)
 *
 * @since 0.1.0
 */
import { describeValue } from "@ctxkit/core/Describe"
import { type BudgetDiagnostic, WindowIgnored } from "./Diagnostics.ts"
import { CHARS_PER_TOKEN, effectiveBudget } from "./EffectiveBudget.ts"
import * as Settings from "./internal/settings.ts"
import { available } from "./Reserve.ts"
import { isTrustedWindow } from "./Window.ts"

/**
 * The default compaction threshold: compact at 85% of a known window (and of the character budget, for the
 * independent char rule).
 *
 * @example
 * ```ts
 * import { DEFAULT_COMPACTION_THRESHOLD } from "@ctxkit/budget/CompactionTriggers"
 *
 * DEFAULT_COMPACTION_THRESHOLD // 0.85
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_COMPACTION_THRESHOLD: number = Settings.DEFAULT_THRESHOLD

/**
 * The lowest threshold allowed (0.1); a lower one is raised to it, with a `SettingAdjusted` warning.
 *
 * @example
 * ```ts
 * import { MIN_COMPACTION_THRESHOLD } from "@ctxkit/budget/CompactionTriggers"
 *
 * MIN_COMPACTION_THRESHOLD // 0.1
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const MIN_COMPACTION_THRESHOLD: number = Settings.MIN_THRESHOLD

/**
 * The highest threshold allowed (0.99); a higher one is lowered to it, with a `SettingAdjusted` warning.
 *
 * @example
 * ```ts
 * import { MAX_COMPACTION_THRESHOLD } from "@ctxkit/budget/CompactionTriggers"
 *
 * MAX_COMPACTION_THRESHOLD // 0.99
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_COMPACTION_THRESHOLD: number = Settings.MAX_THRESHOLD

/**
 * The growth margin of the independent char rule, as a fraction of the character budget: after an automatic
 * compaction, the conversation must grow by 10% of `maxContextChars` before the rule fires again, so that a
 * big kept tail does not pay for a summary on every turn.
 *
 * @example
 * ```ts
 * import { CHAR_RULE_GROWTH_MARGIN } from "@ctxkit/budget/CompactionTriggers"
 *
 * CHAR_RULE_GROWTH_MARGIN // 0.1
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CHAR_RULE_GROWTH_MARGIN = 0.1

/**
 * What {@link shouldCompactContext} looks at. `usedTokens` and `requestChars` both measure the FULL request
 * (instructions, transcript and tool catalog): the window rule reads the first, the char fallback the second.
 *
 * @inline
 * @since 0.1.0
 */
export interface ContextTriggerInput {
  /** Tokens of the full request (from the usage ledger, or an estimate). */
  readonly usedTokens: number
  /** Characters of the full request (see `requestChars(...).request`). */
  readonly requestChars: number
  /** The context window in tokens; untrusted or absent means the char fallback applies. */
  readonly window?: number | undefined
  /** The character budget. Default 800,000. */
  readonly maxContextChars?: number | undefined
  /** Fraction of the window, 0.1–0.99. Default 0.85. Not used by the char fallback. */
  readonly threshold?: number | undefined
  /**
   * The reply cap. When given, the window rule measures against `available(window, maxTokens)` instead of
   * the whole window (the local-harness overflow guide's policy); absent, against the window (Alisio's compaction
   * design).
   */
  readonly maxTokens?: number | undefined
  /** `false` disables automatic compaction. Default true. */
  readonly auto?: boolean | undefined
}

/**
 * The verdict of {@link shouldCompactContext}: whether to compact, which rule decided (`window`, the char
 * fallback `chars`, or `disabled` by `auto: false`), and the numbers it compared (`used >= limit`, in tokens).
 *
 * @inline
 * @since 0.1.0
 */
export interface ContextDecision {
  /** Whether to compact now. */
  readonly compact: boolean
  /** The rule that decided. */
  readonly decidedBy: "window" | "chars" | "disabled"
  /** The basis measured against, whatever decided. */
  readonly basis: "window" | "chars"
  /** Tokens used: `usedTokens` on the window basis, `requestChars / 4` on the char basis. */
  readonly used: number
  /** Compaction is due when `used >= limit`: `window × threshold` (or `available × threshold`), or `maxContextChars / 4`. */
  readonly limit: number
  /** The threshold applied (window basis only). */
  readonly threshold: number | undefined
  /** Adjusted settings, invalid measures, an ignored window. */
  readonly warnings: ReadonlyArray<BudgetDiagnostic>
}

/**
 * The window rule, or the char fallback when there is no trusted window — one basis at a time.
 *
 * - With a trusted window (`0 < window <= 2_000_000`): compact when `usedTokens >= window × threshold`
 *   (threshold default 0.85, clamped into 0.1–0.99 with a warning). With `maxTokens`, the limit is
 *   `available(window, maxTokens) × threshold`.
 * - Otherwise: compact when `requestChars / 4 >= maxContextChars / 4` (default 800,000 characters ≈ 200,000
 *   tokens); no threshold on this basis.
 *
 * Both measures are of the full request (instructions, transcript, tool catalog): they protect what the model
 * really sees. A measure that is not a finite number ≥ 0 is replaced by the other one (characters / 4, or
 * tokens × 4), or 0, with a `MeasureInvalid` warning: never a NaN comparison. `auto: false` never compacts.
 *
 * @example
 * ```ts
 * import { shouldCompactContext } from "@ctxkit/budget"
 *
 * shouldCompactContext({ usedTokens: 3_481, requestChars: 0, window: 4_096 }).compact // false: 3481 < 3481.6
 * shouldCompactContext({ usedTokens: 3_482, requestChars: 0, window: 4_096 }).compact // true
 *
 * const fallback = shouldCompactContext({ usedTokens: 0, requestChars: 800_000, window: 5_000_000 })
 * fallback.decidedBy // "chars": 5,000,000 is beyond the trust limit
 * fallback.compact // true: 200,000 >= 200,000
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const shouldCompactContext = (input: ContextTriggerInput): ContextDecision => {
  const given: Partial<ContextTriggerInput> = typeof input === "object" && input !== null ? input : {}
  const warnings: Array<BudgetDiagnostic> = []
  const window: unknown = given.window
  const disabled = given.auto === false
  const tokensOk = Settings.isCount(given.usedTokens)
  const charsOk = Settings.isCount(given.requestChars)
  if (isTrustedWindow(window)) {
    const threshold = Settings.threshold(given.threshold, warnings)
    const tokens = effectiveBudget(window).total
    const base = given.maxTokens === undefined ? tokens : available(tokens, given.maxTokens)
    const limit = base * threshold
    const used = Settings.measure(
      "usedTokens",
      given.usedTokens,
      charsOk ? Math.ceil((given.requestChars as number) / CHARS_PER_TOKEN) : 0,
      warnings
    )
    const over = used >= limit
    return {
      compact: over && !disabled,
      decidedBy: disabled ? "disabled" : "window",
      basis: "window",
      used,
      limit,
      threshold,
      warnings
    }
  }
  if (window !== undefined && window !== null) warnings.push(new WindowIgnored({ window: describeValue(window) }))
  const budget = Settings.maxContextChars(given.maxContextChars, warnings)
  const chars = Settings.measure(
    "requestChars",
    given.requestChars,
    tokensOk ? (given.usedTokens as number) * CHARS_PER_TOKEN : 0,
    warnings
  )
  const used = chars / CHARS_PER_TOKEN
  const limit = budget / CHARS_PER_TOKEN
  return {
    compact: used >= limit && !disabled,
    decidedBy: disabled ? "disabled" : "chars",
    basis: "chars",
    used,
    limit,
    threshold: undefined,
    warnings
  }
}

/**
 * What {@link charRuleFires} looks at. `conversationChars` is instructions plus transcript only, never the tool
 * catalog (see `requestChars(...).conversation`).
 *
 * @inline
 * @since 0.1.0
 */
export interface CharRuleInput {
  /** Characters of instructions + transcript (never the tool catalog). */
  readonly conversationChars: number
  /** `conversationChars` right after the last automatic compaction. Default 0 (none yet). */
  readonly charsAfterLastAutoCompaction?: number | undefined
  /** The character budget. Default 800,000. */
  readonly maxContextChars?: number | undefined
  /** Fraction of the character budget, 0.1–0.99. Default 0.85. */
  readonly threshold?: number | undefined
  /** `false` disables automatic compaction. Default true. */
  readonly auto?: boolean | undefined
}

/**
 * The verdict of {@link charRuleFires}: whether to compact, which rule decided (`char-budget`, or `disabled`),
 * and both of the rule's conditions.
 *
 * @inline
 * @since 0.1.0
 */
export interface CharRuleDecision {
  /** Whether to compact now. */
  readonly compact: boolean
  /** The rule that decided. */
  readonly decidedBy: "char-budget" | "disabled"
  /** The characters measured. */
  readonly conversationChars: number
  /** `maxContextChars × threshold`. */
  readonly limit: number
  /** `charsAfterLastAutoCompaction + 0.1 × maxContextChars`. */
  readonly growthFloor: number
  /** `conversationChars >= limit`. */
  readonly atThreshold: boolean
  /** `conversationChars >= growthFloor`. */
  readonly grown: boolean
  /** The threshold applied. */
  readonly threshold: number
  /** Adjusted settings, invalid measures. */
  readonly warnings: ReadonlyArray<BudgetDiagnostic>
}

/**
 * The independent char rule, for every model, even with a huge window: compact when
 * `conversationChars >= maxContextChars × threshold` AND
 * `conversationChars >= charsAfterLastAutoCompaction + 0.1 × maxContextChars`. The growth margin stops a big
 * kept tail from paying for a summary on every turn. `conversationChars` is instructions + transcript only,
 * never the tool catalog (a fixed cost no compaction can reduce). `auto: false` never compacts.
 *
 * @example
 * ```ts
 * import { charRuleFires } from "@ctxkit/budget"
 *
 * charRuleFires({ conversationChars: 679_999 }).compact // false: below 800,000 × 0.85
 * charRuleFires({ conversationChars: 680_000 }).compact // true
 * // Just compacted down to 650,000: the conversation must reach 730,000 before the rule fires again.
 * charRuleFires({ conversationChars: 729_999, charsAfterLastAutoCompaction: 650_000 }).compact // false
 * charRuleFires({ conversationChars: 730_000, charsAfterLastAutoCompaction: 650_000 }).compact // true
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const charRuleFires = (input: CharRuleInput): CharRuleDecision => {
  const given: Partial<CharRuleInput> = typeof input === "object" && input !== null ? input : {}
  const warnings: Array<BudgetDiagnostic> = []
  const budget = Settings.maxContextChars(given.maxContextChars, warnings)
  const threshold = Settings.threshold(given.threshold, warnings)
  const conversationChars = Settings.measure("conversationChars", given.conversationChars, 0, warnings)
  const after = given.charsAfterLastAutoCompaction === undefined
    ? 0
    : Settings.measure("charsAfterLastAutoCompaction", given.charsAfterLastAutoCompaction, 0, warnings)
  const limit = budget * threshold
  const growthFloor = after + CHAR_RULE_GROWTH_MARGIN * budget
  const atThreshold = conversationChars >= limit
  const grown = conversationChars >= growthFloor
  const disabled = given.auto === false
  return {
    compact: atThreshold && grown && !disabled,
    decidedBy: disabled ? "disabled" : "char-budget",
    conversationChars,
    limit,
    growthFloor,
    atThreshold,
    grown,
    threshold,
    warnings
  }
}
