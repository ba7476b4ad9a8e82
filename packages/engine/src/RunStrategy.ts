/**
 * `runStrategy`: the host's guard around a context strategy. A plugin strategy cannot bypass the budget: it runs
 * under a timeout, what it throws is caught, what it returns is checked against the input (protection, whole
 * groups, no foreign messages), and what it keeps is recounted with the host's own counter and fitted again when
 * over. Anything wrong falls back to safe truncation.
 *
 * @since 0.1.0
 */
import { type FormatInput, type MessageFormat, toolGroups } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import {
  type CountTokens,
  type ExcludedMessage,
  type FitOptions,
  type FitReason,
  type FitResult,
  type PluginStrategy,
  strategies,
  type TruncatedBlock
} from "@ctxkit/fit"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type HostDiagnostic, StrategyFailed, StrategyRefitted, StrategyRejected } from "./HostDiagnostics.ts"
import {
  appendDiagnostics,
  attempt,
  budgetUsable,
  costingOf,
  costs,
  diagnosticsOf,
  durationOr,
  formatOf,
  hostFit,
  isExclusionReason,
  isObject,
  nextInputSlots,
  Occurrences,
  protectedPositions,
  shapeKey
} from "./internal/host.ts"

/**
 * How long the host waits for a strategy that returns an Effect: 15 seconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_STRATEGY_TIMEOUT } from "@ctxkit/engine/RunStrategy"
 *
 * DEFAULT_STRATEGY_TIMEOUT // "15 seconds"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_STRATEGY_TIMEOUT: Duration.Input = "15 seconds"

/**
 * Options of {@link runStrategy}: those of fitting, and the timeout.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import type { RunStrategyOptions } from "@ctxkit/engine/RunStrategy"
 *
 * const options: RunStrategyOptions<Message> = { format: formats.canonical, timeout: "5 seconds" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RunStrategyOptions<M> extends FitOptions<M> {
  /**
   * How long a strategy that returns an Effect may run before it is interrupted and truncation is used instead.
   * Default {@link DEFAULT_STRATEGY_TIMEOUT}; a value that is not a duration >= 0 is replaced by the default.
   */
  readonly timeout?: Duration.Input | undefined
}

/**
 * A message that is not from the input — a note a strategy inserted (`inserted`) or a message an interceptor
 * added (`plugin`) — which the host or an interceptor removed again. Kept for the audit: where it was
 * (`before`: the input index of the next input message after it, or the input's length) and why it went.
 *
 * @example
 * ```ts
 * import type { DroppedBlock } from "@ctxkit/engine/RunStrategy"
 *
 * const dropped: DroppedBlock<{ readonly role: string; readonly content: string }> = {
 *   message: { role: "user", content: "[retrieved] …" },
 *   origin: "plugin",
 *   reason: "final-budget",
 *   before: 7
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface DroppedBlock<M> {
  /** The message. */
  readonly message: M
  /** `inserted` by a strategy, or added by an interceptor (`plugin`). */
  readonly origin: "inserted" | "plugin"
  /** `final-budget` (a host fit removed it) or `interceptor` (an interceptor removed it). */
  readonly reason: "final-budget" | "interceptor"
  /** The interceptor that removed it, for `interceptor`. */
  readonly interceptor?: string | undefined
  /** The interceptor that added it, for `plugin`. */
  readonly addedBy?: string | undefined
  /** The input index of the next input message after it when it was removed (the input's length at the end). */
  readonly before: number
}

/**
 * What {@link runStrategy} returns: the result to use, which strategy produced it, and what the host did.
 *
 * @example
 * ```ts
 * import { runStrategy } from "@ctxkit/engine"
 * import type { StrategyRun } from "@ctxkit/engine/RunStrategy"
 * import { strategies } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const run: StrategyRun<{ readonly role: string; readonly content: string }> = Effect.runSync(
 *   runStrategy(strategies.truncate, [{ role: "user", content: "hi" }], (text) => text.length, 100)
 * )
 * run.ran // "truncate"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StrategyRun<M> {
  /** The final result: the strategy's when it was accepted (refitted when over), else truncation's. */
  readonly result: FitResult<M>
  /** The id of the strategy asked for. */
  readonly requested: string
  /** The id of the strategy whose result is used: the one asked for, or `truncate` after a fallback. */
  readonly ran: string
  /** Whether the strategy's result was thrown away and the input truncated instead. */
  readonly fallback: boolean
  /** Whether the host removed more from the strategy's result because its recount was over the budget. */
  readonly refitted: boolean
  /** Notes the strategy inserted that the host's refit removed. */
  readonly dropped: ReadonlyArray<DroppedBlock<M>>
  /** What the host did and why. */
  readonly diagnostics: ReadonlyArray<HostDiagnostic>
}

const BUILTINS: ReadonlySet<unknown> = new Set(Object.values(strategies))

const idOf = (strategy: unknown): string => {
  const id = isObject(strategy) ? strategy["id"] : undefined
  return typeof id === "string" ? id : describeValue(id)
}

type Problem = StrategyRejected["problem"]

interface Accepted<M> {
  readonly ok: true
  readonly kept: ReadonlyArray<M>
  /** Per kept position: the input index it stands for, or -1 for an inserted note. */
  readonly slots: ReadonlyArray<number>
  /** Compressed copies, by input index, with their kept position. */
  readonly copies: ReadonlyMap<number, { readonly message: M; readonly position: number }>
  readonly notes: ReadonlyArray<M>
  /** Excluded input indices, in the strategy's order (then input order), with their reasons. */
  readonly order: ReadonlyArray<{ readonly index: number; readonly reason: FitReason }>
  readonly protected: Uint8Array
  readonly out: Readonly<Record<string, unknown>>
}

interface Rejected {
  readonly ok: false
  readonly problem: Problem
  readonly detail: string
}

const reject = (problem: Problem, detail: string): Rejected => ({ ok: false, problem, detail })

/** Checks a strategy's answer against its input, as the host: a fitting of the input, or why not. */
const check = <M>(
  input: ReadonlyArray<M>,
  format: MessageFormat<M>,
  protectCurrentRequest: boolean | undefined,
  out: unknown
): Accepted<M> | Rejected => {
  if (!isObject(out) || Array.isArray(out)) return reject("invalid-result", `it returned ${describeValue(out)}`)
  const given = out["kept"]
  if (!Array.isArray(given)) return reject("invalid-result", `its kept is ${describeValue(given)}, not an array`)
  const kept = given as ReadonlyArray<M>
  const copyOf = new Map<M, M>()
  const truncated = out["truncated"]
  if (Array.isArray(truncated)) {
    for (const t of truncated) if (isObject(t)) copyOf.set(t["message"] as M, t["original"] as M)
  }
  const inserted = out["inserted"]
  const declared = new Set<M>(Array.isArray(inserted) ? inserted as ReadonlyArray<M> : [])

  const occurrences = new Occurrences(input)
  const sent = new Uint8Array(input.length)
  const slots: Array<number> = []
  const copies = new Map<number, { readonly message: M; readonly position: number }>()
  const notes: Array<M> = []
  const seenNotes = new Set<M>()
  let last = -1
  for (let k = 0; k < kept.length; k++) {
    const m = kept[k] as M
    if (occurrences.has(m)) {
      const at = occurrences.next(m, last)
      if (at < 0) return reject("invalid-result", `kept[${k}] is out of input order or kept twice`)
      sent[at] = 1
      slots.push(at)
      last = at
      continue
    }
    if (copyOf.has(m)) {
      // Present: `copyOf` has `m`.
      const original = copyOf.get(m) as M
      const at = occurrences.next(original, last)
      if (at < 0) {
        return reject("invalid-result", `kept[${k}] is a copy of no input message, out of order, or kept twice`)
      }
      if (shapeKey(format, original) !== shapeKey(format, m)) {
        return reject("invalid-result", `kept[${k}] changed the role, id or tool-call ids of input message ${at}`)
      }
      sent[at] = 1
      slots.push(at)
      copies.set(at, { message: m, position: k })
      last = at
      continue
    }
    if (declared.has(m) && !seenNotes.has(m)) {
      if (!isObject(m)) return reject("invalid-result", `kept[${k}] is ${describeValue(m)}, not a message`)
      if (format.links(m).length > 0 || format.attachesToNext(m)) {
        return reject("invalid-result", `inserted kept[${k}] carries tool calls, results or other links`)
      }
      seenNotes.add(m)
      notes.push(m)
      slots.push(-1)
      continue
    }
    return reject(
      "foreign-messages",
      `kept[${k}] is not from the input, nor a compressed copy listed in truncated, nor a note listed in inserted`
    )
  }

  const protectedAt = protectedPositions(input, format, protectCurrentRequest)
  for (let i = 0; i < input.length; i++) {
    if (protectedAt[i] === 1 && (sent[i] === 0 || copies.has(i))) {
      return reject("protected-removed", `protected message ${i} was ${sent[i] === 0 ? "removed" : "rewritten"}`)
    }
  }
  for (const group of toolGroups(input, format).groups) {
    if (group.length < 2) continue
    let count = 0
    for (const i of group) count += sent[i] as number
    if (count > 0 && count < group.length) {
      return reject("group-split", `tool-call group [${group.join(", ")}] was split`)
    }
  }

  // Excluded, in the strategy's order where its entries are usable, then the rest in input order.
  const claimed = new Uint8Array(input.length)
  const order: Array<{ readonly index: number; readonly reason: FitReason }> = []
  const claim = (index: number, reason: unknown): void => {
    claimed[index] = 1
    order.push({ index, reason: isExclusionReason(reason) ? reason : "context-shift" })
  }
  const excluded = out["excluded"]
  if (Array.isArray(excluded)) {
    // Entries whose index is wrong are matched by message, to the first unclaimed occurrence left out.
    const unsent = new Occurrences(input.map((m, i) => sent[i] === 0 ? m : undefined))
    for (const e of excluded) {
      if (!isObject(e)) continue
      const index = e["index"]
      if (
        typeof index === "number" && Number.isInteger(index) && index >= 0 && index < input.length &&
        input[index] === e["message"] && sent[index] === 0 && claimed[index] === 0
      ) {
        claim(index, e["reason"])
        continue
      }
      const message = e["message"] as M | undefined
      if (message === undefined) continue
      let at = unsent.next(message, -1)
      while (at >= 0 && claimed[at] === 1) at = unsent.next(message, -1)
      if (at >= 0) claim(at, e["reason"])
    }
  }
  for (let i = 0; i < input.length; i++) if (sent[i] === 0 && claimed[i] === 0) claim(i, undefined)
  return { ok: true, kept, slots, copies, notes, order, protected: protectedAt, out }
}

/** The strategy's accepted answer as a result over the input, recounted by the host and refitted when over. */
const accept = <M>(
  id: string,
  input: ReadonlyArray<M>,
  accepted: Accepted<M>,
  countTokens: CountTokens,
  budget: number,
  options: FitOptions<M> | undefined
): StrategyRun<M> => {
  const costing = costingOf(countTokens, options)
  const hostOptions: FitOptions<M> = { ...options, cache: costing.cache }
  const inputCost = costs(input, costing)
  const keptCost = costs(accepted.kept, costing)
  const base = appendDiagnostics(
    appendDiagnostics(diagnosticsOf(accepted.out["diagnostics"]), inputCost.diagnostics),
    keptCost.diagnostics
  )
  const excluded: Array<ExcludedMessage<M>> = accepted.order.map(({ index, reason }) => ({
    message: input[index] as M,
    index,
    reason,
    tokens: inputCost.costs[index] as number
  }))
  const flags = {
    ...(typeof accepted.out["summaryCreated"] === "boolean" ? { summaryCreated: accepted.out["summaryCreated"] } : {}),
    ...(typeof accepted.out["manualFallback"] === "boolean" ? { manualFallback: accepted.out["manualFallback"] } : {})
  }
  const truncatedAt = (present: (position: number) => boolean): Array<TruncatedBlock<M>> =>
    [...accepted.copies.entries()]
      .filter(([, copy]) => present(copy.position))
      .sort(([a], [b]) => a - b)
      .map(([index, copy]) => ({
        original: input[index] as M,
        message: copy.message,
        index,
        tokensBefore: inputCost.costs[index] as number,
        tokensAfter: keptCost.costs[copy.position] as number
      }))

  if (budgetUsable(budget) && keptCost.total <= budget) {
    return {
      result: {
        kept: accepted.kept,
        excluded,
        truncated: truncatedAt(() => true),
        inserted: accepted.notes,
        tokens: keptCost.total,
        budget,
        fits: true,
        diagnostics: base,
        ...flags
      },
      requested: id,
      ran: id,
      fallback: false,
      refitted: false,
      dropped: [],
      diagnostics: []
    }
  }

  // Over the budget by the host's count (or the budget is unusable): fit what the strategy kept again.
  const protectedRefs = new Set<M>()
  for (let i = 0; i < input.length; i++) if (accepted.protected[i] === 1) protectedRefs.add(input[i] as M)
  const refit = hostFit(accepted.kept, countTokens, budget, hostOptions, protectedRefs, new Set(accepted.notes), false)
  const removed = new Uint8Array(accepted.kept.length)
  for (const e of refit.excluded) removed[e.index] = 1
  const next = nextInputSlots(accepted.slots, input.length)
  const dropped: Array<DroppedBlock<M>> = []
  for (const e of refit.excluded) {
    const slot = accepted.slots[e.index] as number
    if (slot >= 0) {
      excluded.push({
        message: input[slot] as M,
        index: slot,
        reason: "final-budget",
        tokens: inputCost.costs[slot] as number
      })
    } else {
      dropped.push({
        message: e.message,
        origin: "inserted",
        reason: "final-budget",
        before: next[e.index + 1] as number
      })
    }
  }
  const diagnostics: Array<HostDiagnostic> = refit.excluded.length > 0
    ? [
      new StrategyRefitted({
        strategy: id,
        tokens: keptCost.total,
        budget: refit.budget,
        removed: refit.excluded.length
      })
    ]
    : []
  return {
    result: {
      kept: refit.kept,
      excluded,
      truncated: truncatedAt((position) => removed[position] === 0),
      inserted: accepted.kept.filter((_, k) => accepted.slots[k] === -1 && removed[k] === 0),
      tokens: refit.tokens,
      budget: refit.budget,
      fits: refit.fits,
      diagnostics: appendDiagnostics(base, refit.diagnostics),
      ...flags
    },
    requested: id,
    ran: id,
    fallback: false,
    refitted: refit.excluded.length > 0,
    dropped,
    diagnostics
  }
}

/**
 * Runs a context strategy as a host that does not trust it, and returns the result to use.
 *
 * 1. The strategy runs under a timeout (`timeout`, default 15 s). A `fit` that returns an Effect is interrupted
 *    when it takes longer; a `fit` that throws, fails or dies counts as failed. Either way truncation of the
 *    input is used instead, with `StrategyFailed` (`context strategy "<id>" failed or timed out; safe truncation
 *    used instead`). A synchronous `fit` cannot be interrupted (JavaScript cannot stop synchronous code): one
 *    that loops forever hangs the fiber — run such code as an Effect (or in a worker) to get the timeout.
 * 2. Its result is checked against the input. One that removed or rewrote a protected message (system from the
 *    system itself, pinned, the current request) or split a tool-call group is rejected — `StrategyRejected`,
 *    `context strategy "<id>" rejected: protected context was removed` — and so is one that is not a result, keeps
 *    messages out of order or twice, or keeps messages that are neither from the input nor its own declared notes
 *    (`inserted`, with no tool links) and compressed copies (`truncated`, same role, id and call ids). The input is
 *    then truncated instead, which keeps every protected message.
 * 3. What it keeps is recounted with the host's counter (`countTokens`, the same format and overhead); when that
 *    is over the budget, the host fits it again with built-in truncation — protection decided by the host, notes
 *    removable — and reports `StrategyRefitted`.
 *
 * The built-in `strategies` are the host's own code and their results are used as they are. A plugin strategy is
 * never handed the caller's `cache` (so that it cannot corrupt the counts the host relies on). Never fails.
 * Given a `format`, the result is typed as the caller's own message type, like `shiftContext`'s (LangChain
 * `BaseMessage`s with `formats.langchain`, the AI SDK's `ModelMessage`s with `formats.aiSdk`).
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { runStrategy } from "@ctxkit/engine"
 * import type { PluginStrategy } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * // A careless plugin: drops everything, the system prompt included.
 * const careless: PluginStrategy = {
 *   id: "careless",
 *   fit: () => ({ kept: [], excluded: [], truncated: [], inserted: [], tokens: 0, budget: 0, fits: true, diagnostics: [] })
 * }
 * const messages: ReadonlyArray<Message> = [
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "hi" }
 * ]
 * const run = Effect.runSync(runStrategy(careless, messages, (text) => Math.ceil(text.length / 4), 100, { format: formats.canonical }))
 * run.ran // "truncate"
 * run.diagnostics[0]?.message // "context strategy \"careless\" rejected: protected context was removed"
 * run.result.kept.length // 2
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const runStrategy: {
  <M>(
    strategy: PluginStrategy,
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options?: RunStrategyOptions<M> | undefined
  ): Effect.Effect<StrategyRun<M>>
  <M extends FormatInput<F>, F>(
    strategy: PluginStrategy,
    messages: ReadonlyArray<M>,
    countTokens: CountTokens,
    budget: number,
    options: RunStrategyOptions<F> & { readonly format: MessageFormat<F> }
  ): Effect.Effect<StrategyRun<M>>
} = Effect.fn("runStrategy")(function*<M>(
  strategy: PluginStrategy,
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: RunStrategyOptions<M> | undefined
) {
  const id = idOf(strategy)
  const fitOptions: RunStrategyOptions<M> | undefined = isObject(options) ? options : undefined
  // The host's own fits price what they exclude too: the audit reports every block's tokens.
  const hostOptions: FitOptions<M> = { ...fitOptions, countExcluded: true }
  const truncate = (diagnostics: ReadonlyArray<HostDiagnostic>): StrategyRun<M> => ({
    result: strategies.truncate.fit(messages, countTokens, budget, hostOptions),
    requested: id,
    ran: "truncate",
    fallback: true,
    refitted: false,
    dropped: [],
    diagnostics
  })
  if (BUILTINS.has(strategy)) {
    // A built-in: total, pure and lawful (the host's own code).
    const result = strategy.fit(messages, countTokens, budget, hostOptions) as FitResult<M>
    return { result, requested: id, ran: id, fallback: false, refitted: false, dropped: [], diagnostics: [] }
  }
  if (!Array.isArray(messages)) return truncate([])
  const pluginOptions: FitOptions<M> = { ...fitOptions, cache: undefined }
  const outcome = yield* attempt(
    () => strategy.fit(messages, countTokens, budget, pluginOptions),
    durationOr(fitOptions?.timeout, DEFAULT_STRATEGY_TIMEOUT)
  )
  if (outcome._tag === "Failed") {
    return truncate([new StrategyFailed({ strategy: id, cause: outcome.cause, detail: outcome.detail })])
  }
  const checked = check(messages, formatOf(fitOptions), fitOptions?.protectCurrentRequest, outcome.value)
  if (!checked.ok) {
    return truncate([new StrategyRejected({ strategy: id, problem: checked.problem, detail: checked.detail })])
  }
  return accept(id, messages, checked, countTokens, budget, fitOptions)
})
