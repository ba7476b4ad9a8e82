/**
 * What the engine benchmarks share: the session they replay (generated messages with their texts cut to
 * `CUT` characters, so a 10k-message session fits an assumed window) and a summarizer that answers at once.
 */
import { Summarizer } from "@ctxkit/compaction"
import type { Message } from "@ctxkit/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { generateConversation } from "./conversations.ts"

/** The longest text a replayed message keeps, in characters. */
export const CUT = 400

const shorten = (m: Message): Message =>
  typeof m.content === "string" && m.content.length > CUT ? { ...m, content: m.content.slice(0, CUT) } : m

/** A generated conversation of `size` messages, each text cut to `CUT` characters. */
export const benchSession = (size: number): Array<Message> => generateConversation(size).map(shorten)

/** A summarizer that answers a minimal checkpoint at once: the benchmarks time the engine, not a model. */
export const instantSummarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"g\"}}", finishReason: "stop" })
  })
)
