/**
 * The host's side of plugin strategies and interceptors: running untrusted code under a timeout with every
 * failure caught, the host's own view of what is protected, and the host's own fit (built-in truncation with
 * protection decided by the host, not by the messages' flags).
 */
import { conversationCost, CostCache, type Counter, makeCostCache, toCounter, type TokenCounter } from "@ctxkit/budget"
import { formats, isMessageFormat, type MessageFormat } from "@ctxkit/core"
import { currentRequest } from "@ctxkit/core/CurrentRequest"
import { describeValue } from "@ctxkit/core/Describe"
import { runPlugin } from "@ctxkit/core/RunPlugin"
import {
  type CountTokens,
  type FitDiagnostic,
  type FitOptions,
  type FitReason,
  type FitResult,
  type RemovalCandidate,
  strategies
} from "@ctxkit/fit"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** What running untrusted code gave: its value, or why there is none. */
export type Attempt =
  | { readonly _tag: "Done"; readonly value: unknown }
  | { readonly _tag: "Failed"; readonly cause: "failed" | "timed-out"; readonly detail: string }

/** At most `max` characters of `text`, for a diagnostic's detail. */
export const clip = (text: string, max = 200): string => text.length <= max ? text : `${text.slice(0, max)}…`

const errorDetail = (error: unknown): string => {
  if (error instanceof Error) return clip(`${error.name}: ${error.message}`)
  if (typeof error === "object" && error !== null) {
    const tag = (error as { readonly _tag?: unknown })._tag
    if (typeof tag === "string") return clip(tag)
  }
  return clip(describeValue(error))
}

/** The duration given, or `fallback` when it is absent or not a duration >= 0. */
export const durationOr = (given: Duration.Input | undefined, fallback: Duration.Input): Duration.Duration => {
  const fallbackDuration = Duration.fromInputUnsafe(fallback)
  if (given === undefined) return fallbackDuration
  const decoded = Duration.fromInput(given)
  return Option.isSome(decoded) && Duration.toMillis(decoded.value) >= 0 ? decoded.value : fallbackDuration
}

/** Runs `thunk` (a plugin's function) with core's plugin runner; a failure becomes the diagnostic's cause and detail. */
export const attempt = (thunk: () => unknown, timeout: Duration.Duration): Effect.Effect<Attempt> =>
  Effect.map(runPlugin(thunk, timeout), (outcome): Attempt =>
    outcome._tag === "Done" ? outcome : outcome.timedOut
      ? { _tag: "Failed", cause: "timed-out", detail: `did not complete within ${Duration.format(timeout)}` }
      : { _tag: "Failed", cause: "failed", detail: errorDetail(outcome.error) })

/** Whether `value` is a non-null object (a record or an array). */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null

/** The format of the options, as fitting reads it: the one given when it is a format, else `formats.auto`. */
export const formatOf = <M>(options: FitOptions<M> | undefined): MessageFormat<M> =>
  options !== undefined && isMessageFormat(options.format)
    ? options.format as MessageFormat<M>
    : formats.auto as unknown as MessageFormat<M>

/** The counting settings of the options, as fitting reads them (a local cache when the caller gave none). */
export interface Costing<M> {
  readonly counter: TokenCounter
  readonly format: MessageFormat<M>
  readonly perMessageOverhead: number | undefined
  readonly cache: CostCache
}

export const costingOf = <M>(countTokens: CountTokens, options: FitOptions<M> | undefined): Costing<M> => ({
  counter: toCounter(countTokens as Counter | undefined),
  format: formatOf(options),
  perMessageOverhead: options?.perMessageOverhead,
  cache: options?.cache instanceof CostCache ? options.cache : makeCostCache()
})

/** Each message's cost and the total, by the host's own counter. */
export const costs = <M>(list: ReadonlyArray<M>, costing: Costing<M>) => conversationCost(list, costing)

/** Whether `budget` is a finite number of tokens > 0. */
export const budgetUsable = (budget: unknown): budget is number =>
  typeof budget === "number" && Number.isFinite(budget) && budget > 0

/** Per position: protected by the host's rules (system from the system itself, pinned, the current request). */
export const protectedPositions = <M>(
  list: ReadonlyArray<M>,
  format: MessageFormat<M>,
  protectCurrentRequest: boolean | undefined,
  skip?: (position: number) => boolean
): Uint8Array => {
  const out = new Uint8Array(list.length)
  const current = protectCurrentRequest === false ? -1 : currentRequest(list, format, skip)
  for (let i = 0; i < list.length; i++) {
    if (skip?.(i) === true) continue
    const m = list[i] as M
    if (i === current || format.isProtected(m) || format.isPinned(m)) out[i] = 1
  }
  return out
}

const EXCLUSION_REASONS: ReadonlySet<string> = new Set([
  "manual",
  "context-shift",
  "final-budget",
  "interceptor",
  "empty",
  "disabled"
])

/** Whether `value` is a reason code that explains an exclusion. */
export const isExclusionReason = (value: unknown): value is FitReason =>
  typeof value === "string" && EXCLUSION_REASONS.has(value)

/** Role, message id and links, as one comparable key. */
export const shapeKey = <M>(format: MessageFormat<M>, m: M): string =>
  JSON.stringify([format.role(m), format.id(m) ?? null, format.links(m)])

/** Keeps only what looks like a diagnostic (an object with a string `_tag` and a string `message`). */
export const diagnosticsOf = (value: unknown): Array<FitDiagnostic> => {
  if (!Array.isArray(value)) return []
  const out: Array<FitDiagnostic> = []
  for (const d of value) {
    if (isObject(d) && typeof d["_tag"] === "string" && typeof d["message"] === "string") {
      out.push(d as unknown as FitDiagnostic)
    }
  }
  return out
}

const ONCE: ReadonlySet<string> = new Set(["UnusableBudget", "ProtectedOverBudget", "NotAConversation"])

/** `known` followed by the diagnostics of `fresh` that are new (a counter failure is reported once). */
export const appendDiagnostics = (
  known: ReadonlyArray<FitDiagnostic>,
  fresh: ReadonlyArray<FitDiagnostic>
): Array<FitDiagnostic> => {
  // A counter failure is reported once per kind; a budget or protection problem once.
  const key = (d: FitDiagnostic): string | undefined =>
    d._tag === "CounterFailed"
      ? `${d.counter}\u0000${d.failure}`
      : ONCE.has(d._tag)
      ? d._tag
      : undefined
  const out = [...known]
  const seen = new Set<string>()
  for (const d of known) {
    const k = key(d)
    if (k !== undefined) seen.add(k)
  }
  for (const d of fresh) {
    const k = key(d)
    if (k !== undefined) {
      if (seen.has(k)) continue
      seen.add(k)
    }
    out.push(d)
  }
  return out
}

/**
 * The host's own fit of `list`: built-in truncation, no compression, with protection decided by the host —
 * exactly the messages of `protectedRefs` are protected (whatever their flags say), and the current request is
 * not looked for again. With `addedFirst`, the groups holding an `added` message are removed before any other.
 */
export const hostFit = <M>(
  list: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options: FitOptions<M> | undefined,
  protectedRefs: ReadonlySet<M>,
  added: ReadonlySet<M>,
  addedFirst: boolean
): FitResult<M> => {
  const base = formatOf(options)
  const format: MessageFormat<M> = {
    ...base,
    isPinned: () => false,
    isProtected: (m) => protectedRefs.has(m),
    source: (m) => added.has(m) ? "plugin" : base.source(m)
  }
  const caller = options?.removalPriority
  const removalPriority = addedFirst
    ? (group: RemovalCandidate<M>): number =>
      group.messages.some((m) => added.has(m))
        ? Number.NEGATIVE_INFINITY
        : typeof caller === "function"
        ? caller(group)
        : 0
    : caller
  return strategies.truncate.fit(list, countTokens, budget, {
    ...options,
    format,
    protectCurrentRequest: false,
    compress: false,
    removalPriority,
    // The host reports every block's tokens, excluded ones included.
    countExcluded: true
  })
}

/** Positions of `list` matched greedily, in order, against the positions of `previous` holding the same object. */
export class Occurrences<M> {
  readonly #positions = new Map<M, Array<number>>()
  readonly #cursor = new Map<M, number>()

  constructor(previous: ReadonlyArray<M>) {
    for (let i = 0; i < previous.length; i++) {
      const m = previous[i] as M
      const at = this.#positions.get(m)
      if (at === undefined) this.#positions.set(m, [i])
      else at.push(i)
    }
  }

  /** Whether `m` is one of the previous messages. */
  has(m: M): boolean {
    return this.#positions.has(m)
  }

  /** The first position of `m` after `last` not matched yet, or -1 (out of order or repeated). */
  next(m: M, last: number): number {
    const at = this.#positions.get(m)
    if (at === undefined) return -1
    let c = this.#cursor.get(m) ?? 0
    while (c < at.length && (at[c] as number) <= last) c++
    if (c === at.length) return -1
    this.#cursor.set(m, c + 1)
    return at[c] as number
  }
}

/**
 * Per position of a lawful result's `kept`: the input index it stands for (compressed copies by their
 * `truncated` entry; other kept input messages fill, in order, the indices no exclusion names), or -1 for an
 * `inserted` message; and the input's length.
 */
export const keptSlots = <M>(result: FitResult<M>): { readonly slots: Array<number>; readonly inputLength: number } => {
  const inserted = new Set(result.inserted)
  const copies = new Map(result.truncated.map((t) => [t.message, t.index]))
  const excluded = new Set(result.excluded.map((e) => e.index))
  let fromInput = 0
  for (const m of result.kept) if (!inserted.has(m)) fromInput++
  const inputLength = fromInput + result.excluded.length
  const free: Array<number> = []
  for (let i = 0; i < inputLength; i++) if (!excluded.has(i)) free.push(i)
  let k = 0
  const slots = result.kept.map((m) => {
    if (inserted.has(m)) return -1
    const slot = copies.get(m) ?? free[k] ?? -1
    k++
    return slot
  })
  return { slots, inputLength }
}

/**
 * Per position `p` of a list whose positions stand for input indices (`slots`, -1 for a message not from the
 * input): the input index of the first input-derived message at `p` or after it, or `end` (the input's length).
 * Position `slots.length` holds `end`.
 */
export const nextInputSlots = (slots: ReadonlyArray<number>, end: number): Int32Array => {
  const out = new Int32Array(slots.length + 1)
  out[slots.length] = end
  for (let p = slots.length - 1; p >= 0; p--) {
    const slot = slots[p] as number
    out[p] = slot >= 0 ? slot : out[p + 1] as number
  }
  return out
}
