/**
 * The interface of a context strategy: an id and a pure `fit` function with the inputs and outputs of
 * `shiftContext`. The built-ins (`strategies`) implement it; so can a plugin.
 *
 * @since 0.1.0
 */
import type { CountTokens, FitOptions } from "./FitOptions.ts"
import type { FitResult } from "./FitResult.ts"

/**
 * A context strategy: fits a conversation into a token budget, through the caller's wire format.
 *
 * `fit(messages, countTokens, budget, options?)` must be pure and total (never throw, never mutate its input,
 * same result for the same input), and must honour the contract every built-in honours and the laws of
 * `@ctxkit/testing` (`fitLaws(strategy)`) check:
 *
 * - `kept` is a subsequence of the input (plus `inserted` notes and `truncated` copies in place of their
 *   originals); `kept` ∪ `excluded` is the input; tool-call groups are kept or excluded whole;
 * - protected messages (system messages whose source is absent or `"system"`, pinned messages, the current
 *   request) and their groups are kept; when they alone exceed the budget, `fits` is false and nothing else is kept;
 * - when `fits`, an independent recount of `kept` is at most `budget`;
 * - fitting `kept` again with the same budget changes nothing.
 *
 * A host (the registry's guard) does not trust a plugin strategy: it restores protected context the strategy
 * removed, recounts with its own counter, and fits again when over.
 *
 * @example
 * ```ts
 * import { type ContextStrategy, strategies } from "@ctxkit/fit"
 *
 * // A strategy that drops tool traffic first, then the oldest turns.
 * const toolsFirst: ContextStrategy = {
 *   id: "tools-first",
 *   fit: (messages, countTokens, budget, options) =>
 *     strategies.truncate.fit(messages, countTokens, budget, {
 *       ...options,
 *       removalPriority: (group) => group.messages.some((m) => options?.format?.role(m) === "tool") ? 0 : 1
 *     })
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextStrategy {
  /** A stable id: the `contextStrategy` setting's value (`"truncate"`, `"my-plugin/recall"`). */
  readonly id: string
  /** Fits `messages` into `budget` tokens. Pure and total. */
  readonly fit: <M>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: FitOptions<M> | undefined
  ) => FitResult<M>
}
