/**
 * `ensureWithinBudget`: the post-compaction hard limit. A conversation (instructions + transcript, never the tool
 * catalog) over `maxContextChars` has its retained messages reduced in place; still over, one last-chance
 * compaction (reason `"budget"`, at most once per turn) and another reduction; still over, it fails with
 * `ContextBudgetExceeded`, whose message says exactly what automatic compaction did.
 *
 * @since 0.1.0
 */
import { CHARS_PER_TOKEN, DEFAULT_MAX_CONTEXT_CHARS } from "@ctxkit/budget/EffectiveBudget"
import type { CompactionFailed, ContextBudgetExceeded, FormatInput, MessageFormat } from "@ctxkit/core"
import { formats } from "@ctxkit/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import { budgetExceeded, type LastChanceOutcome } from "./BudgetExceeded.ts"
import type { CompactionOutcome } from "./Compact.ts"
import type { CompactionEvent } from "./Events.ts"
import { causeText, errorText } from "./internal/events.ts"
import { reduceToBudget } from "./ReduceToBudget.ts"

/**
 * The smallest transcript target of the reduction, in characters: 4,000.
 *
 * @example
 * ```ts
 * import { MIN_REDUCTION_TARGET_CHARS } from "@ctxkit/compaction/EnsureWithinBudget"
 *
 * MIN_REDUCTION_TARGET_CHARS // 4000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const MIN_REDUCTION_TARGET_CHARS = 4_000

/**
 * The reduction's target for the serialized transcript: `max(4_000, maxContextChars − instructionsChars)`.
 *
 * @example
 * ```ts
 * import { hardLimitTarget } from "@ctxkit/compaction/EnsureWithinBudget"
 *
 * hardLimitTarget(800_000, 12_000) // 788000
 * hardLimitTarget(10_000, 9_000) // 4000: the floor
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const hardLimitTarget = (maxContextChars: number, instructionsChars: number): number =>
  Math.max(MIN_REDUCTION_TARGET_CHARS, maxContextChars - instructionsChars)

/**
 * Options of {@link ensureWithinBudget}.
 *
 * @example
 * ```ts
 * import { compact } from "@ctxkit/compaction"
 * import { type BudgetOptions } from "@ctxkit/compaction/EnsureWithinBudget"
 * import { formats, type Message } from "@ctxkit/core"
 * import * as Effect from "effect/Effect"
 *
 * const options: BudgetOptions<Message> = {
 *   maxContextChars: 800_000,
 *   instructionsChars: 12_000,
 *   format: formats.canonical,
 *   compact: (history) =>
 *     compact(history, {
 *       reason: "budget",
 *       format: formats.canonical,
 *       summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"…\"}}", finishReason: "stop" })
 *     })
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface BudgetOptions<M> {
  /** The hard limit, in characters of instructions + transcript. Default 800,000; a value ≤ 0 or NaN means it. */
  readonly maxContextChars?: number | undefined
  /** Characters of the instructions (system prompt, project instructions) sent with the transcript. Default 0. */
  readonly instructionsChars?: number | undefined
  /** Whether automatic compaction may run (`compaction.auto`). Default true. */
  readonly auto?: boolean | undefined
  /** True when a last-chance compaction already ran this turn: it runs at most once per turn. Default false. */
  readonly lastChanceUsed?: boolean | undefined
  /**
   * The last-chance compaction, with reason `"budget"` (usually `compact(history, { reason: "budget", … })`).
   * Absent while `auto` is true: the last chance cannot run, and the failure says so.
   */
  readonly compact?: ((history: ReadonlyArray<M>) => Effect.Effect<CompactionOutcome<M>, CompactionFailed>) | undefined
  /** What the user can do, for the failure message. Default `DEFAULT_BUDGET_ADVICE`. */
  readonly advice?: string | undefined
  /** The wire format. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** First cap on tool result text of the reduction (default 8,000). */
  readonly maxToolResultChars?: number | undefined
  /** First cap on user and assistant text of the reduction (default 16,000). */
  readonly maxTextChars?: number | undefined
  /** Called with every `context_reduced` event, as it happens. */
  readonly emit?: ((event: CompactionEvent) => Effect.Effect<void>) | undefined
  /**
   * Called with the transcript each time it changes (after a reduction, after the compaction), before this
   * function returns or fails: store it, so the session keeps its reduction even when the request cannot be sent.
   */
  readonly persist?: ((messages: ReadonlyArray<M>) => Effect.Effect<void>) | undefined
}

/**
 * What {@link ensureWithinBudget} returns: the messages to send (the input array itself when it was already
 * within the limit), how many messages were clipped (over both reductions), whether the last-chance compaction
 * ran, the conversation's final size in characters, the events (its `context_reduced` events and the
 * compaction's own), and the compaction outcome when one ran (for the audit store).
 *
 * @category models
 * @since 0.1.0
 */
export interface WithinBudget<M> {
  /** The transcript to send. */
  readonly messages: ReadonlyArray<M>
  /** Messages clipped, over both reductions. */
  readonly reduced: number
  /** Whether the last-chance compaction ran (successfully or not). */
  readonly lastChance: boolean
  /** Instructions + transcript, in characters, at the end. */
  readonly chars: number
  /** The events, in order. */
  readonly events: ReadonlyArray<CompactionEvent>
  /** The last-chance compaction's outcome, when it ran without failing. */
  readonly compaction?: CompactionOutcome<M> | undefined
}

const positive = (value: number | undefined, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback

const nonNegative = (value: number | undefined): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0

/**
 * Keeps a conversation within the hard limit, or says why it cannot.
 *
 * The size is `instructionsChars + transcriptChars(messages)` (the tool catalog is never counted).
 * 1. Within `maxContextChars` (default 800,000): the input array itself, nothing emitted.
 * 2. Otherwise `reduceToBudget(messages, hardLimitTarget(maxContextChars, instructionsChars))`, and
 *    `context_reduced { messages, reason: "hard-limit", tokensSaved }` when it clipped something.
 * 3. Still over: when `auto` is true, `lastChanceUsed` is false and `compact` is given, the last-chance
 *    compaction runs on the reduced transcript, then the reduction again (`reason: "last-chance"`).
 * 4. Still over: fails with `ContextBudgetExceeded` — `Context budget exceeded (approximately N characters of
 *    conversation; limit L). <WHAT> <ADVICE>`, WHAT being: compaction disabled (`auto: false`); ran but not enough
 *    (it ran now, or already this turn); skipped, no safe boundary (the compaction found no plan); failed
 *    (`<error>`: the compaction's error, or its defect; also when no `compact` was given).
 *
 * `persist` sees every new transcript before the function returns or fails. Never mutates its input.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { ensureWithinBudget } from "@ctxkit/compaction"
 * import { formats, type Message } from "@ctxkit/core"
 * import * as Effect from "effect/Effect"
 *
 * const history: ReadonlyArray<Message> = [
 *   { role: "user", content: "Grep everything." },
 *   { role: "assistant", content: "", toolCalls: [{ id: "g", name: "grep", arguments: "{}" }] },
 *   { role: "tool", toolCallId: "g", content: "match\n".repeat(5_000) }
 * ]
 * const result = Effect.runSync(ensureWithinBudget(history, { maxContextChars: 12_000, format: formats.canonical }))
 * result.reduced // 1: the tool result was clipped
 * result.lastChance // false
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const ensureWithinBudget: {
  <M extends FormatInput<F>, F>(
    history: ReadonlyArray<M>,
    options:
      & Omit<BudgetOptions<F>, "compact" | "persist">
      & Pick<BudgetOptions<NoInfer<M>>, "compact" | "persist">
      & { readonly format: MessageFormat<F> }
  ): Effect.Effect<WithinBudget<M>, ContextBudgetExceeded>
  <M>(history: ReadonlyArray<M>, options?: BudgetOptions<NoInfer<M>>): Effect.Effect<
    WithinBudget<M>,
    ContextBudgetExceeded
  >
} = <M>(history: ReadonlyArray<M>, options: BudgetOptions<M> = {}): Effect.Effect<
  WithinBudget<M>,
  ContextBudgetExceeded
> =>
  Effect.gen(function*() {
    const given: BudgetOptions<M> = typeof options === "object" && options !== null ? options : {}
    const messages: ReadonlyArray<M> = Array.isArray(history) ? history : []
    const format = given.format ?? (formats.auto as unknown as MessageFormat<M>)
    const limit = positive(given.maxContextChars, DEFAULT_MAX_CONTEXT_CHARS)
    const instructions = nonNegative(given.instructionsChars)
    const target = hardLimitTarget(limit, instructions)
    const events: Array<CompactionEvent> = []
    const emit = given.emit
    const record = (event: CompactionEvent) =>
      Effect.suspend(() => {
        events.push(event)
        return typeof emit === "function" ? emit(event) : Effect.void
      })
    const persist = (next: ReadonlyArray<M>) => typeof given.persist === "function" ? given.persist(next) : Effect.void

    const reduce = Effect.fn("ensureWithinBudget.reduce")(function*(from: ReadonlyArray<M>, reason: string) {
      const reduction = reduceToBudget(from, target, {
        format,
        maxToolResultChars: given.maxToolResultChars,
        maxTextChars: given.maxTextChars
      })
      if (reduction.truncated > 0) {
        yield* record({
          type: "context_reduced",
          data: {
            messages: reduction.truncated,
            reason,
            tokensSaved: Math.max(0, Math.floor((reduction.charsBefore - reduction.chars) / CHARS_PER_TOKEN))
          }
        })
        yield* persist(reduction.messages)
      }
      return reduction
    })
    const exceeded = (chars: number, outcome: LastChanceOutcome) =>
      Effect.fail(budgetExceeded({ conversationChars: chars, limit, outcome, advice: given.advice }))

    // Within the limit, the transcript is within the target too: the reduction measures it (one serialization per
    // message), clips nothing and hands back the same array.
    const first = yield* reduce(messages, "hard-limit")
    let reduced = first.truncated
    let chars = instructions + first.chars
    if (chars <= limit) return { messages: first.messages, reduced, lastChance: false, chars, events }

    if (given.auto === false) return yield* exceeded(chars, { _tag: "Disabled" })
    if (given.lastChanceUsed === true) return yield* exceeded(chars, { _tag: "Ran" })
    const compactFn = given.compact
    if (typeof compactFn !== "function") {
      return yield* exceeded(chars, { _tag: "Failed", error: "no last-chance compaction was configured" })
    }

    const exit = yield* Effect.exit(Effect.suspend(() => compactFn(first.messages)))
    if (Exit.isFailure(exit)) {
      // An interruption is not a failed compaction: let it through.
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const error = Cause.findError(exit.cause)
      const text = Result.isSuccess(error) ? errorText(error.success.error) : causeText(exit.cause)
      return yield* exceeded(chars, { _tag: "Failed", error: text })
    }
    const outcome = exit.value
    for (const event of outcome.events) events.push(event)
    if (outcome._tag === "Skipped") return yield* exceeded(chars, { _tag: "NoBoundary" })

    yield* persist(outcome.messages)
    const second = yield* reduce(outcome.messages, "last-chance")
    reduced += second.truncated
    chars = instructions + second.chars
    if (chars > limit) return yield* exceeded(chars, { _tag: "Ran" })
    return { messages: second.messages, reduced, lastChance: true, chars, events, compaction: outcome }
  })
