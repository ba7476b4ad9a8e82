/**
 * `fitOrFail`: fitting as an Effect that fails with `TokenBudgetExceeded` instead of returning a result that
 * must not be sent.
 *
 * @since 0.1.0
 */
import { type FormatInput, type MessageFormat, TokenBudgetExceeded } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import type { ContextStrategy } from "./ContextStrategy.ts"
import { InvalidBudget } from "./Diagnostics.ts"
import type { CountTokens, FitOptions } from "./FitOptions.ts"
import type { FitResult } from "./FitResult.ts"
import { isCountTokens } from "./internal/counting.ts"
import { strategies } from "./Strategies.ts"

/**
 * Options of {@link fitOrFail}: those of fitting, the strategy to run, and the reply reserve the budget was
 * computed with (reported in `TokenBudgetExceeded`).
 *
 * @example
 * ```ts
 * import { type FitOrFailOptions, strategies } from "@ctxkit/fit"
 *
 * const options: FitOrFailOptions<unknown> = { strategy: strategies.summarize, reservedForReply: 2_048 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitOrFailOptions<M> extends Omit<FitOptions<M>, "strategy"> {
  /**
   * The strategy to run (default `strategies.truncate`), or LangChain's `strategy` for `truncate`: `"last"` or
   * `"first"` (see {@link FitOptions}).
   */
  readonly strategy?: ContextStrategy | "last" | "first" | undefined
  /**
   * Tokens reserved for the reply: `budget` is the context limit minus this. Reported in `TokenBudgetExceeded`
   * (`contextLimit = budget + reservedForReply`). Default 0. A value that is not a finite number ≥ 0 fails with
   * `InvalidBudget` before anything is fitted: the limit it would report is unknown.
   */
  readonly reservedForReply?: number | undefined
}

const run = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOrFailOptions<M>
): Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget> =>
  Effect.suspend((): Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget> => {
    const given = options?.reservedForReply
    const reservedForReply = given ?? 0
    if (!Predicate.isNumber(reservedForReply) || !(reservedForReply >= 0) || !Number.isFinite(reservedForReply)) {
      return Effect.fail(
        new InvalidBudget({ budget: describeValue(budget), reservedForReply: describeValue(reservedForReply) })
      )
    }
    const chosen = options?.strategy
    const strategy: ContextStrategy = typeof chosen === "object" && chosen !== null ? chosen : strategies.truncate
    // A string is LangChain's `strategy` option of fitting; an object is the strategy to run.
    const result = strategy.fit(messages, countTokens, budget, {
      ...options,
      strategy: chosen === "first" || chosen === "last" ? chosen : undefined
    })
    if (result.fits && result.tokens <= budget) return Effect.succeed(result)
    if (typeof budget !== "number" || !(budget > 0) || budget === Infinity) {
      return Effect.fail(new InvalidBudget({ budget: describeValue(budget) }))
    }
    return Effect.fail(
      new TokenBudgetExceeded({
        contextLimit: budget + reservedForReply,
        reservedForReply,
        promptTokens: result.tokens
      })
    )
  })

/**
 * Fits `messages` into `budget` tokens with a strategy (default `truncate`), as an Effect: it succeeds with the
 * result when it fits, and fails with `TokenBudgetExceeded` (code `TOKEN_BUDGET_EXCEEDED`, `{ contextLimit,
 * reservedForReply, promptTokens }`, message `Protected prompt context exceeds the configured token budget …`)
 * when the protected context alone does not — a request over budget is never sent — or with `InvalidBudget`
 * when the budget is not a finite number of tokens > 0 or `reservedForReply` not one ≥ 0. Data-first or data-last.
 *
 * @example
 * ```ts
 * import { fitOrFail } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const messages = [
 *   { role: "system", content: "A very long system prompt. ".repeat(100) },
 *   { role: "user", content: "hi" }
 * ]
 * const exit = Effect.runSyncExit(fitOrFail(messages, (text) => Math.ceil(text.length / 4), 500, { reservedForReply: 100 }))
 * // Failure: TokenBudgetExceeded { contextLimit: 600, reservedForReply: 100, promptTokens: 684 }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const fitOrFail: {
  <F>(
    countTokens: CountTokens,
    budget: number,
    options: FitOrFailOptions<F> & { readonly format: MessageFormat<F> }
  ): <M extends FormatInput<F>>(
    messages: ReadonlyArray<M>
  ) => Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget>
  (countTokens: CountTokens, budget: number, options?: FitOrFailOptions<unknown>): <M>(
    messages: ReadonlyArray<M>
  ) => Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options: FitOrFailOptions<F> & { readonly format: MessageFormat<F> }
  ): Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget>
  <M>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: FitOrFailOptions<NoInfer<M>>
  ): Effect.Effect<FitResult<M>, TokenBudgetExceeded | InvalidBudget>
} = dual((args: IArguments) => !isCountTokens(args[0]), run)
