/**
 * Part 2 of `ctxkit demo`: the conversation of an overflow experiment (`@ctxkit/testing/Tutorial`) sent through `OpenAiCompatible` to a scripted
 * server that truncates like Ollama (its default 4,096-token `num_ctx`, the oldest messages after the system
 * prompt dropped, HTTP 200 and `finish_reason: "stop"` all the same). First as a harness without ctxkit sends it:
 * the model answers confidently without the task. Then request by request with the engine observing each
 * response: the first truncated one is detected and the run ends with `context_overflow` and its fix. Then the
 * fix applied: the window asked of the server, and the engine fitting the same conversation to it.
 *
 * @internal
 */
import { formats, type Message } from "@ctxkit/core"
import { OpenAiCompatible } from "@ctxkit/effect-ai"
import { ContextEngine, discoverWindow, type EngineEvent, SessionStore, Summarizer } from "@ctxkit/engine"
import { ollamaLikeServer, type RunningServer, type ServedRequest } from "@ctxkit/testing/OllamaLikeServer"
import { tutorialConversation, tutorialKeys, tutorialServer } from "@ctxkit/testing/Tutorial"
import { LanguageModel, type Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"

/** The model the scripted server names. */
export const OVERFLOW_MODEL = "llama3.2:3b"
/**
 * The window the harness believes it has: the model's advertised context length. Ollama serves 4,096 tokens
 * unless `num_ctx` is raised, and says nothing when it cuts a prompt to fit.
 */
export const BELIEVED_WINDOW = 131_072
/** The reply budget sent as `max_tokens`. */
export const OVERFLOW_MAX_TOKENS = 512

/** One model call: what was sent, what the server did with it, and the answer. */
export interface OverflowCall {
  readonly messages: number
  readonly estimate: number
  readonly served: ServedRequest | undefined
  readonly answer: string
  readonly finishReason: string
  readonly promptTokens: number | undefined
}

/** One request of the observed run, and what the engine concluded. */
export interface ObservedRequest extends OverflowCall {
  readonly truncated: boolean
  readonly events: ReadonlyArray<EngineEvent>
}

/** What part 2 did. */
export interface OverflowRun {
  readonly serverWindow: number
  readonly believedWindow: number
  /** The whole conversation sent at once, without ctxkit. */
  readonly naive: OverflowCall
  /** Request by request with the engine observing, up to the one it ended. */
  readonly observed: ReadonlyArray<ObservedRequest>
  /** The `context_overflow` outcome that ended the run. */
  readonly outcome:
    | { readonly reason: string; readonly kind: string; readonly rule: string; readonly message: string }
    | undefined
  /** The fix applied: the window the server reports, and the same conversation fitted to it. */
  readonly fixed: {
    readonly window: number | undefined
    readonly source: string
    readonly call: OverflowCall
    readonly events: ReadonlyArray<EngineEvent>
  }
  readonly expected: string
}

const toPrompt = (messages: ReadonlyArray<Message>): Prompt.RawInput =>
  messages.map((m) => {
    const text = formats.canonical.text(m)
    return m.role === "system"
      ? { role: "system" as const, content: text }
      : m.role === "assistant"
      ? { role: "assistant" as const, content: [{ type: "text" as const, text }] }
      : { role: "user" as const, content: [{ type: "text" as const, text }] }
  })

/** One call to the server through `OpenAiCompatible`, with what the server logged about it. */
const call = (server: RunningServer, messages: ReadonlyArray<Message>, estimate: number) =>
  Effect.gen(function*() {
    const before = server.requests.length
    const response = yield* LanguageModel.generateText({ prompt: toPrompt(messages) }).pipe(
      Effect.provide(
        OpenAiCompatible.layer({ baseUrl: server.baseUrl, model: OVERFLOW_MODEL, maxTokens: OVERFLOW_MAX_TOKENS })
      )
    )
    const result: OverflowCall = {
      messages: messages.length,
      estimate,
      served: server.requests[before],
      answer: response.text,
      finishReason: response.finishReason,
      promptTokens: response.usage.inputTokens.total
    }
    return { result, usage: { prompt_tokens: response.usage.inputTokens.total ?? 0 } }
  })

const engineLayer = (options: Parameters<typeof ContextEngine.layer>[0]) =>
  ContextEngine.layer(options).pipe(Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive]))

/** The requests of the experiment: the conversation as it grew, one request per user message. */
const turns = (): ReadonlyArray<ReadonlyArray<Message>> => {
  const out: Array<ReadonlyArray<Message>> = []
  let from = 0
  tutorialConversation.forEach((m, i) => {
    if (m.role === "user") {
      out.push(tutorialConversation.slice(from, i + 1))
      from = i + 1
    }
  })
  return out
}

/** Runs part 2 against a scripted server started (and closed) within it. Offline: 127.0.0.1 only. */
export const runOverflow: Effect.Effect<OverflowRun, unknown> = Effect.scoped(
  Effect.gen(function*() {
    const server = yield* ollamaLikeServer(tutorialServer)
    const estimateOf = (messages: ReadonlyArray<Message>) =>
      messages.reduce((sum, m) => sum + Math.ceil(formats.canonical.text(m).length / 4) + 4, 0)

    // 1. Without ctxkit: the whole conversation, sent as is.
    const naive = (yield* call(server, tutorialConversation, estimateOf(tutorialConversation))).result

    // 2. With the engine: request by request, each response observed.
    const observed: Array<ObservedRequest> = []
    let outcome: OverflowRun["outcome"]
    yield* Effect.gen(function*() {
      const engine = yield* ContextEngine
      // The experiment's own acknowledgements are replayed (they are in the conversation), not the model's.
      for (const appended of turns()) {
        const prepared = yield* engine.prepare({ session: "tutorial", append: appended })
        const sent = prepared.messages as ReadonlyArray<Message>
        const { result, usage } = yield* call(server, sent, prepared.tokens)
        const seen = yield* engine.observe({ session: "tutorial", usage, finishReason: result.finishReason })
        observed.push({ ...result, truncated: seen.truncated, events: prepared.events })
        if (seen.outcome !== undefined) {
          outcome = {
            reason: seen.outcome.reason,
            kind: seen.outcome.kind,
            rule: seen.outcome.verdict.rule,
            message: seen.outcome.message
          }
          return
        }
      }
    }).pipe(
      Effect.provide(engineLayer({
        format: formats.canonical,
        window: BELIEVED_WINDOW,
        maxTokens: OVERFLOW_MAX_TOKENS,
        preset: "neotavern"
      }))
    )

    // 3. The fix: ask the server its window, and let the engine fit the conversation to it.
    const discovered = yield* discoverWindow({ baseUrl: server.baseUrl, model: OVERFLOW_MODEL })
    const fixed = yield* Effect.gen(function*() {
      const engine = yield* ContextEngine
      const prepared = yield* engine.prepare({ session: "fixed", append: tutorialConversation })
      const sent = prepared.messages as ReadonlyArray<Message>
      const { result, usage } = yield* call(server, sent, prepared.tokens)
      yield* engine.observe({ session: "fixed", usage })
      return { call: result, events: prepared.events }
    }).pipe(
      Effect.provide(engineLayer({
        format: formats.canonical,
        window: discovered.window ?? 4_096,
        maxTokens: OVERFLOW_MAX_TOKENS,
        preset: "tutorial"
      }))
    )
    return {
      serverWindow: tutorialServer.window ?? 4_096,
      believedWindow: BELIEVED_WINDOW,
      naive,
      observed,
      outcome,
      fixed: { window: discovered.window, source: discovered.source, ...fixed },
      expected: `${tutorialKeys.task} ${tutorialKeys.system}`
    }
  })
).pipe(Effect.provide(FetchHttpClient.layer))
