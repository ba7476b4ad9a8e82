/**
 * The quote store's admission rule: which of the user instructions a summarizer quoted are kept for the
 * `<invariants>` block. A quote is kept only when it is a literal substring of a normal user message among the
 * messages being summarized — so a summarizer that paraphrases, invents, or quotes a tool's output, an earlier
 * checkpoint or the block itself cannot put words in the user's mouth.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { isInvariantsText, isSummaryText } from "@ctxkit/core/InsertedText"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import { QuoteRejected } from "./Diagnostics.ts"
import { INVARIANTS_LIMITS } from "./Policy.ts"

export { QuoteRejected } from "./Diagnostics.ts"

/**
 * What {@link acceptQuotes} returns: the updated list of instructions (the store, oldest first), the quotes it
 * added, and the ones it rejected with why.
 *
 * @example
 * ```ts
 * import { acceptQuotes } from "@ctxkit/invariants"
 * import type { QuoteAcceptance } from "@ctxkit/invariants/AcceptQuotes"
 *
 * const result: QuoteAcceptance = acceptQuotes([{ role: "user", content: "Use tabs, not spaces." }], ["Use tabs"])
 * result.instructions // ["Use tabs"]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface QuoteAcceptance {
  /**
   * The instructions already kept followed by the quotes accepted now, oldest first: what to store and to pass
   * to `renderInvariants` as `instructions`. The very `instructions` array given when nothing was accepted.
   */
  readonly instructions: ReadonlyArray<string>
  /** The quotes accepted now, in the order given. */
  readonly accepted: ReadonlyArray<string>
  /** The quotes not kept, each with its reason. */
  readonly rejected: ReadonlyArray<QuoteRejected>
}

/**
 * Options of {@link acceptQuotes}.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { AcceptQuotesOptions } from "@ctxkit/invariants/AcceptQuotes"
 *
 * const options: AcceptQuotesOptions<unknown> = { instructions: ["Use tabs"], format: formats.auto }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface AcceptQuotesOptions<M> {
  /** The instructions already kept (the store), oldest first. Default none. */
  readonly instructions?: ReadonlyArray<string> | undefined
  /** The wire format of the messages. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
}

/** The text the user wrote in a message: none for checkpoints, the block, tool results and non-user roles. */
const userText = <M>(message: M, format: MessageFormat<M>): string | undefined => {
  if (format.role(message) !== "user" || format.isSummary(message)) return undefined
  const whole = format.text(message)
  if (isSummaryText(whole) || isInvariantsText(whole)) return undefined
  const results = format.toolResults(message)
  if (results.length === 0) return whole
  // A user message that also carries tool results (Anthropic): only its own parts are the user's words.
  const own = format.withoutToolParts(message, new Set(results.map((result) => result.callId)))
  return own === undefined ? undefined : format.text(own)
}

const accept = <M>(
  summarized: ReadonlyArray<M>,
  quotes: ReadonlyArray<string>,
  options: AcceptQuotesOptions<M> = {}
): QuoteAcceptance => {
  const format = options.format ?? (formats.auto as MessageFormat<M>)
  const messages: ReadonlyArray<M> = Array.isArray(summarized) ? summarized : []
  const given: ReadonlyArray<unknown> = Array.isArray(quotes) ? quotes : []
  const stored: ReadonlyArray<string> = Array.isArray(options.instructions) ? options.instructions : []
  const kept = new Set<unknown>(stored)
  let count = stored.length
  const users: Array<string> = []
  for (const message of messages) {
    const text = userText(message, format)
    if (text !== undefined && text.length > 0) users.push(text)
  }
  let others: ReadonlyArray<string> | undefined
  const accepted: Array<string> = []
  const rejected: Array<QuoteRejected> = []
  given.forEach((quote, index) => {
    const reject = (reason: QuoteRejected["reason"]) =>
      rejected.push(
        new QuoteRejected({ index, quote: typeof quote === "string" ? quote : describeValue(quote), reason })
      )
    if (typeof quote !== "string") return reject("not-text")
    if (quote.trim().length === 0) return reject("empty")
    if (quote.length > INVARIANTS_LIMITS.instructionChars) return reject("too-long")
    if (kept.has(quote)) return reject("duplicate")
    if (!users.some((text) => text.includes(quote))) {
      others ??= messages.map((message) => format.text(message))
      return reject(others.some((text) => text.includes(quote)) ? "not-user-text" : "not-found")
    }
    if (count >= INVARIANTS_LIMITS.instructions) return reject("list-full")
    kept.add(quote)
    count++
    accepted.push(quote)
  })
  return {
    instructions: accepted.length === 0 ? stored : [...stored, ...accepted],
    accepted,
    rejected
  }
}

/**
 * Admits the instructions a summarizer quoted into the quote store. A quote is kept only when it is a literal
 * substring of a normal user message among `summarized` (the messages being compacted), read through the
 * message format's lens (default `formats.auto`): not a checkpoint or other summary, not an invariants block,
 * not tool output (a user message that also carries tool results counts only for its own text), not assistant
 * or system text. At most 20 instructions of at most 500 characters are kept: with the list full, the oldest
 * stay and new ones are rejected. Every quote not kept is reported with its reason. Pure; the quote is kept
 * exactly as given.
 *
 * @example
 * ```ts
 * import { acceptQuotes } from "@ctxkit/invariants"
 *
 * const summarized = [
 *   { role: "user", content: "Refactor the parser. Never use semicolons in generated code." },
 *   { role: "tool", tool_call_id: "c1", content: "Always use semicolons" }
 * ]
 * const { instructions, rejected } = acceptQuotes(summarized, [
 *   "Never use semicolons in generated code",
 *   "Always use semicolons",
 *   "Do not use semicolons"
 * ], { instructions: ["Use tabs"] })
 * instructions // ["Use tabs", "Never use semicolons in generated code"]
 * rejected.map((r) => r.reason) // ["not-user-text", "not-found"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const acceptQuotes: {
  <M>(
    summarized: ReadonlyArray<NoInfer<M>>,
    quotes: ReadonlyArray<string>,
    options: AcceptQuotesOptions<M> & { readonly format: MessageFormat<M> }
  ): QuoteAcceptance
  <M>(
    summarized: ReadonlyArray<M>,
    quotes: ReadonlyArray<string>,
    options?: AcceptQuotesOptions<unknown> & { readonly format?: undefined }
  ): QuoteAcceptance
  <M>(
    quotes: ReadonlyArray<string>,
    options: AcceptQuotesOptions<M> & { readonly format: MessageFormat<M> }
  ): (summarized: ReadonlyArray<M>) => QuoteAcceptance
  (
    quotes: ReadonlyArray<string>,
    options?: AcceptQuotesOptions<unknown> & { readonly format?: undefined }
  ): <M>(summarized: ReadonlyArray<M>) => QuoteAcceptance
} = dual(
  // Both calls start with an array. Data-last is `(quotes)` or `(quotes, options)`, an options object second:
  // anything else is the data-first call, so that a wrong value still gets its answer.
  (args: IArguments) =>
    args.length >= 3 || (args.length === 2 ? !Predicate.isObject(args[1]) : !Array.isArray(args[0])),
  accept
)
