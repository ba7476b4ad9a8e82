/**
 * `effect/ai`'s `Tokenizer.truncate` as a contender of the fitting benchmark: the canonical conversation
 * converted once to a `Prompt` (`Prompt.makeMessage`, `Prompt.makePart`, `Prompt.fromMessages`), outside the timed
 * region, and truncated by a `Tokenizer` made with `Tokenizer.make` over a ctxkit counter.
 *
 * `truncate` keeps the newest messages that fit: it prepends one message at a time to the kept suffix and
 * tokenizes the whole candidate prompt again, so it tokenizes O(n²) messages. The `tokenize` given here is its
 * best case: each message's count is memoized for the duration of one `truncate` call (a fresh tokenizer per
 * call, so counts never carry over between calls), and the token array it must return is an array of that
 * length with no ids in it (empty slots), the cheapest value the `Tokenizer` contract allows. What remains is
 * the algorithm's own cost: building an array of k token slots for every candidate suffix of k tokens.
 */
import type { TokenCounter } from "@ctxkit/budget"
import type { Message } from "@ctxkit/core/Message"
import * as Prompt from "effect/ai/Prompt"
import * as Tokenizer from "effect/ai/Tokenizer"
import * as Effect from "effect/Effect"
import { callArguments } from "./langchain.ts"
import { OVERHEAD } from "./linear.ts"

/** A conversation as an `effect/ai` prompt, with the index of each prompt message in the canonical conversation. */
export interface EffectAiConversation {
  readonly prompt: Prompt.Prompt
  readonly indexOf: ReadonlyMap<Prompt.Message, number>
}

const toMessage = (m: Message): Prompt.Message => {
  const content = typeof m.content === "string" ? m.content : ""
  switch (m.role) {
    case "system":
      return Prompt.makeMessage("system", { content })
    case "user":
      return Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: content })] })
    case "assistant": {
      const parts: Array<Prompt.AssistantMessagePart> = []
      if (content.length > 0) parts.push(Prompt.makePart("text", { text: content }))
      for (const call of m.toolCalls ?? []) {
        parts.push(
          Prompt.makePart("tool-call", {
            id: call.id,
            name: call.name,
            params: callArguments(call.arguments),
            providerExecuted: false
          })
        )
      }
      return Prompt.makeMessage("assistant", { content: parts })
    }
    case "tool":
      return Prompt.makeMessage("tool", {
        content: [
          Prompt.makePart("tool-result", {
            id: m.toolCallId,
            name: m.toolName ?? "",
            isFailure: m.isError === true,
            result: content,
            providerExecuted: false
          })
        ]
      })
  }
}

/** The conversation as an `effect/ai` prompt. */
export const toEffectAi = (messages: ReadonlyArray<Message>): EffectAiConversation => {
  const converted = messages.map(toMessage)
  return { prompt: Prompt.fromMessages(converted), indexOf: new Map(converted.map((m, i) => [m, i])) }
}

/** What a prompt message is counted on: its text parts, `name params` per call, each result. */
const text = (message: Prompt.Message): string => {
  if (message.role === "system") return message.content
  let out = ""
  for (const part of message.content) {
    const piece = part.type === "text"
      ? part.text
      : part.type === "tool-call"
      ? part.name + " " + JSON.stringify(part.params)
      : part.type === "tool-result"
      ? String(part.result)
      : ""
    out = out.length === 0 ? piece : out + "\n" + piece
  }
  return out
}

/** A tokenizer for one `truncate` call: each message counted once, an array of that many token slots returned. */
const tokenizer = (counter: TokenCounter): Tokenizer.Service => {
  const memo = new WeakMap<Prompt.Message, number>()
  return Tokenizer.make({
    tokenize: (prompt) =>
      Effect.sync(() => {
        let total = 0
        for (const message of prompt.content) {
          let cost = memo.get(message)
          if (cost === undefined) {
            cost = counter.count(text(message)) + OVERHEAD
            memo.set(message, cost)
          }
          total += cost
        }
        // An array of `total` empty slots: its length is all `truncate` reads.
        const tokens: Array<number> = []
        tokens.length = total
        return tokens
      })
  })
}

/** Truncates `conversation` to `budget` tokens with `Tokenizer.truncate`. */
export const effectAiTruncate = (
  conversation: EffectAiConversation,
  counter: TokenCounter,
  budget: number
): Prompt.Prompt => Effect.runSync(tokenizer(counter).truncate(conversation.prompt, budget))

/** The canonical messages a truncated prompt holds. */
export const fromEffectAi = (
  output: Prompt.Prompt,
  conversation: EffectAiConversation,
  canonical: ReadonlyArray<Message>
): Array<Message> => {
  const out: Array<Message> = []
  for (const message of output.content) {
    const index = conversation.indexOf.get(message)
    const original = index === undefined ? undefined : canonical[index]
    if (original !== undefined) out.push(original)
  }
  return out
}
