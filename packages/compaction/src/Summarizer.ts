/**
 * The summarizer contract: what a compaction sends to a model and what it needs back. The summarizer itself
 * is abstract here — pass a function to `compact`, or provide the `Summarizer` service; its layers (extractive,
 * and any `effect/ai` `LanguageModel`) are in `@ctxkit/engine`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One summarizer call, ready to send: no tools, a system text (the checkpoint instructions), one user text
 * (`Checkpoint this session transcript.`, the optional focus, the transcript), and the output budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummaryRequest {
  /** The system text: the checkpoint instructions, plugin instructions included. */
  readonly system: string
  /** The single user message. */
  readonly prompt: string
  /** Output token budget of the summarizer call (`compaction.maxOutputTokens`, default 16,000). */
  readonly maxOutputTokens: number
}

/**
 * Why the summarizer stopped: `stop` (finished), `length` (cut by the output budget), `refusal` (the model
 * declined), `error` (the provider reported an error mid-stream) or `other`.
 *
 * @category models
 * @since 0.1.0
 */
export type SummaryFinishReason = "stop" | "length" | "refusal" | "error" | "other"

/**
 * What the summarizer answered: the reply text, why it stopped, and — when the server reported usage — the
 * prompt tokens it says it read (input + cache read + cache write), which the truncated-request guard
 * compares with the local estimate of the request.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummaryReply {
  readonly text: string
  readonly finishReason: SummaryFinishReason
  /** Prompt tokens the server reported for the request; absent or 0 when it reported none. */
  readonly promptTokens?: number | undefined
}

/**
 * The summarizer call failed (network, provider error, timeout). `message` must not carry provider response
 * bodies.
 *
 * @example
 * ```ts
 * import { SummarizerError } from "@ctxkit/compaction"
 *
 * new SummarizerError({ message: "HTTP 503 from the provider" }).message // "HTTP 503 from the provider"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>()("SummarizerError", {
  message: Schema.String
}) {}

/**
 * A summarizer as a plain function: an effect that turns a {@link SummaryRequest} into a {@link SummaryReply}.
 *
 * @example
 * ```ts
 * import type { SummarizeFn } from "@ctxkit/compaction"
 * import * as Effect from "effect/Effect"
 *
 * const offline: SummarizeFn = (request) =>
 *   Effect.succeed({ text: `{"checkpoint":{"goal":"${request.prompt.length} characters summarized"}}`, finishReason: "stop" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type SummarizeFn = (request: SummaryRequest) => Effect.Effect<SummaryReply, SummarizerError>

/**
 * The summarizer as an Effect service. `@ctxkit/engine`'s `Summarizer` is this service with its layers
 * (`layerExtractive`, `layerLanguageModel`); tests provide their own with `Summarizer.of`.
 *
 * @example
 * ```ts
 * import { Summarizer } from "@ctxkit/compaction"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const scripted = Layer.succeed(Summarizer, Summarizer.of({
 *   summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"ship it\"}}", finishReason: "stop" })
 * }))
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class Summarizer extends Context.Service<Summarizer, {
  readonly summarize: SummarizeFn
}>()("@ctxkit/compaction/Summarizer") {}
