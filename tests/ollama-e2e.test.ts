/**
 * End to end on the wire: the engine and `OpenAiCompatible` (effect/ai) against the scripted Ollama-like server on
 * 127.0.0.1. The overflow experiment's 27-message conversation, sent with a wrong assumed window, is truncated by
 * the server (6,204 estimated tokens answered with 3,725) and flagged as `context_overflow`; with the window
 * discovered from the server, nothing is truncated; an honest replay of every corpus conversation is never flagged.
 */
import { approximateCounter } from "@ctxkit/budget"
import { formats, type Message as CanonicalMessage } from "@ctxkit/core"
import { OpenAiCompatible } from "@ctxkit/effect-ai"
import { ContextEngine, SessionStore, Summarizer, WindowSource } from "@ctxkit/engine"
import { ollamaLikeServer, type RunningServer } from "@ctxkit/testing/OllamaLikeServer"
import { tutorialConversation, tutorialKeys, tutorialServer } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import { LanguageModel, Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import { corpusAbsent, loadCorpus } from "./corpus.ts"
import { appendsOf } from "./engineSim.ts"

/** A canonical message as effect/ai's encoded prompt message (what an effect/ai harness holds). */
const toEncoded = (m: CanonicalMessage): Prompt.MessageEncoded => {
  const text = formats.canonical.ownText(m)
  switch (m.role) {
    case "system":
      return { role: "system", content: text }
    case "user":
      return { role: "user", content: [{ type: "text", text }] }
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(text.length > 0 ? [{ type: "text" as const, text }] : []),
          ...(m.toolCalls ?? []).map((call) => ({
            type: "tool-call" as const,
            id: call.id,
            name: call.name,
            params: parseArguments(call.arguments),
            providerExecuted: false
          }))
        ]
      }
    case "tool":
      return {
        role: "tool",
        content: [{
          type: "tool-result",
          id: m.toolCallId,
          name: m.toolName ?? "tool",
          isFailure: false,
          result: formats.canonical.text(m)
        }]
      }
  }
}

const parseArguments = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return { input: text }
  }
}

const toPrompt = (messages: ReadonlyArray<CanonicalMessage>): ReadonlyArray<Prompt.Message> =>
  Prompt.make(messages.map(toEncoded)).content

interface Turn {
  readonly estimate: number
  readonly reported: number | undefined
  readonly truncated: boolean
  readonly outcome: string | undefined
  readonly answer: string
  /** This request repeated the previous one after a `context_overflow` (its response discarded). */
  readonly retry: boolean
}

/**
 * Replays `appends` through the engine and `OpenAiCompatible` against `server`, as a harness does: one prepare, one
 * model call and one observe per append. A response flagged `context_overflow` is discarded and the request is
 * prepared again once (nothing appended), which the engine fits to what it learned. The conversation's own assistant
 * turns are what gets appended; the server's replies are only read.
 */
const replay = (
  server: RunningServer,
  appends: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  engine: { readonly window?: number | undefined; readonly discover: boolean }
) =>
  Effect.gen(function*() {
    const context = yield* ContextEngine
    const turns: Array<Turn> = []
    const send = (append: ReadonlyArray<Prompt.Message>, retry: boolean) =>
      Effect.gen(function*() {
        const request = yield* context.prepare({ session: "e2e", append })
        const response = yield* LanguageModel.generateText({ prompt: Prompt.fromMessages(request.messages) })
        const seen = yield* context.observe({
          session: "e2e",
          usage: response.usage,
          finishReason: response.finishReason
        })
        const turn: Turn = {
          estimate: request.tokens,
          reported: server.requests.at(-1)?.promptTokens,
          truncated: seen.truncated,
          outcome: seen.outcome?.reason,
          answer: response.text,
          retry
        }
        turns.push(turn)
        return turn
      })
    for (const append of appends) {
      const turn = yield* send(append, false)
      if (turn.outcome !== undefined) yield* send([], true)
    }
    return turns
  }).pipe(
    Effect.provide(
      ContextEngine.layer({
        format: formats.effectAi,
        ...(engine.window === undefined ? {} : { window: engine.window }),
        maxTokens: 512,
        preset: "recommended"
      }).pipe(
        Layer.provide([
          SessionStore.layerMemory,
          Summarizer.layerExtractive,
          engine.discover ? WindowSource.layerHttp({ baseUrl: server.baseUrl }) : WindowSource.layerNone
        ])
      )
    ),
    Effect.provide(OpenAiCompatible.layer({ baseUrl: server.baseUrl, model: server.model })),
    Effect.provide(FetchHttpClient.layer)
  )

/** The experiment's conversation as a harness sends it: one request per user message, the acknowledgements between. */
const tutorialAppends = (): ReadonlyArray<ReadonlyArray<Prompt.Message>> =>
  appendsOf(tutorialConversation, formats.canonical).map(toPrompt)

const estimateOf = (messages: ReadonlyArray<CanonicalMessage>): number =>
  messages.reduce((sum, m) => sum + approximateCounter.count(formats.canonical.text(m)) + 4, 0)

describe("the engine and OpenAiCompatible against the Ollama-like server", () => {
  it.effect("the 27-message conversation after requests that fit: 6,204 estimated, answered with 3,725, flagged as context_overflow", () =>
    Effect.gen(function*() {
      const server = yield* ollamaLikeServer(tutorialServer)
      // Eight requests that fit, then the rest of the notes at once: the experiment's last request.
      const appends = tutorialAppends()
      const joined = [...appends.slice(0, 8), appends.slice(8).flat()]
      const turns = yield* replay(server, joined, { window: 32_768, discover: false })
      const last = turns.find((t) => t.outcome !== undefined)!
      const served = server.requests[turns.indexOf(last)]!
      assert.strictEqual(estimateOf(tutorialConversation), 6_204)
      assert.strictEqual(served.received, 28) // the engine believed it had 32,768 tokens: all of it went out
      assert.strictEqual(last.estimate, 6_204)
      assert.strictEqual(last.reported, 3_725)
      assert.strictEqual(last.answer, tutorialKeys.system) // the confident answer without the task, discarded
      assert.isTrue(last.truncated)
      assert.strictEqual(last.outcome, "context_overflow")
      // Every request before it was answered whole and none was flagged.
      assert.deepStrictEqual(turns.slice(0, 8).map((t) => t.truncated), Array(8).fill(false))
      assert.deepStrictEqual(server.requests.slice(0, 8).map((r) => r.truncated), Array(8).fill(false))
      // The retry fits what the engine learned: answered whole, with both keys.
      const retry = turns.at(-1)!
      assert.isTrue(retry.retry)
      assert.isFalse(server.requests.at(-1)!.truncated)
      assert.isFalse(retry.truncated)
      assert.strictEqual(retry.answer, `${tutorialKeys.task} ${tutorialKeys.system}`)
    }).pipe(Effect.scoped))

  it.effect("turn by turn with a wrong assumed window: the first truncated request is flagged, the engine fits every later one, and the question is answered with both keys", () =>
    Effect.gen(function*() {
      const server = yield* ollamaLikeServer(tutorialServer)
      const turns = yield* replay(server, tutorialAppends(), { window: 32_768, discover: false })
      const first = server.requests.findIndex((r) => r.truncated)
      assert.isAbove(first, 3)
      // Every request the server answered whole went unflagged; the first it truncated was flagged.
      server.requests.forEach((served, i) => {
        if (!served.truncated) assert.isFalse(turns[i]!.truncated, `request ${i} fitted and was flagged`)
      })
      assert.strictEqual(turns[first]!.outcome, "context_overflow")
      // After it, nothing more was truncated: the engine fits to the window it learned.
      assert.deepStrictEqual(server.requests.slice(first + 1).filter((r) => r.truncated), [])
      assert.strictEqual(turns.at(-1)!.answer, `${tutorialKeys.task} ${tutorialKeys.system}`)
    }).pipe(Effect.scoped))

  it.effect("collapse: every truncated request is flagged, and no other", () =>
    Effect.gen(function*() {
      const server = yield* ollamaLikeServer({ ...tutorialServer, mode: "collapse" })
      const turns = yield* replay(server, tutorialAppends(), { window: 32_768, discover: false })
      server.requests.forEach((served, i) => assert.strictEqual(turns[i]!.truncated, served.truncated, `request ${i}`))
      assert.isAbove(server.requests.filter((r) => r.truncated).length, 0)
    }).pipe(Effect.scoped))

  it.effect("the window discovered from the server: every request fits it, nothing is truncated or flagged", () =>
    Effect.gen(function*() {
      const server = yield* ollamaLikeServer(tutorialServer)
      const turns = yield* replay(server, tutorialAppends(), { discover: true })
      assert.deepStrictEqual(server.requests.filter((r) => r.truncated), [])
      assert.deepStrictEqual(turns.filter((t) => t.truncated), [])
      server.requests.forEach((served) => assert.isAtMost(served.trueTokens, server.window))
      assert.strictEqual(turns.at(-1)!.answer, `${tutorialKeys.task} ${tutorialKeys.system}`)
    }).pipe(Effect.scoped))
})

describe.skipIf(corpusAbsent)("an honest replay of the corpus over the wire", () => {
  it.effect("no request of any corpus conversation is flagged by an honest server", () =>
    Effect.gen(function*() {
      let requests = 0
      for (const conversation of loadCorpus()) {
        const messages = conversation.messages as unknown as ReadonlyArray<CanonicalMessage>
        const size = estimateOf(messages)
        // The server's window is a quarter of the conversation (at least 8,192): the engine learns it and fits.
        const window = Math.max(8_192, Math.floor(size / 4))
        const server = yield* ollamaLikeServer({ window, mode: "honest" })
        const turns = yield* replay(server, appendsOf(messages, formats.canonical).map(toPrompt), { discover: true })
        turns.forEach((turn, i) =>
          assert.isFalse(
            turn.truncated,
            `${conversation.id}: request ${i} flagged (${turn.estimate} → ${turn.reported})`
          )
        )
        requests += turns.length
      }
      assert.isAbove(requests, 100)
    }).pipe(Effect.scoped), 600_000)
})
