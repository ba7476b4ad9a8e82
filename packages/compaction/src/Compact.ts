/**
 * `compact`: the whole compaction as one Effect — plan, plugin hooks, the summarizer call (with the retry ladder
 * when the request does not fit), the guards (truncated request, unusable reply, a checkpoint that does not
 * shrink the context), the checkpoint message and the new history, with an event at every step. The input
 * history is never touched: on failure the caller still has it as it was.
 *
 * @since 0.1.0
 */
import { type CostCache, type Counter, makeCostCache, type TokenCounter } from "@ctxkit/budget"
import { CompactionFailed, detectFormat, type FormatInput, formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import type { RequestSample } from "@ctxkit/overflow"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import { parseCheckpoint, type ParsedCheckpoint } from "./Checkpoint.ts"
import { summaryRequest } from "./CheckpointInstructions.ts"
import type { CompactionEvent, CompactionReason } from "./Events.ts"
import {
  COMPACTION_ATTEMPT_STEPS,
  compactionAttempt,
  type CompactionAttemptStep,
  compactionRequestTruncated,
  truncatedRequestMessage
} from "./Guards.ts"
import { counterOf, messagesTokens, requestTokens } from "./internal/compactCounting.ts"
import { causeText } from "./internal/events.ts"
import { hookTimeout } from "./internal/eventsHooks.ts"
import { applyCompaction, type CompactionPlan, type NoPlan, planCompaction } from "./PlanCompaction.ts"
import { type CompactionPlugin, runAfterCompact, runBeforeCompact } from "./PluginHooks.ts"
import { type SummarizeFn, Summarizer, type SummaryRequest } from "./Summarizer.ts"
import { summaryMessage } from "./SummaryMessage.ts"
import { acceptSummaryReply, type PartialSummaries } from "./SummaryReplyPolicy.ts"

/**
 * Options of {@link compact}. Only `reason` is required.
 *
 * @category models
 * @since 0.1.0
 */
export interface CompactOptions<M> {
  /** Why the compaction runs: `manual`, `auto` or `budget` (the last chance). */
  readonly reason: CompactionReason
  /** The summarizer. Absent: the {@link Summarizer} service is required. */
  readonly summarize?: SummarizeFn | undefined
  /** The wire format. Default `formats.auto` (the checkpoint is built in the format the history is in). */
  readonly format?: MessageFormat<M> | undefined
  /** Recent turns kept verbatim (default 2, 0–20). */
  readonly keepTurns?: number | undefined
  /** Messages a cut inside one long turn keeps after it (default 4). */
  readonly minKeepMessages?: number | undefined
  /** What the user asked the summary to focus on (`/compact <focus>`). */
  readonly focus?: string | undefined
  /** Output budget of the summarizer call, in tokens (default 16,000). */
  readonly maxOutputTokens?: number | undefined
  /** Limit of one transcript item sent to the summarizer, in characters (default 4,000). */
  readonly maxItemChars?: number | undefined
  /** A summary cut by the output budget: `keep` it, marked partial (default), or `reject` it. */
  readonly partialSummaries?: PartialSummaries | undefined
  /** Plugins whose hooks run around the summarizer call. */
  readonly plugins?: ReadonlyArray<CompactionPlugin> | undefined
  /**
   * How long each plugin hook may run, as a `Duration.Input` (`"2 seconds"`, `Duration.millis(500)`, or a number
   * of milliseconds). Default 5 seconds. A value that is not a duration ≥ 0 fails the compaction, naming it.
   */
  readonly hookTimeout?: Duration.Input | undefined
  /** Counter of the before/after estimates and of the request estimate. Default: approximate (≈ 4 chars/token). */
  readonly counter?: Counter | undefined
  /**
   * A cost cache kept across calls (`makeCostCache()` from `@ctxkit/budget`, one per session): messages already
   * counted are not counted again. Without one, each call uses its own, so every message is counted once.
   */
  readonly cache?: CostCache | undefined
  /**
   * The last request of this conversation that did not look truncated (server-reported prompt tokens and its
   * estimate, with the same counter). With it, a compaction request the server visibly cut is refused.
   */
  readonly lastGoodSample?: RequestSample | undefined
  /**
   * The summarizer's input budget, in estimated tokens. With it, the retry ladder sends the first attempt whose
   * request fits: the full span, then with tool results reduced, then only the last user turns.
   */
  readonly maxInputTokens?: number | undefined
  /** Called with every event, in order, as it happens. */
  readonly emit?: ((event: CompactionEvent) => Effect.Effect<void>) | undefined
}

/**
 * A compaction that replaced the older part of the history with a checkpoint.
 *
 * @example
 * ```ts
 * import type { Compacted } from "@ctxkit/compaction/Compact"
 *
 * const describe = (outcome: Compacted<unknown>) =>
 *   `${outcome.replaced.length} messages → 1 checkpoint (${outcome.before} → ${outcome.after} tokens)`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Compacted<M> {
  readonly _tag: "Compacted"
  /** The new history to send and store: retained messages, the checkpoint, the kept messages. */
  readonly messages: ReadonlyArray<M>
  /** The checkpoint message. */
  readonly checkpoint: M
  /** The messages the checkpoint replaced (to keep, marked compacted, for audit). */
  readonly replaced: ReadonlyArray<M>
  /** Where the history was cut. */
  readonly plan: CompactionPlan<M>
  /** The parsed summarizer reply. */
  readonly parsed: ParsedCheckpoint
  /** True when the summary was cut by the output budget and kept. */
  readonly partial: boolean
  /** Which attempt of the retry ladder was sent. */
  readonly attempt: CompactionAttemptStep
  /** The request sent to the summarizer. */
  readonly request: SummaryRequest
  /** Every event, in order. */
  readonly events: ReadonlyArray<CompactionEvent>
  /** Estimated tokens of the history before. */
  readonly before: number
  /** Estimated tokens of the new history. */
  readonly after: number
}

/**
 * A compaction that had nothing safe or worth summarizing: the history is unchanged.
 *
 * @example
 * ```ts
 * import type { CompactionSkippedOutcome } from "@ctxkit/compaction/Compact"
 *
 * const why = (outcome: CompactionSkippedOutcome) => outcome.noPlan.reason // "open-call" | "nothing-to-summarize"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface CompactionSkippedOutcome {
  readonly _tag: "Skipped"
  /** Why the compaction was asked for. */
  readonly reason: CompactionReason
  /** Why nothing was compacted, in words. */
  readonly detail: string
  /** The planner's answer. */
  readonly noPlan: NoPlan
  /** Every event, in order. */
  readonly events: ReadonlyArray<CompactionEvent>
  /** Estimated tokens of the history. */
  readonly before: number
}

/**
 * What {@link compact} returns when it does not fail: {@link Compacted} or {@link CompactionSkippedOutcome}.
 *
 * @example
 * ```ts
 * import type { CompactionOutcome } from "@ctxkit/compaction"
 *
 * const next = <M>(history: ReadonlyArray<M>, outcome: CompactionOutcome<M>) =>
 *   outcome._tag === "Compacted" ? outcome.messages : history
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type CompactionOutcome<M> = Compacted<M> | CompactionSkippedOutcome

/**
 * The failure of a checkpoint that would not make the context smaller.
 *
 * @example
 * ```ts
 * import { checkpointTooLargeMessage } from "@ctxkit/compaction/Compact"
 *
 * checkpointTooLargeMessage(900, 950).startsWith("The checkpoint would not make the context smaller") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const checkpointTooLargeMessage = (before: number, after: number): string =>
  `The checkpoint would not make the context smaller (about ${before} tokens before, ${after} after), so the ` +
  `conversation was left as it was. Compact later, when there is more history to summarize, or keep fewer turns.`

/**
 * The failure of a compaction request that does not fit the summarizer's input budget even on the last rung of
 * the retry ladder.
 *
 * @example
 * ```ts
 * import { requestTooLargeMessage } from "@ctxkit/compaction/Compact"
 *
 * requestTooLargeMessage(9_000, 8_000).startsWith("The compaction request does not fit") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const requestTooLargeMessage = (estimate: number, limit: number): string =>
  `The compaction request does not fit the summarizer's input budget even with tool results reduced and only ` +
  `the last user turns (about ${estimate} tokens; limit ${limit}), so the conversation was left as it was. ` +
  `Compact with a summarizer model that has a larger context window.`

const REASONS: ReadonlySet<string> = new Set(["manual", "auto", "budget"])

/** Everything the run needs, read once from the options. */
interface Settings<M> {
  readonly reason: CompactionReason
  readonly format: MessageFormat<M>
  readonly counter: TokenCounter
  readonly emit: (event: CompactionEvent) => Effect.Effect<void>
}

const run = <M>(
  history: ReadonlyArray<M>,
  options: CompactOptions<M>,
  summarize: SummarizeFn
): Effect.Effect<CompactionOutcome<M>, CompactionFailed> =>
  Effect.gen(function*() {
    const given: CompactOptions<M> = typeof options === "object" && options !== null ? options : { reason: "manual" }
    const messages: ReadonlyArray<M> = Array.isArray(history) ? history : []
    const emitOption = given.emit
    const settings: Settings<M> = {
      reason: REASONS.has(given.reason) ? given.reason : "manual",
      format: given.format ?? (formats.auto as unknown as MessageFormat<M>),
      counter: counterOf(given.counter),
      emit: typeof emitOption === "function" ? emitOption : () => Effect.void
    }
    const { counter, format, reason } = settings
    const events: Array<CompactionEvent> = []
    const record = (event: CompactionEvent) =>
      Effect.suspend(() => {
        events.push(event)
        return settings.emit(event)
      })
    const fail = (error: string) =>
      record({ type: "compaction_failed", data: { reason, error } }).pipe(
        Effect.andThen(Effect.fail(new CompactionFailed({ reason, error })))
      )

    // One cache for the whole call: the kept messages and the checkpoint are counted once for all the estimates.
    const cache = given.cache ?? makeCostCache()
    const before = messagesTokens(messages, format, counter, cache)
    yield* record({ type: "compaction_started", data: { reason, before, messages: messages.length } })
    if (!REASONS.has(given.reason)) {
      return yield* fail(`options.reason must be "manual", "auto" or "budget" (got ${describeValue(given.reason)})`)
    }

    const plan = planCompaction(messages, {
      format,
      ...(given.keepTurns === undefined ? {} : { keepTurns: given.keepTurns }),
      ...(given.minKeepMessages === undefined ? {} : { minKeepMessages: given.minKeepMessages })
    })
    // An Effect operation fails on an option it cannot use rather than planning with the default.
    const [refused] = plan.diagnostics
    if (refused !== undefined) {
      return yield* fail(
        `${refused.option} must be ${refused.accepted} (got ${refused.given}): pass one, or leave it unset for ${refused.used}.`
      )
    }
    if (plan._tag === "NoPlan") {
      yield* record({ type: "compaction_skipped", data: { reason, before, detail: plan.detail } })
      const skipped: CompactionSkippedOutcome = {
        _tag: "Skipped",
        reason,
        detail: plan.detail,
        noPlan: plan,
        events,
        before
      }
      return skipped
    }

    // The span the checkpoint replaces: the summarized part without the retained (protected) messages.
    const retained = new Set(plan.retained)
    const replaced = plan.summarized.filter((_, i) => !retained.has(i))

    const timeout = hookTimeout(given.hookTimeout)
    if (timeout === undefined) {
      return yield* fail(
        `options.hookTimeout must be a duration of 0 or more, such as "2 seconds" or a number of milliseconds (got ${
          describeValue(given.hookTimeout)
        }): pass one, or leave it unset for 5 seconds`
      )
    }
    const hookOptions = { timeout }
    const hooksBefore = yield* runBeforeCompact(given.plugins, { reason, messages: messages.length }, hookOptions)
    for (const event of hooksBefore.events) yield* record(event)

    // The retry ladder: the first attempt whose request fits the input budget (without one, the full span).
    const limit = typeof given.maxInputTokens === "number" && Number.isFinite(given.maxInputTokens) &&
        given.maxInputTokens > 0
      ? given.maxInputTokens
      : undefined
    const requestOf = (span: ReadonlyArray<M>): SummaryRequest =>
      summaryRequest(span, {
        format,
        focus: given.focus,
        instructions: hooksBefore.instructions,
        fields: hooksBefore.fields,
        maxOutputTokens: given.maxOutputTokens,
        maxItemChars: given.maxItemChars
      })
    let chosen:
      | { readonly step: CompactionAttemptStep; readonly request: SummaryRequest; readonly estimate: number }
      | undefined
    let smallest = Number.POSITIVE_INFINITY
    for (const step of COMPACTION_ATTEMPT_STEPS) {
      const request = requestOf(compactionAttempt(replaced, step, { format }))
      const estimate = requestTokens(request, counter)
      if (limit === undefined || estimate <= limit) {
        chosen = { step, request, estimate }
        break
      }
      smallest = Math.min(smallest, estimate)
    }
    if (chosen === undefined) return yield* fail(requestTooLargeMessage(smallest, limit ?? 0))
    const { estimate, request, step } = chosen

    const called = yield* Effect.exit(Effect.suspend(() => summarize(request)))
    if (Exit.isFailure(called)) {
      // An interruption is not a failed compaction: let it through.
      if (Cause.hasInterruptsOnly(called.cause)) return yield* Effect.interrupt
      return yield* fail(causeText(called.cause))
    }
    const reply = called.value

    // The server may have dropped part of the request: its summary would replace what it never saw.
    const reported = typeof reply.promptTokens === "number" && Number.isFinite(reply.promptTokens)
      ? reply.promptTokens
      : 0
    const sent: RequestSample = { tokens: reported, estimate }
    if (compactionRequestTruncated(given.lastGoodSample, sent)) return yield* fail(truncatedRequestMessage(sent))

    const accepted = acceptSummaryReply(reply, {
      partialSummaries: given.partialSummaries,
      maxOutputTokens: request.maxOutputTokens
    })
    if (Result.isFailure(accepted)) return yield* fail(accepted.failure.message)
    const { partial, text } = accepted.success

    const parsed = parseCheckpoint(text, Object.keys(hooksBefore.fields))
    const hooksAfter = yield* runAfterCompact(
      given.plugins,
      { reason, checkpoint: parsed, granted: hooksBefore.granted },
      hookOptions
    )
    for (const event of hooksAfter.events) yield* record(event)

    // Under `formats.auto` the checkpoint takes the shape of the history's own format.
    const noteFormat = format.name === "auto" ? (detectFormat(messages) as MessageFormat<M>) : format
    const checkpoint = summaryMessage(parsed.text, replaced.length, {
      format: noteFormat,
      injectContext: hooksAfter.injectContext
    })
    const next = applyCompaction(plan, checkpoint)
    const after = messagesTokens(next, format, counter, cache)
    if (!(after < before)) return yield* fail(checkpointTooLargeMessage(before, after))

    yield* record({
      type: "compaction_completed",
      data: {
        reason,
        before,
        after,
        replaced: replaced.length,
        structured: parsed.structured,
        summarizedTokens: messagesTokens(replaced, format, counter, cache),
        checkpointTokens: messagesTokens([checkpoint], format, counter, cache),
        plugins: hooksAfter.reports,
        ...(partial ? { partial: true } : {}),
        ...(step === "full" ? {} : { attempt: step })
      }
    })
    const compacted: Compacted<M> = {
      _tag: "Compacted",
      messages: next,
      checkpoint,
      replaced,
      plan,
      parsed,
      partial,
      attempt: step,
      request,
      events,
      before,
      after
    }
    return compacted
  })

/**
 * Compacts a history: the older part becomes one checkpoint message, the recent turns stay word for word.
 *
 * In order, with an event at every step (`emit`, and `events` in the outcome):
 * 1. `compaction_started { reason, before, messages }`.
 * 2. `planCompaction`: no plan (a call still open, nothing worth summarizing) → `compaction_skipped` and a
 *    `Skipped` outcome; invalid `keepTurns`/`minKeepMessages` → failure.
 * 3. Plugins' `beforeCompact` hooks (instructions and extra output fields; failures → `plugin_hook_failed`).
 * 4. The summarizer request for the replaced span (the summarized part without retained protected messages),
 *    with the plugins' instructions and fields, the focus and the output budget. With `maxInputTokens`, the retry
 *    ladder picks the first attempt that fits: `full`, `reduced-tool-results`, `last-user-turns`; none → failure.
 * 5. The summarizer call (`summarize`, or the {@link Summarizer} service); its error or defect → failure.
 * 6. The truncated-request guard (with `lastGoodSample`): the server reported too few prompt tokens → failure,
 *    before anything else.
 * 7. `acceptSummaryReply` (cut, refused, errored, empty replies; `partialSummaries`) → failure when rejected.
 * 8. `parseCheckpoint` with the plugins' field names; plugins' `afterCompact` hooks, each with its own fields.
 * 9. The checkpoint message (`summaryMessage`, with the plugins' `injectContext` after the body) and the new
 *    history (`applyCompaction`: retained messages, checkpoint, kept messages).
 * 10. The shrink guard: a new history not smaller than the old (estimated tokens) → failure.
 * 11. `compaction_completed { reason, before, after, replaced, structured, summarizedTokens, checkpointTokens,
 *     plugins, partial? }` — `partial: true` only when a cut summary was kept.
 *
 * Every failure emits `compaction_failed { reason, error }` and fails with `CompactionFailed({ reason, error })`.
 * With a `format`, the message type is the format's (literal messages only need to be assignable to it); with
 * `summarize`, no service is required. The input history is never mutated; on failure nothing was replaced.
 * Opaque continuation items (OpenAI Responses encrypted reasoning) of the replaced span go with it; kept
 * messages keep theirs.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { compact } from "@ctxkit/compaction"
 * import { formats, type Message } from "@ctxkit/core"
 * import * as Effect from "effect/Effect"
 *
 * const history: ReadonlyArray<Message> = [
 *   { role: "user", content: "Fix the build." },
 *   { role: "assistant", content: "Building.", toolCalls: [{ id: "c1", name: "build", arguments: "{}" }] },
 *   { role: "tool", toolCallId: "c1", content: "error TS2307: Cannot find module './b'\n".repeat(100) },
 *   { role: "assistant", content: "Fixed the import in src/a.ts." },
 *   { role: "user", content: "Ship it." }
 * ]
 * const outcome = Effect.runSync(compact(history, {
 *   reason: "manual",
 *   format: formats.canonical,
 *   keepTurns: 1,
 *   summarize: () =>
 *     Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"Ship the fix\",\"accomplished\":[\"build fixed\",\"tests pass\"]}}", finishReason: "stop" })
 * }))
 * if (outcome._tag === "Compacted") {
 *   outcome.messages.length // 2: the checkpoint and "Ship it."
 *   outcome.replaced.length // 4
 * }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const compact: {
  <M extends FormatInput<F>, F>(
    history: ReadonlyArray<M>,
    options: CompactOptions<F> & { readonly format: MessageFormat<F>; readonly summarize: SummarizeFn }
  ): Effect.Effect<CompactionOutcome<M>, CompactionFailed>
  <M>(
    history: ReadonlyArray<M>,
    options: CompactOptions<NoInfer<M>> & { readonly summarize: SummarizeFn }
  ): Effect.Effect<CompactionOutcome<M>, CompactionFailed>
  <M extends FormatInput<F>, F>(
    history: ReadonlyArray<M>,
    options: CompactOptions<F> & { readonly format: MessageFormat<F> }
  ): Effect.Effect<CompactionOutcome<M>, CompactionFailed, Summarizer>
  <M>(
    history: ReadonlyArray<M>,
    options: CompactOptions<NoInfer<M>>
  ): Effect.Effect<CompactionOutcome<M>, CompactionFailed, Summarizer>
} = (<M>(
  history: ReadonlyArray<M>,
  options: CompactOptions<M>
): Effect.Effect<CompactionOutcome<M>, CompactionFailed, Summarizer> => {
  const summarize = typeof options === "object" && options !== null ? options.summarize : undefined
  return typeof summarize === "function"
    ? run(history, options, summarize)
    : Effect.gen(function*() {
      const service = yield* Summarizer
      return yield* run(history, options, service.summarize)
    })
  // One implementation for every signature: with `summarize` the service is never asked for, so the
  // requirement-free signatures hold; TypeScript cannot see that through the runtime branch.
}) as unknown as typeof compact
