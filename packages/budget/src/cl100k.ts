/**
 * OpenAI's `cl100k_base` encoding as a ctxkit counter, from `gpt-tokenizer` (an optional peer dependency: install it
 * to use this module). Nothing is downloaded.
 *
 * @since 0.1.0
 */
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base"
import type { TokenCounter } from "./TokenCounter.ts"

// Text that looks like a special token (`<|endoftext|>`) is counted as the text it is, never rejected.
const asPlainText = { disallowedSpecial: new Set<string>() }

/**
 * Exact counts for GPT-4, GPT-3.5 Turbo and the text-embedding-3 models (id `cl100k_base`), special-token-looking text counted as plain text.
 *
 * @example
 * ```ts
 * import { conversationCost } from "@ctxkit/budget"
 * import { cl100kCounter } from "@ctxkit/budget/cl100k"
 *
 * cl100kCounter.count("Hello, world!") // 4
 * conversationCost([{ role: "user", content: "Hello" }], { counter: cl100kCounter }).approximate // false
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const cl100kCounter: TokenCounter = {
  id: "cl100k_base",
  approximate: false,
  count: (text) => countTokens(text, asPlainText)
}
