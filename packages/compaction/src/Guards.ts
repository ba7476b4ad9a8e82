/**
 * The guards around a compaction: a truncated compaction request, a checkpoint that does not shrink the
 * context, a stalled compaction, and the retry ladder when the compaction request itself does not fit.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import { type TurnReading, turnStart } from "@ctxkit/core/CurrentRequest"
import { looksTruncated, OVERFLOW_MIN_GROWTH_COMPACT, type RequestSample } from "@ctxkit/overflow"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import { valueFirst } from "./internal/dual.ts"
import { charLimit, clipItem, ITEM_TRUNCATION_MARKER } from "./internal/serializeText.ts"

/**
 * Did the server drop part of the compaction request? {@link looksTruncated} with the compaction's minimum
 * growth (`OVERFLOW_MIN_GROWTH_COMPACT`, 50 tokens: the request only adds the order to summarize). `lastGood` is
 * the last request of the conversation that did not look truncated; `sent` is the compaction request (the
 * prompt tokens the server reported for it and its local estimate). When it returns `true`, fail the compaction
 * before touching anything: a summary of part of the conversation would replace all of it.
 *
 * The compaction request ctxkit builds holds only the span being replaced, so it is often smaller than the last
 * request of the conversation, and the growth rule cannot decide. Then the first-request rule applies: a
 * request estimated at `OVERFLOW_MIN_FIRST` (500) tokens or more that the server reports at under a tenth of
 * the estimate is a collapse. A plateau on such a request (the server keeping most of it) is not seen: set the
 * real window so the request is not truncated in the first place.
 *
 * @example
 * ```ts
 * import { compactionRequestTruncated } from "@ctxkit/compaction/Guards"
 *
 * const lastGood = { tokens: 3_700, estimate: 3_750 }
 * compactionRequestTruncated(lastGood, { tokens: 3_705, estimate: 3_820 }) // true: 70 tokens more, the server saw 5
 * compactionRequestTruncated(lastGood, { tokens: 3_705, estimate: 3_790 }) // false: 40 tokens more, undecided
 * compactionRequestTruncated(lastGood, { tokens: 63, estimate: 2_500 }) // true: a smaller request, collapsed
 * compactionRequestTruncated(lastGood, { tokens: 2_400, estimate: 2_500 }) // false: a smaller request, read whole
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const compactionRequestTruncated = (lastGood: RequestSample | undefined, sent: RequestSample): boolean =>
  looksTruncated(lastGood, sent, OVERFLOW_MIN_GROWTH_COMPACT) ||
  // A request no larger than the last good one (ctxkit sends only the span being replaced, each item clipped)
  // leaves the growth rule undecided; the first-request rule still catches a collapse.
  (lastGood !== undefined && looksTruncated(undefined, sent))

/**
 * The failure message of a truncated compaction request: what the server did, with its numbers, why the
 * summary cannot be used, that the conversation was left as it was, and how to fix it.
 *
 * @example
 * ```ts
 * import { truncatedRequestMessage } from "@ctxkit/compaction/Guards"
 *
 * truncatedRequestMessage({ tokens: 3_705, estimate: 3_820 }).startsWith(
 *   "The server dropped part of the compaction request (3705 prompt tokens reported for an estimated 3820)"
 * ) // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const truncatedRequestMessage = (sent: RequestSample): string =>
  `The server dropped part of the compaction request (${sent.tokens} prompt tokens reported for an estimated ` +
  `${sent.estimate}), so its summary would miss part of the conversation; the conversation was left as it was. ` +
  `Set the model's real context window so that requests are not cut on the server.`

/**
 * Does the checkpoint make the context smaller? `after < before`, sizes in the same unit (tokens or
 * characters). `NaN` on either side: `false`. A compaction that does not shrink the context is refused.
 *
 * @example
 * ```ts
 * import { checkpointShrinks } from "@ctxkit/compaction/Guards"
 *
 * checkpointShrinks(12_000, 3_000) // true
 * checkpointShrinks(1_200, 1_500) // false
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const checkpointShrinks = (before: number, after: number): boolean => after < before

/**
 * Smallest drop of the reported usage, as a fraction of the usage before, for a compaction not to count as
 * stalled: 5%.
 *
 * @example
 * ```ts
 * import { STALL_MIN_DROP } from "@ctxkit/compaction/Guards"
 *
 * STALL_MIN_DROP // 0.05
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const STALL_MIN_DROP = 0.05

const known = (n: number): boolean => Number.isFinite(n) && n > 0

/**
 * Did a compaction stall? The reported usage fell by under {@link STALL_MIN_DROP} (`after > before × 0.95`).
 * Unknown usage — 0, negative, `NaN` or infinite on either side — never decides: `false`.
 *
 * @example
 * ```ts
 * import { compactionStalled } from "@ctxkit/compaction/Guards"
 *
 * compactionStalled(100_000, 97_000) // true: 3% less
 * compactionStalled(100_000, 60_000) // false
 * compactionStalled(100_000, 0) // false: no usage reported
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const compactionStalled = (before: number, after: number): boolean =>
  known(before) && known(after) && after > before * (1 - STALL_MIN_DROP)

/**
 * The stall guard's state: the usage a stalled compaction left behind, when the last compaction stalled.
 *
 * @category models
 * @since 0.1.0
 */
export interface StallState {
  readonly stalledAt?: number | undefined
}

/**
 * Stops re-triggering automatic compaction after a stalled one. Without it, a context that compaction cannot
 * shrink (a huge kept turn, a large fixed prompt) is over the threshold again right after compacting, and
 * every request pays for another useless summarizer call.
 *
 * - `initial`: nothing stalled.
 * - `afterCompaction(state, before, after)`: with the usage reported before and after a compaction; a stalled
 *   compaction ({@link compactionStalled}) records `stalledAt: after`; one that is known not to have stalled clears
 *   the state; unknown usage (0, `NaN`) leaves the state as it was.
 * - `allowsAuto(state, used)`: automatic compaction may run — always when nothing stalled; after a stall only once
 *   the usage has grown by at least {@link STALL_MIN_DROP} past the stalled level (`used ≥ stalledAt × 1.05`).
 *   Unknown usage (`NaN`) does not allow it after a stall. Manual compaction is never blocked: do not ask the guard
 *   for it.
 *
 * @example
 * ```ts
 * import { StallGuard } from "@ctxkit/compaction/Guards"
 *
 * const state = StallGuard.afterCompaction(StallGuard.initial, 100_000, 97_000)
 * state.stalledAt // 97000
 * StallGuard.allowsAuto(state, 99_000) // false
 * StallGuard.allowsAuto(state, 101_850) // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const StallGuard: {
  readonly initial: StallState
  readonly afterCompaction: (state: StallState, before: number, after: number) => StallState
  readonly allowsAuto: (state: StallState, used: number) => boolean
} = {
  initial: {},
  afterCompaction: (state, before, after) => {
    if (!known(before) || !known(after)) return state
    return compactionStalled(before, after) ? { stalledAt: after } : {}
  },
  allowsAuto: (state, used) =>
    state.stalledAt === undefined || (Number.isFinite(used) && used >= state.stalledAt * (1 + STALL_MIN_DROP))
}

/**
 * One rung of the retry ladder when the compaction request itself does not fit: the `full` span, then
 * `reduced-tool-results`, then `last-user-turns`.
 *
 * @category models
 * @since 0.1.0
 */
export type CompactionAttemptStep = "full" | "reduced-tool-results" | "last-user-turns"

/**
 * The retry ladder's rungs, in order.
 *
 * @example
 * ```ts
 * import { COMPACTION_ATTEMPT_STEPS } from "@ctxkit/compaction/Guards"
 *
 * COMPACTION_ATTEMPT_STEPS // ["full", "reduced-tool-results", "last-user-turns"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const COMPACTION_ATTEMPT_STEPS: ReadonlyArray<CompactionAttemptStep> = [
  "full",
  "reduced-tool-results",
  "last-user-turns"
]

/**
 * Options of {@link compactionAttempt}.
 *
 * @category models
 * @since 0.1.0
 */
export interface AttemptOptions<M> {
  /** The wire format of the messages. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** Tool result texts are cut to this many UTF-16 code units (default 1,024; a number ≥ 0, floored). */
  readonly toolResultChars?: number | undefined
  /** How many user turns the last rung keeps (default 2; fewer than 1 means 1, fractions are floored). */
  readonly lastUserTurns?: number | undefined
}

const reduceToolResults = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  limit: number
): ReadonlyArray<M> => {
  let out: Array<M> | undefined
  messages.forEach((message, i) => {
    let next = message
    for (const result of format.toolResults(message)) {
      // Only a cut that saves something: head + marker must be shorter than the text.
      if (result.text.length <= limit + ITEM_TRUNCATION_MARKER.length) continue
      next = format.withResultText(next, result.callId, clipItem(result.text, limit))
    }
    if (next === message) return
    out ??= messages.slice()
    out[i] = next
  })
  return out ?? messages
}

/** For each message, the index of the last member of its tool-call group. */
const groupEnds = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): ReadonlyArray<number> => {
  const ends: Array<number> = Array.from({ length: messages.length }, () => 0)
  for (const group of toolGroups(messages, format).groups) {
    const end = group[group.length - 1] ?? 0
    for (const index of group) ends[index] = end
  }
  return ends
}

/**
 * The last rung's reading of a turn (core's `startsTurn`): every user message, a checkpoint and the invariants
 * block included — the rung keeps the last user messages as the summarizer will see them.
 */
const ATTEMPT_TURNS: TurnReading = { checkpoints: true, invariantsBlock: true }

/**
 * Where the last rung starts: the `turns`-th last user message (tool-result carriers are not user turns), moved to
 * a safe start when it falls inside a tool-call group — earlier, to the start of the groups it is inside, when
 * that still drops something; else later, past them; else the whole span.
 */
const lastTurnsStart = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  ends: ReadonlyArray<number>,
  turns: number
): number => {
  const wanted = turnStart(messages, format, ATTEMPT_TURNS, { turns })
  if (wanted <= 0) return 0
  // safe[s]: every group with a member before s ends before s, so slice(s) splits no group.
  const safe: Array<boolean> = Array.from({ length: messages.length + 1 }, () => false)
  let reach = -1
  for (let s = 0; s <= messages.length; s++) {
    safe[s] = reach < s
    if (s < messages.length) reach = Math.max(reach, ends[s] ?? s)
  }
  let earlier = wanted
  while (earlier > 0 && !safe[earlier]) earlier--
  if (earlier > 0) return earlier
  let later = wanted
  while (later < messages.length && !safe[later]) later++
  return later < messages.length ? later : 0
}

/**
 * The messages of one attempt at the compaction request, for the ladder used when the request itself does not
 * fit the summarizer's window:
 *
 * - `full`: `summarized` as is (the same array).
 * - `reduced-tool-results`: every tool result text longer than `toolResultChars` (default 1,024) plus the marker
 *   becomes its first `toolResultChars` code units and `… [truncated]` (`format.withResultText`; never splitting a
 *   surrogate pair). No message is removed; untouched messages are the same objects; the same array when nothing
 *   is cut.
 * - `last-user-turns`: only the messages from the `lastUserTurns`-th last user message (default 2; messages that
 *   only carry tool results are not user turns), with tool results reduced as above — each rung is at most as
 *   large as the one before. When that message is inside a tool-call group (a call before it is answered after
 *   it), the start moves earlier, to the nearest start that splits no group, or — when that would keep
 *   everything — later, past the group. The most recent earlier checkpoint (`format.isSummary`) is put first when it is not already in:
 *   it holds the session's goal. With fewer user turns than asked, the whole span.
 *
 * Every attempt is pair-closed when `summarized` is: no call without its results, no result without its call.
 * Pure and linear.
 *
 * @example
 * ```ts
 * import { compactionAttempt } from "@ctxkit/compaction/Guards"
 * import { formats, type Message } from "@ctxkit/core"
 *
 * const span: ReadonlyArray<Message> = [
 *   { role: "user", content: "Read the log." },
 *   { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] },
 *   { role: "tool", toolCallId: "c1", content: "x".repeat(5_000) },
 *   { role: "user", content: "Now fix it." }
 * ]
 * compactionAttempt(span, "full", { format: formats.canonical }) === span // true
 * formats.canonical.text(compactionAttempt(span, "reduced-tool-results", { format: formats.canonical })[2]!).length // 1037
 * compactionAttempt(span, "last-user-turns", { format: formats.canonical, lastUserTurns: 1 }) // [{ role: "user", content: "Now fix it." }]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const compactionAttempt: {
  <M>(step: CompactionAttemptStep, options?: AttemptOptions<M>): (summarized: ReadonlyArray<M>) => ReadonlyArray<M>
  <M>(summarized: ReadonlyArray<M>, step: CompactionAttemptStep, options?: AttemptOptions<NoInfer<M>>): ReadonlyArray<M>
} = dual(valueFirst(Predicate.isString), <M>(
  summarized: ReadonlyArray<M>,
  step: CompactionAttemptStep,
  options: AttemptOptions<NoInfer<M>> = {}
): ReadonlyArray<M> => {
  if (step !== "reduced-tool-results" && step !== "last-user-turns") return summarized
  const format = options.format ?? (formats.auto as MessageFormat<M>)
  const limit = charLimit(options.toolResultChars, 1_024)
  if (step === "reduced-tool-results") return reduceToolResults(summarized, format, limit)
  const requested = options.lastUserTurns
  const turns = typeof requested === "number" && !Number.isNaN(requested) ? Math.max(1, Math.floor(requested)) : 2
  const ends = groupEnds(summarized, format)
  const start = lastTurnsStart(summarized, format, ends, turns)
  const tail = start === 0 ? summarized : summarized.slice(start)
  let checkpoint: M | undefined
  for (let i = start - 1; i >= 0; i--) {
    if (!format.isSummary(summarized[i] as M)) continue
    // Only a checkpoint alone in its group: taking it out of its place must not split a group.
    const alone = ends[i] === i && ends.slice(0, i).every((end) => end !== i)
    if (alone) checkpoint = summarized[i] as M
    break
  }
  const reduced = reduceToolResults(tail, format, limit)
  return checkpoint === undefined ? reduced : [checkpoint, ...reduced]
})
