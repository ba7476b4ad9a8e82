import type { Summarizer } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { ContextEngine, ContextEvents, SessionStore, TokenCounter } from "@ctxkit/engine"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Your model call: the request and `max_tokens` in; the reply and the provider's usage (any shape) out. */
export type CallModel = (messages: ReadonlyArray<Message>, maxTokens: number) => Effect.Effect<{
  readonly reply: Message
  readonly usage: unknown
}>
/** Your tools: the results of the reply's calls (none: the reply is the answer). */
export type RunTools = (reply: Message) => Effect.Effect<ReadonlyArray<Message>>

export const agent = (task: string, callModel: CallModel, runTools: RunTools) =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    let append: ReadonlyArray<Message> = [{ role: "system", content: "You are a coding agent." }, {
      role: "user",
      content: task
    }]
    for (let step = 0; step < 50; step++) {
      const request = yield* engine.prepare({ session: "task-1", append })
      const { reply, usage } = yield* callModel(request.messages, request.maxTokens)
      const seen = yield* engine.observe({ session: "task-1", usage })
      // The server dropped part of the prompt: discard the reply and say how to fix it.
      if (seen.outcome !== undefined) return seen.outcome.message
      const results = yield* runTools(reply)
      if (results.length === 0) return typeof reply.content === "string" ? reply.content : ""
      append = [reply, ...results]
    }
    return "Stopped after 50 steps."
  })

export const engineLayer = (summarizer: Layer.Layer<Summarizer>) =>
  ContextEngine.layer({ format: formats.canonical, window: 32_768, maxTokens: 4_096, preset: "recommended" }).pipe(
    Layer.provide([SessionStore.layerMemory, summarizer, TokenCounter.layerApproximate, ContextEvents.layerNoop])
  )
