/**
 * The second step: when the context passes `clearAt × available`, the content of the oldest tool results becomes a
 * short note. The call stays; the content does not. The most recent results are never cleared, and all the old
 * ones are cleared at once, so the prompt cache breaks once rather than on every turn.
 *
 * @since 0.1.0
 */
import type { Counter } from "@ctxkit/budget"
import { type FormatInput, formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings, setting } from "@ctxkit/core/Settings"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { type ClearDiagnostic, ClearOptionAdjusted, ClearOptionInvalid } from "./Diagnostics.ts"
import { Tally } from "./internal/capCounting.ts"
import { optionsFirst } from "./internal/dual.ts"

export { type ClearDiagnostic, ClearOptionAdjusted, ClearOptionInvalid } from "./Diagnostics.ts"

/**
 * The text that replaces a cleared tool result, exactly as the local-harness overflow guide writes it.
 *
 * @example
 * ```ts
 * import { CLEARED_NOTE } from "@ctxkit/compaction"
 *
 * CLEARED_NOTE // "[Old tool result cleared to save context. Run the tool again if you need this output.]"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CLEARED_NOTE = "[Old tool result cleared to save context. Run the tool again if you need this output.]"

/**
 * Options of {@link clearOldToolResults}.
 *
 * - `keepToolResults` (default 6): how many of the most recent clearable results stay whole.
 * - `clearAtLeast` (tokens, default 0): when clearing would free fewer tokens than this, nothing is cleared — a
 *   cache break that frees too little is not worth it.
 * - `excludeTools`: names of tools whose results are never cleared (and not counted among the most recent).
 * - `format` (default `formats.auto`) and `counter` (a `TokenCounter` or `(text) => number`; default
 *   `approximateCounter`) for the freed-token figures.
 *
 * A value that cannot be used is replaced by the default (for `excludeTools`, by the tool names it holds) and
 * reported with a {@link ClearOptionAdjusted}; clearing still runs.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClearOptions<M> {
  readonly keepToolResults?: number | undefined
  readonly clearAtLeast?: number | undefined
  readonly excludeTools?: ReadonlyArray<string> | undefined
  readonly format?: MessageFormat<M> | undefined
  readonly counter?: Counter | undefined
}

/**
 * One cleared tool result: the message carrying it, the call it answers, the tool's name when known, and the
 * tokens clearing it freed (its text's tokens minus the note's).
 *
 * @category models
 * @since 0.1.0
 */
export interface ClearedToolResult {
  readonly index: number
  readonly callId: string
  readonly tool?: string | undefined
  readonly tokens: number
}

/**
 * What {@link clearOldToolResults} did: the messages (the same array when nothing was cleared), the results
 * cleared, how many, the tokens freed, and, when nothing was cleared, why:
 *
 * - `nothing-to-clear`: every old result is already cleared, protected, excluded, or too small to free anything;
 * - `below-clear-at-least`: clearing would free only `wouldFree` tokens, fewer than `clearAtLeast`;
 * - `invalid-options`: the options are not an options object (see `diagnostics`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ClearResult<M> {
  readonly messages: ReadonlyArray<M>
  readonly cleared: ReadonlyArray<ClearedToolResult>
  readonly count: number
  readonly freedTokens: number
  readonly skipped?: "nothing-to-clear" | "below-clear-at-least" | "invalid-options" | undefined
  /** With `below-clear-at-least`: the tokens clearing would have freed. */
  readonly wouldFree?: number | undefined
  readonly diagnostics: ReadonlyArray<ClearDiagnostic>
}

// A list that is not one of names keeps the names it holds: dropping them would clear what was meant to stay.
const toolNames = (given: unknown): ReadonlyArray<string> =>
  Predicate.isString(given) ? [given] : Array.isArray(given) ? given.filter(Predicate.isString) : []

const fields = {
  keepToolResults: setting(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), {
    accepted: "a whole number of tool results, 0 or more",
    default: 6
  }),
  clearAtLeast: setting(Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)), {
    accepted: "a number of tokens, 0 or more",
    default: 0
  }),
  excludeTools: setting(Schema.Array(Schema.String), {
    accepted: "an array of tool names",
    default: [],
    repair: toolNames
  })
}

const shown = (value: unknown): string => Array.isArray(value) ? JSON.stringify(value) : describeValue(value)

interface Candidate {
  readonly index: number
  readonly callId: string
  readonly tool: string | undefined
  readonly text: string
}

const keyOf = (index: number, callId: string): string => `${index}\u0000${callId}`

/**
 * Clears old tool results: every tool result except the `keepToolResults` most recent ones (default 6) has its
 * text replaced by {@link CLEARED_NOTE} through the format's `withResultText`, all in one call. Counting is per
 * result, not per message: an Anthropic user message answering several calls holds several results.
 *
 * - Never cleared, and not counted among the most recent: results in protected messages (pinned), and results of
 *   tools named in `excludeTools` (the name the result records, else the name of the call it answers). So the
 *   `keepToolResults` most recent clearable results always stay whole, whatever is excluded.
 * - Counted among the most recent but left as they are: results already cleared (their text is the note), and
 *   results whose text costs no more tokens than the note (clearing them would free nothing).
 * - `freedTokens` is the sum, over cleared results, of the tokens of their text minus those of the note, with the
 *   counter given; when it is below `clearAtLeast`, nothing is cleared (`skipped: "below-clear-at-least"`).
 *
 * Only result contents change: the calls stay, and roles, ids, order and the number of messages are identical;
 * untouched messages are the same objects, and when nothing is cleared the same array comes back. Pure: the input
 * is never mutated, and a second call changes nothing. Linear: each result is read once and only the ones to
 * clear are counted.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { CLEARED_NOTE, clearOldToolResults } from "@ctxkit/compaction"
 * import { formats } from "@ctxkit/core"
 *
 * const call = (id: string) => ({
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: "{}" } }]
 * })
 * const messages = [
 *   call("c1"), { role: "tool", tool_call_id: "c1", content: "old file contents ".repeat(100) },
 *   call("c2"), { role: "tool", tool_call_id: "c2", content: "new file contents ".repeat(100) }
 * ]
 * const result = clearOldToolResults(messages, { keepToolResults: 1, format: formats.openaiChat })
 * result.count // 1
 * result.freedTokens // 428: 450 tokens of text, 22 of the note
 * result.cleared // [{ index: 1, callId: "c1", tool: "read_file", tokens: 428 }]
 * result.messages[1] // { role: "tool", tool_call_id: "c1", content: CLEARED_NOTE }
 * result.messages[3] === messages[3] // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const clearOldToolResults: {
  <M>(options: ClearOptions<M> & { readonly format: MessageFormat<M> }): (messages: ReadonlyArray<M>) => ClearResult<M>
  (options?: ClearOptions<unknown>): <M>(messages: ReadonlyArray<M>) => ClearResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    options: ClearOptions<F> & { readonly format: MessageFormat<F> }
  ): ClearResult<M>
  <M>(messages: ReadonlyArray<M>, options?: ClearOptions<NoInfer<M>>): ClearResult<M>
} = dual(optionsFirst, <M>(messages: ReadonlyArray<M>, options?: ClearOptions<M>): ClearResult<M> => {
  if (options !== undefined && !Predicate.isObject(options as unknown)) {
    const refused = new ClearOptionInvalid({ option: "options", given: describeValue(options) })
    return { messages, cleared: [], count: 0, freedTokens: 0, skipped: "invalid-options", diagnostics: [refused] }
  }
  const read = readSettings(fields, options)
  const settings = {
    keep: read.settings.keepToolResults,
    clearAtLeast: read.settings.clearAtLeast,
    exclude: new Set(read.settings.excludeTools)
  }
  const adjusted = read.adjusted.map((a) =>
    new ClearOptionAdjusted({
      option: a.option,
      given: describeValue(a.given),
      accepted: a.accepted,
      used: shown(a.used)
    })
  )
  const format = options?.format ?? (formats.auto as MessageFormat<M>)
  // One pass for the call names (a result may not record its tool's name), one for the results.
  const callNames = new Map<string, string>()
  for (const message of messages) {
    for (const call of format.toolCalls(message)) if (!callNames.has(call.id)) callNames.set(call.id, call.name)
  }
  const candidates: Array<Candidate> = []
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as M
    const results = format.toolResults(message)
    if (results.length === 0 || format.isProtected(message)) continue
    for (const result of results) {
      const tool = result.name ?? callNames.get(result.callId)
      if (tool !== undefined && settings.exclude.has(tool)) continue
      candidates.push({ index, callId: result.callId, tool, text: result.text })
    }
  }
  const old = Math.max(0, candidates.length - settings.keep)
  // A call id repeated inside one message (a reused id) cannot be cleared apart from its twin: keep both.
  const kept = new Set<string>()
  for (let i = old; i < candidates.length; i++) {
    const c = candidates[i] as Candidate
    kept.add(keyOf(c.index, c.callId))
  }
  const tally = new Tally(options?.counter)
  const noteTokens = tally.count(CLEARED_NOTE)
  const planned: Array<ClearedToolResult> = []
  const planning = new Set<string>()
  for (let i = 0; i < old; i++) {
    const c = candidates[i] as Candidate
    const key = keyOf(c.index, c.callId)
    if (c.text === CLEARED_NOTE || kept.has(key) || planning.has(key)) continue
    const tokens = tally.count(c.text) - noteTokens
    if (tokens <= 0) continue
    planning.add(key)
    planned.push({ index: c.index, callId: c.callId, ...(c.tool === undefined ? {} : { tool: c.tool }), tokens })
  }
  const diagnostics: ReadonlyArray<ClearDiagnostic> = [...adjusted, ...tally.diagnostics()]
  if (planned.length === 0) {
    return { messages, cleared: [], count: 0, freedTokens: 0, skipped: "nothing-to-clear", diagnostics }
  }
  let wouldFree = 0
  for (const p of planned) wouldFree += p.tokens
  if (wouldFree < settings.clearAtLeast) {
    return {
      messages,
      cleared: [],
      count: 0,
      freedTokens: 0,
      skipped: "below-clear-at-least",
      wouldFree,
      diagnostics
    }
  }
  const out = messages.slice()
  const cleared: Array<ClearedToolResult> = []
  let freedTokens = 0
  for (const p of planned) {
    const current = out[p.index] as M
    const next = format.withResultText(current, p.callId, CLEARED_NOTE)
    // A lens that cannot rewrite this result returns the message itself: nothing was cleared there.
    if (next === current) continue
    out[p.index] = next
    cleared.push(p)
    freedTokens += p.tokens
  }
  if (cleared.length === 0) {
    return { messages, cleared: [], count: 0, freedTokens: 0, skipped: "nothing-to-clear", diagnostics }
  }
  return { messages: out, cleared, count: cleared.length, freedTokens, diagnostics }
})
