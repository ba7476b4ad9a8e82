/**
 * `shiftContext`: fitting a conversation into a token budget by removing the oldest unprotected tool-call
 * groups first, whole, until it fits — on the caller's own messages, in any wire format.
 *
 * @since 0.1.0
 */
import type { FormatInput, MessageFormat } from "@ctxkit/core"
import { dual } from "effect/Function"
import type { CountTokens, FitOptions } from "./FitOptions.ts"
import type { FitResult } from "./FitResult.ts"
import { isCountTokens } from "./internal/counting.ts"
import { truncateFit } from "./internal/strategies.ts"

/**
 * Fits `messages` into `budget` tokens (the context shift of the context-fitting design ctxkit follows; the
 * `truncate` strategy).
 *
 * - Cost of a message: `countTokens(format.text(message)) + perMessageOverhead` (default 4). `countTokens` is a
 *   `TokenCounter` or a plain `(text) => number`; one that throws or returns NaN falls back to the approximate
 *   count with a `CounterFailed` diagnostic.
 * - Protected, never removed: system messages whose source is absent or `"system"`, pinned messages, the current
 *   request (the last user message that is not a summary; `protectCurrentRequest: false` turns that off), and
 *   every message in a tool-call group with one of them. Memory and lorebook system blocks are not protected.
 * - Removal: the oldest unprotected group first (a group's age is its oldest member; `removalPriority`
 *   reorders), a whole group at a time — a call and its results go together wherever they are — and it stops as
 *   soon as the total fits. With `compress`, large blocks first keep their head and tail instead.
 * - When the protected messages alone exceed the budget, or the budget is not a finite number > 0: `fits` is
 *   false and nothing unprotected is kept (`fitOrFail` then fails).
 * - LangChain `trimMessages` options, under their names: `strategy: "first"` keeps the oldest messages instead;
 *   `allowPartial` (with `textSplitter`) keeps the part of the message at the cut that fits; `startOn` / `endOn`
 *   constrain the first kept message after the system prompt and the last one sent.
 *
 * `kept` holds the caller's own objects (the same references when untouched), in input order, typed as the
 * caller's own message type even when `format` is a lens over a structural type (LangChain `BaseMessage`s with
 * `formats.langchain`, `effect/ai` `Prompt.Message`s with `formats.effectAi`). Linear: each
 * message is priced at most once (not at all when `cache` already knows it), and only when the result needs it —
 * the protected messages, what is kept, and the first group that does not fit; the older ones only with
 * `countExcluded: true`. The total is kept incrementally, and `tokens` is the sum of the prices of what is sent,
 * checked against it. Pure: the input is never mutated. Data-first or data-last.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { formats } from "@ctxkit/core"
 * import { shiftContext } from "@ctxkit/fit"
 * import { pipe } from "effect/Function"
 *
 * const messages = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "List the files." },
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "a.ts\nb.ts\n".repeat(40) },
 *   { role: "user", content: "Now read b.ts." }
 * ]
 * const result = shiftContext(messages, approximateCounter, 40, { format: formats.openaiChat })
 * result.kept.map((m) => m.role) // ["system", "user"]: the old question went, then the call with its result
 * result.excluded.map((e) => e.reason) // ["context-shift", "context-shift", "context-shift"]
 * result.fits // true
 * pipe(messages, shiftContext(approximateCounter, 40, { format: formats.openaiChat })).tokens === result.tokens // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const shiftContext: {
  <F>(
    countTokens: CountTokens,
    budget: number,
    options: FitOptions<F> & { readonly format: MessageFormat<F> }
  ): <M extends FormatInput<F>>(messages: ReadonlyArray<M>) => FitResult<M>
  (countTokens: CountTokens, budget: number, options?: FitOptions<unknown>): <M>(
    messages: ReadonlyArray<M>
  ) => FitResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options: FitOptions<F> & { readonly format: MessageFormat<F> }
  ): FitResult<M>
  <M>(
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: FitOptions<NoInfer<M>> | FitOptions<unknown>
  ): FitResult<M>
} = dual((args: IArguments) => !isCountTokens(args[0]), truncateFit)
