/**
 * Whether a summarizer's reply may replace the conversation: cut, refused, errored and empty replies.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS } from "./CheckpointInstructions.ts"
import type { SummaryReply } from "./Summarizer.ts"

/**
 * What to do with a summary cut by the output budget: `keep` its usable text (the default of Alisio's compaction
 * design; the checkpoint is marked partial, a degraded fallback) or `reject` it and leave the conversation as it
 * was (the local-harness overflow guide's choice).
 *
 * @category models
 * @since 0.1.0
 */
export type PartialSummaries = "keep" | "reject"

/**
 * A summary accepted to replace the summarized span: its text, trimmed, and whether it was cut by the output
 * budget (`partial`: it may omit what came late in the transcript).
 *
 * @category models
 * @since 0.1.0
 */
export interface AcceptedSummary {
  readonly text: string
  readonly partial: boolean
}

/**
 * A summarizer reply that must not replace the conversation, and why: `cut-empty` (cut by the output budget
 * before any usable text), `empty` (finished with no text), `cut` (cut, under the `reject` policy), `refused`
 * (the model declined) or `errored` (the provider reported an error mid-reply). `message` says what happened and
 * what to do; the conversation is left as it was.
 *
 * @example
 * ```ts
 * import { EMPTY_SUMMARY_MESSAGE, SummaryRejected } from "@ctxkit/compaction/SummaryReplyPolicy"
 *
 * new SummaryRejected({ message: EMPTY_SUMMARY_MESSAGE, kind: "empty" }).kind // "empty"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SummaryRejected extends Schema.TaggedError<SummaryRejected>()("SummaryRejected", {
  message: Schema.String,
  kind: Schema.Literals(["cut-empty", "empty", "cut", "refused", "errored"])
}) {}

/**
 * The message of a reply cut by the output budget before any usable text.
 *
 * @example
 * ```ts
 * import { CUT_EMPTY_MESSAGE } from "@ctxkit/compaction/SummaryReplyPolicy"
 *
 * CUT_EMPTY_MESSAGE.endsWith("raise compaction.maxOutputTokens") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CUT_EMPTY_MESSAGE =
  "Compaction summary was cut off before any usable text was produced; raise compaction.maxOutputTokens"

/**
 * The message of a reply that finished without any text.
 *
 * @example
 * ```ts
 * import { EMPTY_SUMMARY_MESSAGE } from "@ctxkit/compaction/SummaryReplyPolicy"
 *
 * EMPTY_SUMMARY_MESSAGE // "Summarizer returned an empty summary"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const EMPTY_SUMMARY_MESSAGE = "Summarizer returned an empty summary"

const outputLimit = (maxOutputTokens: number | undefined): number =>
  typeof maxOutputTokens === "number" && Number.isFinite(maxOutputTokens) && maxOutputTokens >= 1
    ? Math.floor(maxOutputTokens)
    : DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS

const cutMessage = (limit: number): string =>
  `The compaction summary is incomplete: the summarizer stopped with "length" at its output limit of ${limit} ` +
  `tokens, and a cut summary would lose constraints and pending work, so the conversation was left as it was. ` +
  `Raise compaction.maxOutputTokens (or use a model with a larger context window) so the whole summary fits.`

const refusedMessage = (limit: number): string =>
  `The summarizer declined to write the compaction summary (stop reason "refusal", output limit ${limit} tokens); ` +
  `a refusal is not a summary, so the conversation was left as it was. Try again, with a focus, or compact with ` +
  `another model.`

const erroredMessage = (limit: number): string =>
  `The summarizer reported an error before finishing the compaction summary (stop reason "error", output limit ` +
  `${limit} tokens), so the conversation was left as it was. Try the compaction again.`

const reject = (kind: SummaryRejected["kind"], message: string): Result.Result<never, SummaryRejected> =>
  Result.fail(new SummaryRejected({ kind, message }))

/**
 * Decides whether a summarizer reply may replace the summarized span, under a {@link PartialSummaries} policy
 * (default `keep`). In order:
 *
 * - `error`: rejected (`errored`) in both policies, whatever text came before the error.
 * - `refusal`: rejected (`refused`) in both policies — a refusal is not a summary, even when it has text (that
 *   text explains the refusal; stored as a checkpoint, it would replace the conversation with an apology).
 * - `length` with no usable text (blank): rejected (`cut-empty`, {@link CUT_EMPTY_MESSAGE}) in both policies.
 * - `length` with usable text: `keep` accepts it with `partial: true`; `reject` rejects it (`cut`) with a message
 *   naming the stop reason and the output limit (`maxOutputTokens`, default 16,000), saying the conversation was
 *   left as it was and to raise `compaction.maxOutputTokens` or the context window.
 * - `stop` or `other` with blank text: rejected (`empty`, {@link EMPTY_SUMMARY_MESSAGE}).
 * - Otherwise: accepted, `partial: false`.
 *
 * The accepted text is trimmed. Total: never throws.
 *
 * @example
 * ```ts
 * import { acceptSummaryReply } from "@ctxkit/compaction/SummaryReplyPolicy"
 * import * as Result from "effect/Result"
 *
 * const cut = { text: "{\"checkpoint\":{\"goal\":\"Fix the build\"", finishReason: "length" } as const
 * acceptSummaryReply(cut) // Result.succeed({ text: "{\"checkpoint\":{\"goal\":\"Fix the build\"", partial: true })
 * Result.isFailure(acceptSummaryReply(cut, { partialSummaries: "reject" })) // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const acceptSummaryReply = (
  reply: SummaryReply,
  options: {
    readonly partialSummaries?: PartialSummaries | undefined
    readonly maxOutputTokens?: number | undefined
  } = {}
): Result.Result<AcceptedSummary, SummaryRejected> => {
  const limit = outputLimit(options.maxOutputTokens)
  const text = typeof reply.text === "string" ? reply.text.trim() : ""
  switch (reply.finishReason) {
    case "error":
      return reject("errored", erroredMessage(limit))
    case "refusal":
      return reject("refused", refusedMessage(limit))
    case "length":
      if (text.length === 0) return reject("cut-empty", CUT_EMPTY_MESSAGE)
      if (options.partialSummaries === "reject") return reject("cut", cutMessage(limit))
      return Result.succeed({ text, partial: true })
    default:
      return text.length === 0 ? reject("empty", EMPTY_SUMMARY_MESSAGE) : Result.succeed({ text, partial: false })
  }
}
