/**
 * The linear reference of the fitting benchmark — the practical floor of any fitter: count each message once,
 * then one pass from the oldest message dropping messages until the total fits, keeping a leading system
 * prompt. It reads canonical messages directly (no lens), knows nothing of tool-call groups, protects nothing
 * else and does not recount: every fitter must do at least this much work, and ctxkit does more (groups,
 * protection, a verified recount), which is what the ratio to it shows.
 */
import type { TokenCounter } from "@ctxkit/budget"
import type { Message } from "@ctxkit/core/Message"

/** Tokens added per message, as ctxkit's default `perMessageOverhead`. */
export const OVERHEAD = 4

/** The text a canonical message is counted on: what `formats.canonical.text` returns for it. */
export const canonicalText = (message: Message): string => {
  const content = typeof message.content === "string" ? message.content : ""
  if (message.role !== "assistant" || message.toolCalls === undefined || message.toolCalls.length === 0) {
    return content
  }
  let out = content
  for (const call of message.toolCalls) {
    const piece = call.name + " " + call.arguments
    out = out.length === 0 ? piece : out + "\n" + piece
  }
  return out
}

/** Keeps the system prompt and the newest messages that fit `budget`, counting each message once. */
export const linearFit = (
  messages: ReadonlyArray<Message>,
  counter: TokenCounter,
  budget: number
): ReadonlyArray<Message> => {
  const n = messages.length
  const costs = new Float64Array(n)
  let total = 0
  for (let i = 0; i < n; i++) {
    const message = messages[i]
    const cost = message === undefined ? 0 : counter.count(canonicalText(message)) + OVERHEAD
    costs[i] = cost
    total += cost
  }
  const system = messages[0]?.role === "system" ? messages[0] : undefined
  let cut = system === undefined ? 0 : 1
  while (total > budget && cut < n) total -= costs[cut++] ?? 0
  const tail = messages.slice(cut)
  return system === undefined ? tail : [system, ...tail]
}
