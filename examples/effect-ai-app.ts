/**
 * ctxkit in an `effect/ai` app: a `Chat` whose every call runs through the context engine.
 *
 * `ContextLanguageModel.layer` wraps the app's `LanguageModel` (here `OpenAiCompatible`): before each call the
 * engine appends what is new, caps, clears, compacts and fits the prompt to the window it asked the server for;
 * after it, the engine reads the usage, and a reply the server gave from a truncated prompt fails as
 * `context_overflow` with its fix instead of coming back as an answer.
 *
 * Run: `npx node --conditions=@ctxkit/source examples/effect-ai-app.ts` (against a scripted Ollama-like server on
 * 127.0.0.1), or add `--base-url http://127.0.0.1:11434 --model qwen2.5:7b` for a real server.
 */
import { formats } from "@ctxkit/core"
import { ContextLanguageModel, OpenAiCompatible } from "@ctxkit/effect-ai"
import { ContextEngine, SessionStore, Summarizer, WindowSource } from "@ctxkit/engine"
import { startOllamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
import { Chat } from "effect/ai"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { parseArgs } from "node:util"

// --- the layers: the app's model, wrapped, with an engine that asks the server for its window ---------------

export const appModel = (baseUrl: string, model: string) => {
  const http = FetchHttpClient.layer
  const inner = OpenAiCompatible.layer({ baseUrl, model }).pipe(Layer.provide(http))
  const engine = ContextEngine.layer({ format: formats.effectAi, maxTokens: 512, preset: "recommended" }).pipe(
    Layer.provide([
      SessionStore.layerMemory,
      Summarizer.layerLanguageModel().pipe(Layer.provide(inner)),
      WindowSource.layerHttp({ baseUrl, model }).pipe(Layer.provide(http))
    ])
  )
  return ContextLanguageModel.layer({ session: "notes-chat" }).pipe(Layer.provide([inner, engine]))
}

// --- the app: an ordinary effect/ai Chat; nothing in it knows about ctxkit -----------------------------------

export const conversation = (questions: ReadonlyArray<string>, print: (line: string) => void) =>
  Effect.gen(function*() {
    const chat = yield* Chat.fromPrompt([{ role: "system", content: "You answer questions about release notes." }])
    for (const question of questions) {
      const answer = yield* chat.generateText({ prompt: question }).pipe(
        Effect.map((response) => response.text),
        Effect.catchTag("AiError", (error) => {
          const overflow = ContextLanguageModel.overflowOf(error)
          return overflow === undefined ? Effect.fail(error) : Effect.succeed(`[context_overflow] ${overflow.message}`)
        })
      )
      print(`> ${question}`)
      print(answer)
    }
  })

/** Runs the example; offline, against a scripted server that answers with how many messages it was sent. */
export const main = async (argv: ReadonlyArray<string>, print: (line: string) => void): Promise<void> => {
  const { values } = parseArgs({
    args: [...argv],
    options: { "base-url": { type: "string" }, model: { type: "string" } }
  })
  const server = values["base-url"] === undefined
    ? await startOllamaLikeServer({
      window: 4_096,
      reply: (kept) => ({ content: `I was sent ${kept.length} messages; the last: ${String(kept.at(-1)?.content)}` })
    })
    : undefined
  try {
    const baseUrl = server?.baseUrl ?? values["base-url"] ?? ""
    const questions = ["What changed in the release?", "Who owns the migration?", "When is the summary due?"]
    await Effect.runPromise(
      conversation(questions, print).pipe(Effect.provide(appModel(baseUrl, values.model ?? "llama3.2:3b")))
    )
    if (server !== undefined) {
      print(`max_tokens sent: ${server.requests.map((r) => r.maxTokens).join(", ")}`)
    }
  } finally {
    await server?.close()
  }
}

if (import.meta.main || path.resolve(process.argv[1] ?? "") === import.meta.filename) {
  await main(process.argv.slice(2), (line) => console.log(line))
}
