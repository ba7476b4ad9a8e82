/**
 * Independent checks of an `effect/ai` `Prompt` after truncation, shared by the effect-ai tests and the
 * `effectAiTokenizer` benchmark: whether a tool call was kept without its result (or the reverse), and which
 * message is the current request.
 */
import { formats } from "@ctxkit/core"
import type { Prompt } from "effect/ai"

const ids = (message: Prompt.Message, type: "tool-call" | "tool-result"): ReadonlyArray<string> =>
  message.role === "system" ? [] : message.content.flatMap((part) => part.type === type ? [part.id] : [])

/** A call kept without its result, or a result without its call. */
export const splitsAPair = (prompt: Prompt.Prompt): boolean => {
  const calls = new Set(prompt.content.flatMap((m) => ids(m, "tool-call")))
  const results = new Set(prompt.content.flatMap((m) => ids(m, "tool-result")))
  return [...calls].some((id) => !results.has(id)) || [...results].some((id) => !calls.has(id))
}

/** The current request: the last user message that is not a summary. */
export const lastUser = (prompt: Prompt.Prompt): Prompt.Message | undefined => {
  for (let i = prompt.content.length - 1; i >= 0; i--) {
    const m = prompt.content[i]
    if (m !== undefined && m.role === "user" && !formats.effectAi.isSummary(m)) return m
  }
  return undefined
}
