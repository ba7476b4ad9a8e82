/**
 * What a fitting returns: what is sent (`kept`), what was left out and why (`excluded`), what was compressed
 * instead of dropped (`truncated`), what was added (`inserted`), the verified token total, and whether it fits.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { FitDiagnostic } from "./Diagnostics.ts"

/**
 * The stable reason codes of a prompt block's inclusion or exclusion, shared by fitting results and the context
 * audit: `protected`, `pinned`, `fits`, `summary` (inclusion); `manual`, `context-shift`, `final-budget`,
 * `interceptor`, `empty`, `disabled` (exclusion). Fitting itself excludes with `context-shift` (removed to fit
 * the budget) and `manual` (marked `meta.manualExcluded`).
 *
 * @example
 * ```ts
 * import { FitReason } from "@ctxkit/fit"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(FitReason)("context-shift") // "context-shift"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const FitReason = Schema.Literals([
  "protected",
  "pinned",
  "fits",
  "summary",
  "manual",
  "context-shift",
  "final-budget",
  "interceptor",
  "empty",
  "disabled"
])

/**
 * A stable reason code of a prompt block's inclusion or exclusion (see the {@link FitReason} schema).
 *
 * @example
 * ```ts
 * import type { FitReason } from "@ctxkit/fit"
 *
 * const reason: FitReason = "manual"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type FitReason = typeof FitReason.Type

/**
 * One message left out of the request: the caller's own object, where it was, why, and what it cost.
 *
 * @example
 * ```ts
 * import type { ExcludedMessage } from "@ctxkit/fit"
 *
 * const entry: ExcludedMessage<{ readonly role: string; readonly content: string }> = {
 *   message: { role: "user", content: "old question" },
 *   index: 1,
 *   reason: "context-shift",
 *   tokens: 7
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ExcludedMessage<M> {
  /** The input message itself (same reference), never a compressed copy. */
  readonly message: M
  /** Its index in the input. */
  readonly index: number
  /** Why it was left out: `context-shift` (to fit the budget) or `manual` (`meta.manualExcluded`). */
  readonly reason: FitReason
  /**
   * What it cost: `count(text) + perMessageOverhead`. Absent when it was not priced: fitting prices the messages
   * older than the cut only with `countExcluded: true`.
   */
  readonly tokens?: number | undefined
}

/**
 * A message compressed instead of dropped: the input message, the compressed copy that is sent in its place,
 * and what each costs (overhead included).
 *
 * @example
 * ```ts
 * import type { TruncatedBlock } from "@ctxkit/fit"
 *
 * const block: TruncatedBlock<{ readonly content: string }> = {
 *   original: { content: "…40,000 characters…" },
 *   message: { content: "head\n[… 38000 characters omitted to fit the context window …]\ntail" },
 *   index: 4,
 *   tokensBefore: 10_004,
 *   tokensAfter: 504
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TruncatedBlock<M> {
  /** The input message. */
  readonly original: M
  /** The compressed copy sent instead (same role, ids and call ids). */
  readonly message: M
  /** The original's index in the input. */
  readonly index: number
  /** What the original cost. */
  readonly tokensBefore: number
  /** What the compressed copy costs. */
  readonly tokensAfter: number
}

/**
 * The result of fitting a conversation into a token budget.
 *
 * - `kept` is what is sent, in input order: the caller's own objects (same references when untouched), the
 *   compressed copies of `truncated` in place of their originals, and the `inserted` notes.
 * - `kept` (originals) ∪ `excluded` is exactly the input; no tool-call group is split between them.
 * - `tokens` is an independent recount of `kept`; when `fits`, it is at most `budget`.
 * - `fits` is false when the protected context alone exceeds the budget (nothing unprotected is kept) or the
 *   budget is unusable; a request must not be sent then (`fitOrFail` fails with `TokenBudgetExceeded`).
 *
 * @example
 * ```ts
 * import { type FitResult, shiftContext } from "@ctxkit/fit"
 *
 * const messages = [
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "a long question from earlier ".repeat(20) },
 *   { role: "user", content: "now?" }
 * ]
 * const result: FitResult<(typeof messages)[number]> = shiftContext(messages, (text) => Math.ceil(text.length / 4), 20)
 * result.kept.length // 2: the system prompt and the current request
 * result.excluded[0]?.reason // "context-shift"
 * result.fits // true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitResult<M> {
  /** What is sent, in order. */
  readonly kept: ReadonlyArray<M>
  /** What was left out, in removal order (a group's messages in input order). */
  readonly excluded: ReadonlyArray<ExcludedMessage<M>>
  /** Messages compressed instead of dropped, in input order. */
  readonly truncated: ReadonlyArray<TruncatedBlock<M>>
  /** Messages of `kept` that are not from the input (the `summarize` strategy's summary). */
  readonly inserted: ReadonlyArray<M>
  /** Tokens of `kept`, recounted independently of the running total. */
  readonly tokens: number
  /** The budget fitted to (0 when the budget given was unusable). */
  readonly budget: number
  /** Whether `kept` fits the budget with everything protected in it. */
  readonly fits: boolean
  /** What went wrong or was adjusted, if anything. */
  readonly diagnostics: ReadonlyArray<FitDiagnostic>
  /** `summarize` only: whether a summary was inserted. */
  readonly summaryCreated?: boolean | undefined
  /** `manual` only: whether more than the manual exclusions was needed (normal reduction ran). */
  readonly manualFallback?: boolean | undefined
}
