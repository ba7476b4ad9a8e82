/**
 * A fixed conversation from an overflow experiment with a small local model behind Ollama: the request that
 * the model answered confidently and wrongly because its server had silently dropped the task from the front of
 * the prompt.
 *
 * A key sits in the system prompt and another in the first user message (the task). Twelve long meeting notes
 * follow, each acknowledged, and the last message asks for both keys. A server that keeps the system prompt and
 * the latest messages but drops the oldest ones answers with the system key alone — the "confident answer without
 * the task" that truncation detection exists to stop.
 *
 * @since 0.1.0
 */
import type { Message } from "@ctxkit/core"
import { type OllamaLikeOptions, type WireMessage, wireText } from "./OllamaLikeServer.ts"

/**
 * The two keys of the experiment's conversation: one in the system prompt, one in the task.
 *
 * @example
 * ```ts
 * import { tutorialKeys } from "@ctxkit/testing/Tutorial"
 *
 * const expected = `${tutorialKeys.task} ${tutorialKeys.system}` // what a model that saw everything answers
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const tutorialKeys = { system: "ORCA-1618", task: "LYNX-2236" } as const

const NOTE = "Meeting notes: the team reviewed the release plan, agreed on owners for each open item, moved the "
  + "database migration to next week and asked for a short written summary before Friday. "
const note = (i: number): string => `Note ${String(i).padStart(2, "0")}. ${NOTE.repeat(12)}`.slice(0, 2_000)

const messages: ReadonlyArray<Message> = [
  { role: "system", content: `You review meeting notes. The system key is ${tutorialKeys.system}. Answer briefly.` },
  {
    role: "user",
    content:
      `We will go through some meeting notes; at the end I will ask for two keys. The task key is ${tutorialKeys.task}.`
  },
  ...Array.from({ length: 12 }, (_, i): ReadonlyArray<Message> => [
    { role: "assistant", content: "Understood." },
    { role: "user", content: note(i + 1) }
  ]).flat(),
  { role: "assistant", content: "Understood." },
  { role: "user", content: "Reply with the task and system keys." }
]

/**
 * The experiment's last request, in the canonical format: the system prompt and 27 messages after it (the task,
 * twelve meeting notes each acknowledged, and the question), about 6,204 tokens by the characters / 4 estimate
 * with 4 tokens of overhead a message. Frozen.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { tutorialConversation } from "@ctxkit/testing/Tutorial"
 *
 * const question = formats.canonical.text(tutorialConversation[tutorialConversation.length - 1]!)
 * // "Reply with the task and system keys."
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const tutorialConversation: ReadonlyArray<Message> = Object.freeze(messages.map((m) => Object.freeze(m)))

/**
 * A reply script for a scripted server: answers the experiment's question with the keys it can still see in the
 * messages the server kept, as a model does — so when the task was dropped, it answers with the system key alone,
 * confidently. Any other request is acknowledged; a trailing invariants block is read as standing context, not as
 * the request.
 *
 * @example
 * ```ts
 * import { keysReply, tutorialConversation } from "@ctxkit/testing/Tutorial"
 *
 * keysReply(tutorialConversation).content // "LYNX-2236 ORCA-1618": it saw both
 * keysReply(tutorialConversation.filter((_, i) => i !== 1)).content // "ORCA-1618": the task was dropped
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const keysReply = (kept: ReadonlyArray<WireMessage>): { readonly content: string } => {
  // The request is the last message, or the one before a trailing block of standing context (ctxkit's invariants
  // block says it is not a new request).
  const texts = kept.map(wireText)
  let lastText = ""
  for (let i = texts.length - 1; i >= 0 && lastText === ""; i--) {
    if (!texts[i]!.startsWith("<invariants")) lastText = texts[i]!
  }
  // A request for the keys ("Reply with the task and system keys."), not the task's mention of them.
  if (!/\b(reply|answer|give|tell)\b.*\bkeys?\b/i.test(lastText)) return { content: "Understood." }
  const seen = texts.join("\n")
  const keys = [tutorialKeys.task, tutorialKeys.system].filter((key) => seen.includes(key))
  return { content: keys.length > 0 ? keys.join(" ") : "I do not see any key." }
}

/**
 * The scripted server of the experiment: Ollama's default window of 4,096 tokens, plateau truncation, a tokenizer
 * 0.7% above the characters / 4 estimate and 8 chat-template tokens a message (a Llama 3 template), answering
 * with {@link keysReply}. Sent {@link tutorialConversation} (about 6,204 estimated tokens), it keeps the system
 * prompt and the latest messages, reports 3,725 prompt tokens — the figures the experiment measured — and answers with the
 * system key alone.
 *
 * @example
 * ```ts
 * import { startOllamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
 * import { tutorialServer } from "@ctxkit/testing/Tutorial"
 *
 * const server = await startOllamaLikeServer(tutorialServer)
 * // POST `${server.baseUrl}/v1/chat/completions` with tutorialConversation → usage.prompt_tokens 3725
 * await server.close()
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const tutorialServer: OllamaLikeOptions = Object.freeze({
  window: 4_096,
  mode: "plateau" as const,
  tokenizer: (text: string) => Math.ceil(Math.ceil(text.length / 4) * 1.007),
  templateTokens: 8,
  reply: keysReply
})
