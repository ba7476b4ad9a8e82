/**
 * ctxkit in your own loop: your messages in your wire format (OpenAI chat here), your HTTP call, and the engine's
 * `prepare` before it and `observe` after it. No `effect/ai` model is involved.
 *
 * The loop replays the overflow tutorial's conversation, one user message a turn, against a scripted server that
 * has 4,096 tokens and truncates like Ollama, while the loop believes 32,768. The engine ends the turn the server
 * truncated with `context_overflow` and its fix; the loop drops that reply, and the next request is fitted to the
 * window the truncation showed.
 *
 * Run: `npx node --conditions=@ctxkit/source examples/harness/own-loop.ts`.
 */
import { formats, type OpenAiChatMessage } from "@ctxkit/core"
import { ContextEngine, SessionStore, Summarizer } from "@ctxkit/engine"
import { startOllamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
import { tutorialConversation, tutorialServer } from "@ctxkit/testing/Tutorial"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as path from "node:path"

/** Your model call: one POST, the parsed body back (a failed call's status and body are data too). */
const chat = (url: string, messages: ReadonlyArray<OpenAiChatMessage>, maxTokens: number) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "llama3.2:3b", messages, max_tokens: maxTokens })
    })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  })

const replyOf = (body: Record<string, unknown>): OpenAiChatMessage => {
  const choices = body["choices"] as ReadonlyArray<{ readonly message: OpenAiChatMessage }>
  return choices[0]!.message
}

/** The loop: each turn appends the reply it kept and the next user message. */
export const ownLoop = (url: string, print: (line: string) => void) =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    const [system, ...rest] = tutorialConversation.map((m) => ({ role: m.role, content: String(m.content) }))
    const users = rest.filter((m) => m.role === "user") as ReadonlyArray<OpenAiChatMessage>
    let append: ReadonlyArray<OpenAiChatMessage> = [system as OpenAiChatMessage, users[0]!]
    let answered = 0
    for (let turn = 1; turn <= users.length + 2; turn++) {
      const request = yield* engine.prepare({ session: "tutorial", append })
      const { body, status } = yield* chat(url, request.messages, request.maxTokens)
      const seen = yield* engine.observe(
        status === 200 ? { session: "tutorial", usage: body["usage"] } : {
          session: "tutorial",
          error: { status, body }
        }
      )
      if (seen.outcome !== undefined) {
        // The server answered from part of the prompt: drop its reply and tell the user.
        print(`turn ${turn}: ${request.messages.length} messages sent -> context_overflow`)
        print(seen.outcome.message)
        // The same request is asked again (nothing new to append): the engine fits it to the window it learned.
        append = []
        continue
      }
      const reply = replyOf(body)
      print(
        `turn ${turn}: ${request.messages.length} messages sent, ${request.tokens} tokens -> ${String(reply.content)}`
      )
      const next = users[++answered]
      if (next === undefined) return reply.content
      append = [reply, next]
    }
    return undefined
  })

export const engineLayer = ContextEngine.layer({ format: formats.openaiChat, window: 32_768, maxTokens: 256 }).pipe(
  Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive])
)

/** Runs the loop against the scripted server; resolves when the conversation is answered. */
export const main = async (print: (line: string) => void): Promise<void> => {
  const server = await startOllamaLikeServer(tutorialServer)
  try {
    await Effect.runPromise(ownLoop(server.baseUrl, print).pipe(Effect.provide(engineLayer)))
  } finally {
    await server.close()
  }
}

if (import.meta.main || path.resolve(process.argv[1] ?? "") === import.meta.filename) {
  await main((line) => console.log(line))
}
