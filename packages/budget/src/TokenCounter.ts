/**
 * Token counters: `{ id, approximate, count(text) }`, pure and synchronous, and the message-pricing kind that
 * also prices a whole message with its framing (`countMessage(message, format)`). The approximate counter is the
 * default; exact counters live in their own subpath modules (`@ctxkit/budget/o200k`, …) so that nobody pays for
 * a vocabulary they do not use. {@link toCounter} is the one conversion from what a caller passes to a counter.
 *
 * @since 0.1.0
 */
import type { MessageFormat } from "@ctxkit/core"

/**
 * Counts the tokens of a text. Pure and synchronous; `approximate` says whether the count is an estimate
 * (every report and audit that used an approximate counter says so). The `id` keys cached counts: two counter
 * objects with the same id must count alike.
 *
 * @example
 * ```ts
 * import { estimateTokens, type TokenCounter } from "@ctxkit/budget"
 *
 * const words: TokenCounter = { id: "words-v1", approximate: true, count: (text) => text.split(/\s+/).filter(Boolean).length }
 * estimateTokens("three small words", words).tokens // 3
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export interface TokenCounter {
  /** A stable id naming the tokenizer profile (`approximate-chars-v1`, `o200k_base`, `llama3`, …). */
  readonly id: string
  /** Whether counts are estimates rather than the served model's own tokenization. */
  readonly approximate: boolean
  /** The number of tokens of `text`. */
  readonly count: (text: string) => number
}

/**
 * A counter that also prices a whole message, framing included — the role header, separators and per-tool-call
 * tokens a chat template or the server adds — so that `messageCost` and `conversationCost` charge
 * `countMessage(message, format)` for each message instead of `count(text) + perMessageOverhead`. `count` still
 * prices loose texts (a tool catalog, a summary request, a cut).
 *
 * @example
 * ```ts
 * import { approximateCounter, conversationCost, type MessageCounter } from "@ctxkit/budget"
 * import { formats, type OpenAiChatMessage } from "@ctxkit/core"
 *
 * // 4 tokens of framing per message and 3 per tool call, on top of the text.
 * const framed: MessageCounter = {
 *   id: "chars-framed-v1",
 *   approximate: true,
 *   count: approximateCounter.count,
 *   countMessage: (message, format) =>
 *     approximateCounter.count(format.text(message)) + 4 + 3 * format.toolCalls(message).length
 * }
 * const call: OpenAiChatMessage = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] }
 * conversationCost([call], { counter: framed, format: formats.openaiChat }).total // 9: 2 of text + 4 + 3
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export interface MessageCounter extends TokenCounter {
  /** The tokens `message` takes in a request, framing included: a finite number ≥ 0. */
  readonly countMessage: <M>(message: M, format: MessageFormat<M>) => number
}

/**
 * What every ctxkit function that counts accepts: a {@link TokenCounter}, a {@link MessageCounter}, or a plain
 * `(text) => number` (read as an approximate counter with an id of its own, see {@link toCounter}).
 *
 * @example
 * ```ts
 * import { type Counter, estimateTokens } from "@ctxkit/budget"
 *
 * const byWords: Counter = (text) => text.split(" ").length
 * estimateTokens("two words", byWords).tokens // 2
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export type Counter = TokenCounter | MessageCounter | ((text: string) => number)

/**
 * The default counter (id `approximate-chars-v1`): `ceil(length / 4)` UTF-16 code units, reported as
 * approximate. Fast and dependency-free; real tokenizers give 1.00–1.48× this on code and JSON, less on plain
 * English prose. Frozen: it cannot fail, so ctxkit counts with it without a guard.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 *
 * approximateCounter.count("hello world") // 3
 * approximateCounter.approximate // true
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const approximateCounter: TokenCounter = Object.freeze({
  id: "approximate-chars-v1",
  approximate: true,
  count: (text: string) => Math.ceil(text.length / 4)
})

// One counter per function for the life of the function: its id is unique to it, so a shared `CostCache`
// (keyed by counter id) never hands one function's counts to another, and passing the same function again
// finds its cached counts.
const wrapped = new WeakMap<object, TokenCounter>()
let wrappedSoFar = 0

/**
 * The counter a {@link Counter} argument stands for: none gives {@link approximateCounter}; a counter object is
 * used as it is; a plain function is wrapped once (the same function always gives the same counter) as an
 * approximate counter whose id, `function:<name>#<n>`, is unique to that function — two inline functions with
 * the same name never share cached counts. Anything else is returned as it is, for the guarded counting to
 * replace by the approximate count and report (`CounterFailed`).
 *
 * @example
 * ```ts
 * import { toCounter } from "@ctxkit/budget"
 *
 * const small = toCounter((text) => text.length)
 * const large = toCounter((text) => text.length * 100)
 * small.id === large.id // false: each function has its own id
 * toCounter(undefined).id // "approximate-chars-v1"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const toCounter = (counter: Counter | undefined): TokenCounter => {
  if (counter === undefined || counter === null) return approximateCounter
  if (typeof counter !== "function") return counter
  const known = wrapped.get(counter)
  if (known !== undefined) return known
  const name = typeof counter.name === "string" && counter.name.length > 0 ? counter.name : "anonymous"
  const made: TokenCounter = {
    id: `function:${name}#${++wrappedSoFar}`,
    approximate: true,
    count: (text) => counter(text)
  }
  wrapped.set(counter, made)
  return made
}
