/**
 * OpenAI's `o200k_base` encoding as a ctxkit counter, from `gpt-tokenizer` (an optional peer dependency: install it
 * to use this module). Nothing is downloaded.
 *
 * @since 0.1.0
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import type { TokenCounter } from "./TokenCounter.ts"

// Text that looks like a special token (`<|endoftext|>`) is counted as the text it is, never rejected.
const asPlainText = { disallowedSpecial: new Set<string>() }

/**
 * Exact counts for GPT-4o, GPT-4.1, GPT-5, o-series and gpt-oss models (id `o200k_base`), special-token-looking text counted as plain text.
 *
 * @example
 * ```ts
 * import { conversationCost } from "@ctxkit/budget"
 * import { o200kCounter } from "@ctxkit/budget/o200k"
 *
 * o200kCounter.count("Hello, world!") // 4
 * conversationCost([{ role: "user", content: "Hello" }], { counter: o200kCounter }).approximate // false
 * ```
 *
 * @category counters
 * @since 0.1.0
 */
export const o200kCounter: TokenCounter = {
  id: "o200k_base",
  approximate: false,
  count: (text) => countTokens(text, asPlainText)
}
