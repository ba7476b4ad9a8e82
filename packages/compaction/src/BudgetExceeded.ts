/**
 * The hard limit's failure message: `Context budget exceeded (approximately N characters of conversation;
 * limit L). <WHAT> <ADVICE>`, where WHAT says exactly what automatic compaction did and ADVICE what the user can
 * do.
 *
 * @since 0.1.0
 */
import { ContextBudgetExceeded } from "@ctxkit/core"

/**
 * What the last-chance compaction did, as far as the budget message is concerned: it ran (and the conversation
 * is still too large), it found no safe boundary, it failed (with its error), or automatic compaction is
 * disabled.
 *
 * @category models
 * @since 0.1.0
 */
export type LastChanceOutcome =
  | { readonly _tag: "Ran" }
  | { readonly _tag: "NoBoundary" }
  | { readonly _tag: "Failed"; readonly error: string }
  | { readonly _tag: "Disabled" }

/**
 * WHAT, when the last-chance compaction ran and the conversation is still over the limit.
 *
 * @example
 * ```ts
 * import { COMPACTION_RAN_NOT_ENOUGH } from "@ctxkit/compaction/BudgetExceeded"
 *
 * COMPACTION_RAN_NOT_ENOUGH // "Automatic compaction ran but could not reduce it enough."
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const COMPACTION_RAN_NOT_ENOUGH = "Automatic compaction ran but could not reduce it enough."

/**
 * WHAT, when there was no safe boundary to summarize.
 *
 * @example
 * ```ts
 * import { COMPACTION_SKIPPED_NO_BOUNDARY } from "@ctxkit/compaction/BudgetExceeded"
 *
 * COMPACTION_SKIPPED_NO_BOUNDARY.startsWith("Automatic compaction was skipped") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const COMPACTION_SKIPPED_NO_BOUNDARY =
  "Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short)."

/**
 * WHAT, when the last-chance compaction failed: `Automatic compaction failed (<error>).`
 *
 * @example
 * ```ts
 * import { compactionFailedSentence } from "@ctxkit/compaction/BudgetExceeded"
 *
 * compactionFailedSentence("Summarizer returned an empty summary")
 * // "Automatic compaction failed (Summarizer returned an empty summary)."
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const compactionFailedSentence = (error: string): string => `Automatic compaction failed (${error}).`

/**
 * WHAT, when automatic compaction is turned off.
 *
 * @example
 * ```ts
 * import { COMPACTION_DISABLED } from "@ctxkit/compaction/BudgetExceeded"
 *
 * COMPACTION_DISABLED // "Automatic compaction is disabled (compaction.auto is false)."
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const COMPACTION_DISABLED = "Automatic compaction is disabled (compaction.auto is false)."

/**
 * The default ADVICE: what a user can do about a conversation that will not fit. Hosts with other commands pass
 * their own `advice`.
 *
 * @example
 * ```ts
 * import { DEFAULT_BUDGET_ADVICE } from "@ctxkit/compaction/BudgetExceeded"
 *
 * DEFAULT_BUDGET_ADVICE.startsWith("Run /compact") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_BUDGET_ADVICE =
  "Run /compact (optionally with a focus), trim or avoid very large tool outputs, start a new session, or disable MCP servers you do not need to free room."

/**
 * The WHAT sentence for an outcome: exactly one of the four.
 *
 * @example
 * ```ts
 * import { lastChanceSentence } from "@ctxkit/compaction/BudgetExceeded"
 *
 * lastChanceSentence({ _tag: "Disabled" }) // "Automatic compaction is disabled (compaction.auto is false)."
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const lastChanceSentence = (outcome: LastChanceOutcome): string => {
  switch (outcome._tag) {
    case "Ran":
      return COMPACTION_RAN_NOT_ENOUGH
    case "NoBoundary":
      return COMPACTION_SKIPPED_NO_BOUNDARY
    case "Failed":
      return compactionFailedSentence(outcome.error)
    case "Disabled":
      return COMPACTION_DISABLED
  }
}

/**
 * What {@link budgetExceededMessage} and {@link budgetExceeded} need: the approximate size of the conversation
 * (instructions + transcript, in characters), the limit, what compaction did, and optionally the advice
 * (default {@link DEFAULT_BUDGET_ADVICE}).
 *
 * @category models
 * @since 0.1.0
 */
export interface BudgetExceededInput {
  /** Approximate characters of instructions + transcript. */
  readonly conversationChars: number
  /** The hard limit (`maxContextChars`). */
  readonly limit: number
  /** What the last-chance compaction did. */
  readonly outcome: LastChanceOutcome
  /** What the user can do; default {@link DEFAULT_BUDGET_ADVICE}. */
  readonly advice?: string | undefined
}

/** Sizes are shown as whole characters: a fractional or negative figure is a caller's slip, not news. */
const wholeChars = (n: number): number => Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0

/**
 * Builds the {@link ContextBudgetExceeded} error of `@ctxkit/core` for an irreducible conversation. Its
 * `message` is {@link budgetExceededMessage}.
 *
 * @example
 * ```ts
 * import { budgetExceeded } from "@ctxkit/compaction/BudgetExceeded"
 *
 * const error = budgetExceeded({ conversationChars: 912_000, limit: 800_000, outcome: { _tag: "Disabled" } })
 * error.code // "CONTEXT_BUDGET_EXCEEDED"
 * error.what // "Automatic compaction is disabled (compaction.auto is false)."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const budgetExceeded = (input: BudgetExceededInput): ContextBudgetExceeded =>
  new ContextBudgetExceeded({
    conversationChars: wholeChars(input.conversationChars),
    limit: wholeChars(input.limit),
    what: lastChanceSentence(input.outcome),
    advice: input.advice ?? DEFAULT_BUDGET_ADVICE
  })

/**
 * The hard limit's failure message: `Context budget exceeded (approximately N characters of conversation;
 * limit L). <WHAT> <ADVICE>`.
 *
 * @example
 * ```ts
 * import { budgetExceededMessage } from "@ctxkit/compaction/BudgetExceeded"
 *
 * budgetExceededMessage({
 *   conversationChars: 912_000,
 *   limit: 800_000,
 *   outcome: { _tag: "Ran" },
 *   advice: "Run /compact."
 * })
 * // "Context budget exceeded (approximately 912000 characters of conversation; limit 800000). Automatic compaction ran but could not reduce it enough. Run /compact."
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const budgetExceededMessage = (input: BudgetExceededInput): string => budgetExceeded(input).message
