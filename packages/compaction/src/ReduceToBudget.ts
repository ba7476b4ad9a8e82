/**
 * `reduceToBudget`: the post-compaction hard limit. When the retained transcript is still over its character
 * budget, the largest contents are clipped in place, in descending rounds of caps, until it fits — only
 * contents change, so the transcript stays valid and replayable.
 *
 * @since 0.1.0
 */
import { type FormatInput, formats, type MessageFormat } from "@ctxkit/core"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import { optionsFirst, valueFirst } from "./internal/dual.ts"
import { arrayChars, clipMessage, type Clippable, clippableOf, MARKER, messageChars } from "./internal/reduceSize.ts"

/**
 * The marker every budget cut ends with: `… [truncated by context budget]`, 31 UTF-16 code units, the first
 * one U+2026 (HORIZONTAL ELLIPSIS). A clipped text is its first C characters, a newline, then the marker.
 *
 * @example
 * ```ts
 * import { BUDGET_TRUNCATION_MARKER } from "@ctxkit/compaction"
 *
 * BUDGET_TRUNCATION_MARKER.length // 31
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const BUDGET_TRUNCATION_MARKER: string = MARKER

/**
 * The default caps on the text of a message's tool results, one per round, in characters.
 *
 * @example
 * ```ts
 * import { TOOL_RESULT_CAP_ROUNDS } from "@ctxkit/compaction/ReduceToBudget"
 *
 * TOOL_RESULT_CAP_ROUNDS // [8000, 4096, 2048, 1024, 512]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const TOOL_RESULT_CAP_ROUNDS: ReadonlyArray<number> = [8_000, 4_096, 2_048, 1_024, 512]

/**
 * The default caps on the own text of a user or assistant message, one per round, in characters.
 *
 * @example
 * ```ts
 * import { TEXT_CAP_ROUNDS } from "@ctxkit/compaction/ReduceToBudget"
 *
 * TEXT_CAP_ROUNDS // [16000, 8192, 4096, 2048, 1024]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const TEXT_CAP_ROUNDS: ReadonlyArray<number> = [16_000, 8_192, 4_096, 2_048, 1_024]

/**
 * Options of {@link reduceToBudget}.
 *
 * - `maxToolResultChars`: the first round's cap on tool result text (default 8,000); the smaller default caps
 *   follow it. `Infinity` leaves tool results alone until the default caps' rounds.
 * - `maxTextChars`: the first round's cap on user and assistant text (default 16,000); the smaller default
 *   caps follow it.
 * - `format` (default `formats.auto`): the lens your messages are read and rewritten with.
 *
 * A cap that is not a number ≥ 0 (NaN, negative) is ignored: the default rounds apply. Caps are floored.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReduceOptions<M> {
  readonly maxToolResultChars?: number | undefined
  readonly maxTextChars?: number | undefined
  readonly format?: MessageFormat<M> | undefined
}

/**
 * What {@link reduceToBudget} did: the messages to send (the input array itself when nothing was clipped),
 * how many distinct messages were clipped and where, and the serialized transcript size before and after.
 *
 * @example
 * ```ts
 * import { reduceToBudget } from "@ctxkit/compaction"
 * import type { Reduction } from "@ctxkit/compaction/ReduceToBudget"
 *
 * const reduction: Reduction<unknown> = reduceToBudget([{ role: "user", content: "hi" }], 4_000)
 * reduction.truncated // 0
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Reduction<M> {
  /** The reduced transcript: same length, roles, ids and order; clipped messages are new objects. */
  readonly messages: ReadonlyArray<M>
  /** The number of distinct messages clipped. */
  readonly truncated: number
  /** The indices of the clipped messages, ascending. */
  readonly clipped: ReadonlyArray<number>
  /** {@link transcriptChars} of the input. */
  readonly charsBefore: number
  /** {@link transcriptChars} of `messages`. */
  readonly chars: number
  /** `chars ≤ targetChars`. */
  readonly withinTarget: boolean
}

/**
 * The size of a serialized transcript: the length of `JSON.stringify(messages)`, computed per message (each
 * message's JSON length, plus the commas and brackets). A message `JSON.stringify` cannot serialize (a cycle, a
 * BigInt, a throwing `toJSON`) counts as its text (read with `format`, default `formats.auto`) plus 2. Never
 * throws.
 *
 * @example
 * ```ts
 * import { transcriptChars } from "@ctxkit/compaction/ReduceToBudget"
 *
 * const messages = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]
 * transcriptChars(messages) === JSON.stringify(messages).length // true
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const transcriptChars: {
  <M>(format?: MessageFormat<M>): (messages: ReadonlyArray<M>) => number
  <M>(messages: ReadonlyArray<M>, format?: MessageFormat<M>): number
} = dual(optionsFirst, <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M> = formats.auto as unknown as MessageFormat<M>
): number => {
  if (!Array.isArray(messages)) return 0
  let sum = 0
  for (let i = 0; i < messages.length; i++) sum += messageChars(messages[i], format)
  return arrayChars(messages.length, sum)
})

const capRounds = (custom: number | undefined, defaults: ReadonlyArray<number>): ReadonlyArray<number> => {
  if (typeof custom !== "number" || Number.isNaN(custom) || custom < 0) return defaults
  const first = Math.floor(custom)
  return [first, ...defaults.filter((cap) => cap < first)]
}

/**
 * Clips the largest contents of `messages` until their serialized size ({@link transcriptChars}) is at most
 * `targetChars` — the post-compaction hard limit, `target = max(4_000, maxContextChars − instructions)`.
 *
 * - Rounds of caps: tool results 8,000 → 4,096 → 2,048 → 1,024 → 512 characters, user and assistant text
 *   16,000 → 8,192 → 4,096 → 2,048 → 1,024 (a custom first cap is followed by the smaller defaults only).
 * - In each round, the message with the largest current serialized size among those whose ORIGINAL content is
 *   over the round's cap is clipped first (ties → the earliest), always from the original; the reduction stops
 *   as soon as the transcript fits.
 * - A user or assistant message's own text over cap C becomes its first C characters, a newline and
 *   {@link BUDGET_TRUNCATION_MARKER} (one fewer character when the C-th is the first half of a surrogate pair).
 *   A message carrying tool results (a tool message; an Anthropic user message with `tool_result` blocks too)
 *   has its results clipped instead: they keep their text, in order, while the total fits C; the first that does
 *   not fit is cut to the room left that way (the marker alone when there is no room), and every later result
 *   longer than the marker becomes the marker.
 * - Never clipped: checkpoints (`isSummary`), protected messages (the system prompt, pinned messages), other
 *   system messages, and what the lens cannot rewrite (structured server-tool results).
 * - Only contents change: roles, call ids, order and the number of messages stay identical. When nothing is
 *   clipped (already within target, or nothing clippable) the result holds the input array itself.
 *
 * A clip that saves nothing ends the round: the largest candidate is a text barely over the cap (the marker
 * would make it longer), or a message this round already clipped (clipping it again from the original gives the
 * same text). The next round's smaller caps go on from there. After the last round, when the transcript is still
 * over target, a final sweep at the smallest caps clips every message still over them that a clip would shrink,
 * largest first — so the walk really ends at the minimum caps, and the target is met whenever clipping
 * everything to the smallest caps can meet it (law L12).
 *
 * `targetChars` of `Infinity` is always met; zero or negative is never met (everything is clipped to the
 * smallest caps); NaN (or a non-number) clips nothing and reports `withinTarget: false`.
 *
 * With a `format`, the message type is the format's, so literal messages only need to be assignable to it.
 * Deterministic and pure. Cost: one `JSON.stringify` per message, then per round a scan and a sort of the
 * candidates (O(n log n)), the same once more for the final sweep, and one serialization per clip (its size is bounded by the cap plus the message's
 * other parts); the total is updated in O(1) per clip — no quadratic rescans, even for 10k messages.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { BUDGET_TRUNCATION_MARKER, reduceToBudget } from "@ctxkit/compaction"
 *
 * const messages = [
 *   { role: "user", content: "Grep the repo." },
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "match\n".repeat(10_000) }
 * ]
 * const reduced = reduceToBudget(messages, 12_000)
 * reduced.clipped // [2]
 * reduced.withinTarget // true
 * const content = (reduced.messages[2] as { content: string }).content
 * content.endsWith("\n" + BUDGET_TRUNCATION_MARKER) // true
 * content.length // 8032: the first 8,000 characters, a newline, the marker
 * reduceToBudget(messages, 100_000).messages === messages // true: already within target
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const reduceToBudget: {
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    targetChars: number,
    options: ReduceOptions<F> & { readonly format: MessageFormat<F> }
  ): Reduction<M>
  <M>(messages: ReadonlyArray<M>, targetChars: number, options?: ReduceOptions<NoInfer<M>>): Reduction<M>
  <M>(targetChars: number, options: ReduceOptions<M> & { readonly format: MessageFormat<M> }): (
    messages: ReadonlyArray<M>
  ) => Reduction<M>
  (targetChars: number, options?: ReduceOptions<unknown>): <M>(messages: ReadonlyArray<M>) => Reduction<M>
} = dual(valueFirst(Predicate.isNumber), <M>(
  messages: ReadonlyArray<M>,
  targetChars: number,
  given?: ReduceOptions<M>
): Reduction<M> => {
  // `null` or a non-object from untyped callers reads as "no options".
  const options: ReduceOptions<M> = typeof given === "object" && given !== null ? given : {}
  const format = options.format ?? (formats.auto as unknown as MessageFormat<M>)
  const list: ReadonlyArray<M> = Array.isArray(messages) ? messages : []
  const n = list.length
  const sizes = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) {
    sizes[i] = messageChars(list[i], format)
    sum += sizes[i]
  }
  const charsBefore = arrayChars(n, sum)
  const target = typeof targetChars === "number" ? targetChars : Number.NaN
  if (Number.isNaN(target) || charsBefore <= target) {
    return { messages, truncated: 0, clipped: [], charsBefore, chars: charsBefore, withinTarget: charsBefore <= target }
  }

  const kinds: Array<Clippable> = []
  const lengths = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const { kind, length } = clippableOf(list[i], format)
    kinds.push(kind)
    lengths[i] = length
  }
  const toolCaps = capRounds(options.maxToolResultChars, TOOL_RESULT_CAP_ROUNDS)
  const textCaps = capRounds(options.maxTextChars, TEXT_CAP_ROUNDS)
  const rounds = Math.max(toolCaps.length, textCaps.length)

  let working: Array<M> | undefined
  const clipped = new Uint8Array(n)
  let total = charsBefore
  // One pass at the given caps over the messages whose original content is over them, largest current size
  // first (ties → the earliest). `strict`: the spec's round, which ends at the first clip that saves nothing;
  // otherwise the final sweep, which skips such clips and goes on.
  const pass = (toolCap: number, textCap: number, strict: boolean): void => {
    const candidates: Array<number> = []
    for (let i = 0; i < n; i++) {
      const kind = kinds[i]
      if (kind === "results" ? lengths[i] > toolCap : kind === "text" && lengths[i] > textCap) candidates.push(i)
    }
    // Only a clipped message changes size, so the order at the start of the pass is the order of the unclipped
    // candidates at every step; the largest message clipped in this pass is tracked beside it.
    candidates.sort((a, b) => sizes[b] - sizes[a] || a - b)
    let topSize = -1
    let topIndex = -1
    for (const i of candidates) {
      if (total <= target) return
      // The largest current candidate is one this pass already clipped: clipping it again from the original at
      // the same cap gives the same text and saves nothing, which ends the round.
      if (strict && (topSize > sizes[i] || (topSize === sizes[i] && topIndex < i))) return
      const kind = kinds[i] ?? "none"
      const clip = clipMessage(list[i], kind, kind === "results" ? toolCap : textCap, format)
      const size = messageChars(clip, format)
      if (size >= sizes[i]) {
        if (strict) return
        continue
      }
      working ??= list.slice()
      working[i] = clip
      total += size - sizes[i]
      sizes[i] = size
      clipped[i] = 1
      if (size > topSize || (size === topSize && i < topIndex)) {
        topSize = size
        topIndex = i
      }
    }
  }
  let previous: readonly [number, number] | undefined
  for (let round = 0; round < rounds && total > target; round++) {
    const toolCap = toolCaps[Math.min(round, toolCaps.length - 1)] ?? Infinity
    const textCap = textCaps[Math.min(round, textCaps.length - 1)] ?? Infinity
    // A round with the caps of the one before would only make the same clips again.
    if (previous !== undefined && previous[0] === toolCap && previous[1] === textCap) continue
    previous = [toolCap, textCap]
    pass(toolCap, textCap, true)
  }
  // The walk ends at the smallest caps: a final sweep clips whatever a round left over them, so the target is
  // met whenever clipping everything to the smallest caps can meet it.
  if (total > target && previous !== undefined) pass(previous[0], previous[1], false)
  if (working === undefined) {
    return { messages, truncated: 0, clipped: [], charsBefore, chars: charsBefore, withinTarget: false }
  }
  const indices: Array<number> = []
  for (let i = 0; i < n; i++) if (clipped[i] === 1) indices.push(i)
  return {
    messages: working,
    truncated: indices.length,
    clipped: indices,
    charsBefore,
    chars: total,
    withinTarget: total <= target
  }
})
