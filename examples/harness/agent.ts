/**
 * The harness's agent loop: `effect/ai`'s `LanguageModel.generateText` with the read-only toolkit, over
 * `OpenAiCompatible` wrapped by `ContextLanguageModel` (the context engine before and after every call), and a
 * line printed for everything the engine does (capping, clearing, compaction, the `ctx used/window` line).
 */
import { formats } from "@ctxkit/core"
import { ContextLanguageModel, OpenAiCompatible } from "@ctxkit/effect-ai"
import { ContextEngine, ContextEvents, type EngineEvent, SessionStore, Summarizer } from "@ctxkit/engine"
import { LanguageModel, Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { HarnessTools, toolsLayer } from "./tools.ts"

/** What the loop needs to know about the server and the workspace. */
export interface AgentConfig {
  readonly baseUrl: string
  readonly model: string
  /** The window the engine fits to (configured or discovered); `undefined`: the tutorial preset's 4,096. */
  readonly window: number | undefined
  /** The reply budget; the reserve sent as `max_tokens` is at most 25% of the window. */
  readonly maxTokens: number
  readonly workspace: string
  /** `model`: the server summarizes at compaction; `extractive`: ctxkit's offline checkpoint, no model call. */
  readonly summarizer: "model" | "extractive"
  /** At most this many model calls. */
  readonly maxTurns?: number | undefined
}

/** How a run ended: its exit code follows (0 done, 1 context_overflow, 3 the request failed or too many turns). */
export type AgentEnd =
  | { readonly end: "done"; readonly answer: string }
  | { readonly end: "context_overflow"; readonly message: string }
  | { readonly end: "error"; readonly message: string }

export const SYSTEM_PROMPT =
  "You are a read-only coding assistant. Use list_files, read_file and search to look at the workspace, then answer briefly."

/** The window the tutorial preset assumes when none is configured, discovered or learned. */
export const ASSUMED_WINDOW = 4_096

const n = (value: number): string => value.toLocaleString("en-US")

const short = (text: string, max = 100): string => text.length > max ? `${text.slice(0, max - 1)}…` : text

/** One printed line per engine event worth seeing; `ctx used/window (percent)` after each fitting. */
const eventPrinter = (print: (line: string) => void, initialWindow: number) => {
  let window = initialWindow
  return (event: EngineEvent): void => {
    switch (event.type) {
      case "context_capped":
        print(`~ capped ${event.data.results} tool results to the cap (${n(event.data.omittedChars)} characters cut)`)
        break
      case "context_cleared":
        print(`~ cleared ${event.data.results} old tool results (${n(event.data.tokensFreed)} tokens freed)`)
        break
      case "compaction_completed":
        print(`~ compacted the conversation: ${n(event.data.before)} -> ${n(event.data.after)} tokens`)
        break
      case "compaction_failed":
        print(`! compaction failed, the conversation was left as it was: ${event.data.error}`)
        break
      case "window_learned":
        window = event.data.tokens
        print(`! ${event.data.warning ?? `window learned: ${n(event.data.tokens)} tokens (${event.data.source})`}`)
        break
      case "context_fitted": {
        const percent = Math.round(event.data.tokens / window * 100)
        print(`ctx ${n(event.data.tokens)}/${n(window)} (${percent}%)`)
        break
      }
      default:
        break
    }
  }
}

/** The model the loop calls: OpenAiCompatible, wrapped so the engine runs around every call. */
export const modelLayer = (config: AgentConfig, print: (line: string) => void) => {
  const http = FetchHttpClient.layer
  const inner = OpenAiCompatible.layer({ baseUrl: config.baseUrl, model: config.model, maxTokens: config.maxTokens })
    .pipe(Layer.provide(http))
  const summarizer = config.summarizer === "extractive"
    ? Summarizer.layerExtractive
    : Summarizer.layerLanguageModel().pipe(Layer.provide(inner))
  const onEvent = eventPrinter(print, config.window ?? ASSUMED_WINDOW)
  const events = Layer.succeed(
    ContextEvents,
    ContextEvents.of({ emit: (_session, event) => Effect.sync(() => onEvent(event)) })
  )
  const engine = ContextEngine.layer({
    format: formats.effectAi,
    preset: "tutorial",
    maxTokens: config.maxTokens,
    model: config.model,
    ...(config.window === undefined ? {} : { window: config.window })
  }).pipe(Layer.provide([SessionStore.layerMemory, summarizer, events]))
  return ContextLanguageModel.layer({ session: "harness" }).pipe(Layer.provide([inner, engine]))
}

const describeParams = (params: unknown): string => short(JSON.stringify(params) ?? "")

/**
 * Runs `task` to its end: each turn one model call through the engine; tool calls are run and their results
 * appended; a reply without tool calls is the answer. A `context_overflow` failure ends the run with its fix.
 */
export const runAgent = (task: string, config: AgentConfig, print: (line: string) => void) =>
  Effect.gen(function*() {
    // The task is an ordinary user message: once compaction replaces it, the checkpoint carries it as its goal,
    // and the engine's fitting never drops the newest checkpoint.
    let history = Prompt.make([
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: task }
    ])
    let calls = 0
    let input = 0
    let output = 0
    const maxTurns = config.maxTurns ?? 12
    for (let turn = 1; turn <= maxTurns; turn++) {
      const answered = yield* Effect.result(LanguageModel.generateText({ prompt: history, toolkit: HarnessTools }))
      if (Result.isFailure(answered)) {
        const overflow = ContextLanguageModel.overflowOf(answered.failure)
        if (overflow !== undefined) {
          print(`[context_overflow] after ${turn} turns; the answer was discarded`)
          print(overflow.message)
          return { end: "context_overflow", message: overflow.message } satisfies AgentEnd
        }
        print(`[error] ${answered.failure.message}`)
        return { end: "error", message: answered.failure.message } satisfies AgentEnd
      }
      const response = answered.success
      input += response.usage.inputTokens.total ?? 0
      output += response.usage.outputTokens.total ?? 0
      for (const call of response.toolCalls) print(`> ${call.name} ${describeParams(call.params)}`)
      for (const result of response.toolResults) {
        const text = typeof result.result === "string" ? result.result : JSON.stringify(result.result) ?? ""
        print(text.startsWith("error:") ? `  ${short(text)}` : `  ok (${n(text.length)} characters)`)
      }
      calls += response.toolCalls.length
      history = Prompt.concat(history, Prompt.fromResponseParts(response.content))
      if (response.toolCalls.length === 0) {
        print(response.text)
        print(`[done] ${turn} turns, ${calls} tool calls, ${n(input)} input tokens, ${n(output)} output tokens`)
        return { end: "done", answer: response.text } satisfies AgentEnd
      }
    }
    const message = `stopped after ${maxTurns} model calls without an answer`
    print(`[error] ${message}`)
    return { end: "error", message } satisfies AgentEnd
  }).pipe(
    Effect.provide(Layer.merge(modelLayer(config, print), toolsLayer(config.workspace)))
  )

/** A message of a fixed conversation: its role and text. */
export interface ScriptedMessage {
  readonly role: string
  readonly content: unknown
}

const textOf = (message: ScriptedMessage): string =>
  typeof message.content === "string" ? message.content : JSON.stringify(message.content) ?? ""

/**
 * Replays a fixed conversation turn by turn, as a chat would have sent it: the system prompt and the first user
 * message, then each next user message after the model's reply. Ends with the reply to the last one, or with
 * `context_overflow` at the first reply the server gave from a truncated prompt.
 */
export const replayConversation = (
  conversation: ReadonlyArray<ScriptedMessage>,
  config: AgentConfig,
  print: (line: string) => void
) =>
  Effect.gen(function*() {
    const system = conversation.filter((m) => m.role === "system").map(textOf).join("\n\n")
    const users = conversation.filter((m) => m.role === "user").map(textOf)
    const estimate = conversation.reduce((sum, m) => sum + Math.ceil(textOf(m).length / 4) + 4, 0)
    print(
      `conversation: ${conversation.length} messages, about ${
        n(estimate)
      } estimated tokens (4 characters a token, 4 a message)`
    )
    let history = Prompt.make([{ role: "system", content: system }, { role: "user", content: users[0] ?? "" }])
    for (let turn = 1; turn <= users.length; turn++) {
      const answered = yield* Effect.result(LanguageModel.generateText({ prompt: history }))
      if (Result.isFailure(answered)) {
        const overflow = ContextLanguageModel.overflowOf(answered.failure)
        if (overflow !== undefined) {
          const { estimate, tokens } = overflow.verdict.sample
          print(
            `< (discarded: the server reported ${n(tokens)} prompt tokens for a request estimated at ${n(estimate)})`
          )
          print(`[context_overflow] at turn ${turn} of ${users.length}; the answer was discarded`)
          print(overflow.message)
          return { end: "context_overflow", message: overflow.message } satisfies AgentEnd
        }
        print(`[error] ${answered.failure.message}`)
        return { end: "error", message: answered.failure.message } satisfies AgentEnd
      }
      const response = answered.success
      print(`< ${short(response.text, 80)} (prompt_tokens ${n(response.usage.inputTokens.total ?? 0)})`)
      const next = users[turn]
      if (next === undefined) {
        print(`[done] ${turn} turns`)
        return { end: "done", answer: response.text } satisfies AgentEnd
      }
      history = Prompt.concat(
        Prompt.concat(history, Prompt.fromResponseParts(response.content)),
        Prompt.make([{ role: "user", content: next }])
      )
    }
    return { end: "error", message: "the conversation has no user message" } satisfies AgentEnd
  }).pipe(Effect.provide(modelLayer(config, print)))

/**
 * What a loop without the engine gets: the whole conversation sent at once to the same server, its answer printed
 * with the keys it does and does not contain.
 */
export const sendUnchecked = (
  conversation: ReadonlyArray<ScriptedMessage>,
  keys: { readonly system: string; readonly task: string },
  config: AgentConfig,
  print: (line: string) => void
) =>
  Effect.gen(function*() {
    const prompt = Prompt.make(conversation.map((m) =>
      m.role === "system"
        ? { role: "system" as const, content: textOf(m) }
        : { role: m.role === "assistant" ? "assistant" as const : "user" as const, content: textOf(m) }
    ))
    const response = yield* LanguageModel.generateText({ prompt })
    const answer = response.text
    print(
      `without the engine, the same ${conversation.length} messages sent at once: HTTP 200 · finish ${response.finishReason} · prompt_tokens ${
        n(response.usage.inputTokens.total ?? 0)
      }`
    )
    print(`  answer: ${answer}`)
    print(`  system key (${keys.system}): ${answer.includes(keys.system) ? "present" : "missing"}`)
    print(`  task key (${keys.task}): ${answer.includes(keys.task) ? "present" : "missing"}`)
  }).pipe(
    Effect.provide(
      OpenAiCompatible.layer({ baseUrl: config.baseUrl, model: config.model, maxTokens: config.maxTokens }).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
    )
  )
