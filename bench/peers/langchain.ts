/**
 * LangChain's `trimMessages` (`@langchain/core`, a dev dependency of the benchmark only) as a contender of the
 * fitting benchmark: the canonical conversation converted once to LangChain messages, outside the timed
 * region, and trimmed the way LangChain's documentation recommends for chat history (`strategy: "last"`,
 * `includeSystem: true`, `startOn: "human"`).
 *
 * `trimMessages` calls its token counter on a whole candidate list once per message it drops, so a plain counter
 * re-counts O(n²) messages. The counter given here is its best case: it memoizes each message's count for the
 * duration of one call (LangChain copies the messages at the start of every call, so counts never carry over
 * from one call to the next), so each message is tokenized once per call, like ctxkit without a cache; what
 * remains quadratic is the summing of the memoized counts.
 */
import type { TokenCounter } from "@ctxkit/budget"
import type { Message } from "@ctxkit/core/Message"
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages
} from "@langchain/core/messages"
import { OVERHEAD } from "./linear.ts"

/**
 * The arguments object of a generated call. The generator writes `{"key":"value"}` with the value verbatim (it
 * may hold raw newlines, which `JSON.parse` rejects), so the one pair is read directly.
 */
export const callArguments = (raw: string): Record<string, unknown> => {
  const pair = /^\{"([^"]*)":"([\s\S]*)"\}$/.exec(raw)
  if (pair === null) return { input: raw }
  return { [pair[1] ?? "input"]: pair[2] ?? "" }
}

/** The conversation as LangChain messages; each message's `id` is its index in the canonical conversation. */
export const toLangChain = (messages: ReadonlyArray<Message>): Array<BaseMessage> =>
  messages.map((m, i): BaseMessage => {
    const id = String(i)
    const content = typeof m.content === "string" ? m.content : ""
    switch (m.role) {
      case "system":
        return new SystemMessage({ id, content })
      case "user":
        return new HumanMessage({ id, content })
      case "assistant":
        return new AIMessage({
          id,
          content,
          tool_calls: (m.toolCalls ?? []).map((call) => ({
            id: call.id,
            name: call.name,
            args: callArguments(call.arguments),
            type: "tool_call" as const
          }))
        })
      case "tool":
        return new ToolMessage({ id, content, tool_call_id: m.toolCallId })
    }
  })

/** What a LangChain message is counted on: its text content, then `name args` per tool call. */
const text = (message: BaseMessage): string => {
  let out = typeof message.content === "string" ? message.content : ""
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) {
      const piece = call.name + " " + JSON.stringify(call.args)
      out = out.length === 0 ? piece : out + "\n" + piece
    }
  }
  return out
}

/** A list token counter for one `trimMessages` call: each message counted once, then summed from memory. */
const listCounter = (counter: TokenCounter): (messages: Array<BaseMessage>) => number => {
  const memo = new WeakMap<BaseMessage, number>()
  return (messages) => {
    let total = 0
    for (const message of messages) {
      let cost = memo.get(message)
      if (cost === undefined) {
        cost = counter.count(text(message)) + OVERHEAD
        memo.set(message, cost)
      }
      total += cost
    }
    return total
  }
}

/** Trims `messages` to `budget` tokens with `trimMessages`, as recommended for chat history. */
export const langchainTrim = (
  messages: Array<BaseMessage>,
  counter: TokenCounter,
  budget: number
): Promise<Array<BaseMessage>> =>
  trimMessages(messages, {
    maxTokens: budget,
    tokenCounter: listCounter(counter),
    strategy: "last",
    includeSystem: true,
    startOn: "human"
  })

/** The canonical messages a `trimMessages` output holds (by the index carried in each message's `id`). */
export const fromLangChain = (
  output: ReadonlyArray<BaseMessage>,
  canonical: ReadonlyArray<Message>
): Array<Message> => {
  const out: Array<Message> = []
  for (const message of output) {
    const original = message.id === undefined ? undefined : canonical[Number(message.id)]
    if (original !== undefined) out.push(original)
  }
  return out
}
