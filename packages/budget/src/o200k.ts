/**
 * OpenAI's `o200k_base` encoding as ctxkit counters, from `gpt-tokenizer` (an optional peer dependency: install it
 * to use this module): `o200kCounter` for texts, and `o200kChatCounter`, which prices each message the way
 * OpenAI's chat format frames it. Nothing is downloaded.
 *
 * @since 0.1.0
 */
import type { MessageFormat } from "@ctxkit/core"
import { countTokens, encodeChat } from "gpt-tokenizer/encoding/o200k_base"
import type { MessageCounter, TokenCounter } from "./TokenCounter.ts"

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
 * @category counting
 * @since 0.1.0
 */
export const o200kCounter: TokenCounter = {
  id: "o200k_base",
  approximate: false,
  count: (text) => countTokens(text, asPlainText)
}

/**
 * The tokens OpenAI's chat format adds to each tool call (its name and arguments are counted as text), as in
 * OpenAI's published way of counting function calls.
 */
const TOOL_CALL_FRAMING = 3

// The ChatML frame of a message of each role (`<|im_start|>role<|im_sep|>` … `<|im_end|>`), measured once per
// role with gpt-tokenizer's own chat encoder: a message alone, less the empty chat (the reply's priming).
const frames = new Map<string, number>()
const frameOf = (role: string): number => {
  let frame = frames.get(role)
  if (frame === undefined) {
    frame = encodeChat([{ role, content: "" }], "gpt-4o").length - encodeChat([], "gpt-4o").length
    frames.set(role, frame)
  }
  return frame
}

/**
 * Prices each message as OpenAI's chat format sends it with `o200k_base` (id `o200k_base-chat`): the message's
 * text, its ChatML frame as gpt-tokenizer's `encodeChat` encodes it (4 tokens for every role), and 3 tokens per
 * tool call. Use it instead of {@link o200kCounter} wherever a counter is taken, so that framing is counted
 * rather than guessed by `perMessageOverhead`. A request also carries the 3 tokens that prime the reply
 * (`<|im_start|>assistant<|im_sep|>`), which belong to no message.
 *
 * The text is the format's `text(message)`: content, tool names and arguments (joined by a newline and a
 * space), results, reasoning. Counting the joiners can add a token per tool call over counting each part alone,
 * never fewer.
 *
 * @example
 * ```ts
 * import { conversationCost } from "@ctxkit/budget"
 * import { o200kChatCounter } from "@ctxkit/budget/o200k"
 * import { formats, type OpenAiChatMessage } from "@ctxkit/core"
 *
 * const messages: Array<OpenAiChatMessage> = [
 *   { role: "user", content: "List the files." },
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "README.md" }
 * ]
 * conversationCost(messages, { counter: o200kChatCounter, format: formats.openaiChat }).costs // [8, 9, 6]
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const o200kChatCounter: MessageCounter = {
  id: "o200k_base-chat",
  approximate: false,
  count: (text) => countTokens(text, asPlainText),
  countMessage: <M>(message: M, format: MessageFormat<M>): number =>
    frameOf(format.role(message)) + countTokens(format.text(message), asPlainText) +
    TOOL_CALL_FRAMING * format.toolCalls(message).length
}
