/**
 * `Summarizer`: the summarizer of compaction with its layers. It is `@ctxkit/compaction`'s `Summarizer` service
 * itself (the same key, so `compact` and the engine find what either import provides), with two layers:
 * `layerExtractive` (offline and deterministic) and `layerLanguageModel` (any `effect/ai` `LanguageModel`).
 *
 * @since 0.1.0
 */
import { Summarizer as CompactionSummarizer, SummarizerError, type SummaryRequest } from "@ctxkit/compaction"
import { describeValue } from "@ctxkit/core/Describe"
import { LanguageModel } from "effect/ai"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { extractCheckpoint } from "./internal/summarizerExtractive.ts"
import { describeFailure, replyOf } from "./internal/summarizerModel.ts"

/**
 * How long `Summarizer.layerLanguageModel` waits for the model by default: ten minutes, enough for a full
 * 16,000-token checkpoint from a slow local model; a hang fails with a `SummarizerError` after it.
 *
 * @example
 * ```ts
 * import { DEFAULT_SUMMARIZER_TIMEOUT } from "@ctxkit/engine/Summarizer"
 *
 * DEFAULT_SUMMARIZER_TIMEOUT // "10 minutes"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_SUMMARIZER_TIMEOUT = "10 minutes"

/**
 * Options of `Summarizer.layerLanguageModel`.
 *
 * @example
 * ```ts
 * import type { LanguageModelSummarizerOptions } from "@ctxkit/engine/Summarizer"
 *
 * const options: LanguageModelSummarizerOptions = { timeout: "90 seconds" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface LanguageModelSummarizerOptions {
  /**
   * How long one summarizer call may take (a `Duration` input ≥ 0); after it the call fails with a
   * `SummarizerError`. Default {@link DEFAULT_SUMMARIZER_TIMEOUT}; a value that is not a duration ≥ 0 means the
   * default, with a warning logged when the layer is built.
   */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The checkpoint reply of the extractive summarizer for `request`, as `Summarizer.layerExtractive` answers it:
 * the JSON checkpoint compaction parses, `finishReason: "stop"`, no usage. Pure and deterministic.
 *
 * It reads the transcript the request carries (the lines of `serializeForSummary`) and fills the checkpoint from
 * what it literally holds: the goal from the user's requests (an earlier checkpoint's goal first, then the
 * latest request and the focus asked for); the user's instructions and constraints, quoted word for word from
 * their messages (sentences with `must`, `never`, `always`, `don't`, `only`, `keep`, `avoid`, … and those of an
 * earlier checkpoint); failed tool calls as discoveries; answered calls as accomplished; the last state; the calls
 * still open and an unanswered request as next steps; and the files named by tool arguments. Extra fields asked
 * for by plugins are not produced.
 *
 * @example
 * ```ts
 * import { parseCheckpoint } from "@ctxkit/compaction"
 * import { summaryRequest } from "@ctxkit/compaction/CheckpointInstructions"
 * import { formats, type Message } from "@ctxkit/core"
 * import { extractiveReply } from "@ctxkit/engine/Summarizer"
 *
 * const messages: ReadonlyArray<Message> = [
 *   { role: "user", content: "Fix the failing build. Never edit generated files." },
 *   { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{\"path\":\"src/build.ts\"}" }] },
 *   { role: "tool", toolCallId: "c1", content: "export const build = 1" }
 * ]
 * const request = summaryRequest(messages, { format: formats.canonical })
 * const parsed = parseCheckpoint(extractiveReply(request).text)
 * parsed.structured // true
 * parsed.checkpoint?.instructions // ["Never edit generated files."]
 * parsed.checkpoint?.relevantFiles // ["src/build.ts"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const extractiveReply = (request: SummaryRequest) => ({
  text: JSON.stringify({ checkpoint: extractCheckpoint(typeof request?.prompt === "string" ? request.prompt : "") }),
  finishReason: "stop" as const
})

const timeoutOf = (options: unknown): Effect.Effect<Duration.Duration> => {
  const fallback = Duration.fromInputUnsafe(DEFAULT_SUMMARIZER_TIMEOUT)
  const given = Predicate.isObject(options) && Predicate.hasProperty(options, "timeout") ? options.timeout : undefined
  if (given === undefined) return Effect.succeed(fallback)
  const decoded = Duration.fromInput(given as Duration.Input)
  if (Option.isSome(decoded) && Duration.toMillis(decoded.value) >= 0) return Effect.succeed(decoded.value)
  return Effect.as(
    Effect.logWarning(
      `Summarizer.layerLanguageModel: option timeout ${describeValue(given)} is not a duration >= 0; ` +
        `accepted: a Duration input such as "90 seconds" or a number of milliseconds; ` +
        `used the default, ${DEFAULT_SUMMARIZER_TIMEOUT}`
    ),
    fallback
  )
}

/**
 * The summarizer compaction calls — `@ctxkit/compaction`'s `Summarizer` service itself (the same key: `yield*` of
 * either import finds the same service, and `compact` uses what this module's layers provide), with its layers:
 *
 * - `Summarizer.layerExtractive`: offline and deterministic — a real checkpoint built from the transcript without
 *   a model (see {@link extractiveReply}), that compaction accepts as a structured checkpoint.
 * - `Summarizer.layerLanguageModel(options?)`: whichever `effect/ai` `LanguageModel` the layer is given. The
 *   request goes as a system message (the checkpoint instructions) and a user message, without tools; the reply's
 *   text, its finish reason (`content-filter` is a refusal, `length` a cut) and the prompt tokens the server
 *   reported become the `SummaryReply`. A failure becomes a `SummarizerError` naming the error's kind and HTTP
 *   status, never the provider's body; a call slower than `timeout` (default ten minutes) fails the same way. The
 *   output budget of the request cannot travel through `LanguageModel.generateText`: set the model's own maximum
 *   output tokens in its layer.
 *
 * @example
 * ```ts
 * import { compact } from "@ctxkit/compaction"
 * import { formats, type Message } from "@ctxkit/core"
 * import { Summarizer } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 *
 * const history: ReadonlyArray<Message> = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "Port the parser to Effect 4. Keep the public API unchanged. " + "Context. ".repeat(200) },
 *   { role: "assistant", content: "Reading src/parser.ts first." },
 *   { role: "user", content: "Go on." },
 *   { role: "assistant", content: "Done with the lexer." },
 *   { role: "user", content: "Now the tests." }
 * ]
 * const outcome = Effect.runSync(
 *   compact(history, { reason: "manual", format: formats.canonical, keepTurns: 1 }).pipe(Effect.provide(Summarizer.layerExtractive))
 * )
 * outcome._tag // "Compacted"
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class Summarizer extends CompactionSummarizer {
  /** Offline and deterministic: a checkpoint built from the transcript, without a model. */
  static readonly layerExtractive: Layer.Layer<CompactionSummarizer> = Layer.succeed(
    CompactionSummarizer,
    CompactionSummarizer.of({ summarize: (request) => Effect.sync(() => extractiveReply(request)) })
  )

  /** Any `effect/ai` `LanguageModel`, with a timeout per call. */
  static layerLanguageModel(
    options?: LanguageModelSummarizerOptions
  ): Layer.Layer<CompactionSummarizer, never, LanguageModel.LanguageModel> {
    return Layer.effect(
      CompactionSummarizer,
      Effect.gen(function*() {
        const model = yield* LanguageModel.LanguageModel
        const timeout = yield* timeoutOf(options)
        const summarize = Effect.fn("Summarizer.summarize")(function*(request: SummaryRequest) {
          const response = yield* model.generateText({
            prompt: [{ role: "system", content: request.system }, { role: "user", content: request.prompt }]
          }).pipe(
            Effect.mapError((error) => new SummarizerError({ message: describeFailure(error) })),
            Effect.catchDefect((defect) => Effect.fail(new SummarizerError({ message: describeFailure(defect) }))),
            Effect.timeoutOrElse({
              duration: timeout,
              orElse: () =>
                Effect.fail(
                  new SummarizerError({
                    message: `the summarizer model did not answer within ${Duration.format(timeout)}; ` +
                      `raise the timeout option of Summarizer.layerLanguageModel, or use a faster model`
                  })
                )
            })
          )
          return replyOf(response.text, response.finishReason, response.usage)
        })
        return CompactionSummarizer.of({ summarize })
      })
    )
  }
}
