/**
 * Part 1 of `ctxkit demo`: the demo's agent session through the engine's whole pipeline (cap, governor, clearing,
 * compaction with the offline summarizer, tail reduction, fitting, invariants) at a small window, request by
 * request, with what each step did and the tokens before and after it.
 *
 * @internal
 */
import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { ContextEngine, type EngineEvent, SessionStore, Summarizer } from "@ctxkit/engine"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type DemoSession, demoSession } from "./demoSession.ts"

/** The window of part 1: a small local model's. */
export const PIPELINE_WINDOW = 4_096
/** The reply budget of part 1. */
export const PIPELINE_MAX_TOKENS = 1_024
/**
 * The hard limit of part 1, in characters: small enough that the tail left after compaction is still over it, so
 * the reduction step shows too (the `recommended` preset's 800,000 is for real windows).
 */
export const PIPELINE_MAX_CONTEXT_CHARS = 11000

/** The engine's options in part 1: the `recommended` preset at a small window. */
export const pipelineOptions = {
  format: formats.canonical,
  window: PIPELINE_WINDOW,
  maxTokens: PIPELINE_MAX_TOKENS,
  preset: "recommended",
  // The governor's epochs keep a provider's prompt cache warm; a 30-message demo would never reach one.
  governor: { epochMessages: 0, minAgeTurns: 1 },
  hardLimit: { maxContextChars: PIPELINE_MAX_CONTEXT_CHARS }
} as const

/** One model request of the session. */
export interface PipelineRequest {
  readonly what: string
  /** Messages and estimated tokens of the whole stored transcript so far. */
  readonly transcriptMessages: number
  readonly transcriptTokens: number
  /** What the engine sent: messages and tokens of the request, and the input budget. */
  readonly requestMessages: number
  readonly requestTokens: number
  readonly budget: number
  /** The events of the steps that did something (the fitting and the audit of every request left out). */
  readonly events: ReadonlyArray<EngineEvent>
  /** Whether the request ends with the `<invariants>` block. */
  readonly invariants: boolean
}

/** What part 1 did. */
export interface PipelineRun {
  readonly window: number
  readonly maxTokens: number
  readonly budget: number
  readonly files: ReadonlyArray<string>
  readonly requests: ReadonlyArray<PipelineRequest>
  /** The last request as sent. */
  readonly finalRequest: ReadonlyArray<Message>
}

const QUIET = new Set(["context_fitted", "context_audit", "compaction_started"])

const isInvariantsBlock = (m: Message | undefined): boolean =>
  m !== undefined && m.role === "user" && typeof m.content === "string" && m.content.startsWith("<invariants")

/** Runs part 1 (offline; the summarizer is the extractive one). */
export const runPipeline = (session: DemoSession = demoSession()): Effect.Effect<PipelineRun, unknown> =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    const transcript: Array<Message> = []
    const requests: Array<PipelineRequest> = []
    let finalRequest: ReadonlyArray<Message> = []
    let budget = 0
    for (const step of session.steps) {
      transcript.push(...step.append)
      const prepared = yield* engine.prepare({ session: "demo", append: step.append })
      const sent = prepared.messages as ReadonlyArray<Message>
      finalRequest = sent
      budget = prepared.budget
      requests.push({
        what: step.what,
        transcriptMessages: transcript.length,
        transcriptTokens:
          conversationCost(transcript, { counter: approximateCounter, format: formats.canonical }).total,
        requestMessages: sent.length,
        requestTokens: prepared.tokens,
        budget: prepared.budget,
        events: prepared.events.filter((e) =>
          !QUIET.has(e.type) &&
          !(e.type === "context_governed" && e.data.elided.total === 0)
        ),
        invariants: isInvariantsBlock(sent[sent.length - 1])
      })
    }
    return {
      window: PIPELINE_WINDOW,
      maxTokens: PIPELINE_MAX_TOKENS,
      budget,
      files: session.files,
      requests,
      finalRequest
    }
  }).pipe(
    Effect.provide(
      ContextEngine.layer(pipelineOptions).pipe(Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive]))
    )
  )
