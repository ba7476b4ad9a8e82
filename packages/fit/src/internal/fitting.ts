/**
 * The fitting engine every strategy runs on: one call's local, mutable accumulator (never shared, never
 * escaping), so that removal is linear after counting. Each input message is counted once (through the
 * caller's cost cache when given), the running total is maintained incrementally, and `finish` recounts what is
 * sent independently and verifies it.
 */
import {
  conversationCost,
  CostCache,
  CounterFailed,
  DEFAULT_PER_MESSAGE_OVERHEAD,
  estimateTokens,
  makeCostCache,
  messageCost,
  SettingAdjusted,
  type TokenCounter
} from "@ctxkit/budget"
import { conversationMessages, formats, isMessageFormat, type MessageFormat, toolGroups } from "@ctxkit/core"
import * as Result from "effect/Result"
import {
  CallbackFailed,
  type FitDiagnostic,
  NotAConversation,
  OptionAdjusted,
  ProtectedOverBudget,
  RecountMismatch,
  UnusableBudget
} from "../Diagnostics.ts"
import type { CompressOptions, FitOptions, RemovalCandidate } from "../FitOptions.ts"
import type { ExcludedMessage, FitReason, FitResult, TruncatedBlock } from "../FitResult.ts"
import { asCounter } from "./counting.ts"
import { describeValue, safeHead, safeTail } from "./text.ts"

/** Default `compress.threshold`, in tokens. */
export const DEFAULT_COMPRESS_THRESHOLD = 1_000
/** Default `compress.keep`, in tokens. */
export const DEFAULT_COMPRESS_KEEP = 400

const isFiniteAtLeast = (value: unknown, min: number, strict: boolean): value is number =>
  typeof value === "number" && Number.isFinite(value) && (strict ? value > min : value >= min)

const errorText = (error: unknown): string => error instanceof Error ? error.message : describeValue(error)

interface Note<M> {
  /** Input index the note is placed before (`list.length`: at the end). */
  readonly before: number
  readonly message: M
  readonly cost: number
}

/** Resolved compression settings. */
export interface Compression {
  readonly threshold: number
  readonly keep: number
}

export class Fitting<M> {
  readonly list: ReadonlyArray<M>
  readonly format: MessageFormat<M>
  readonly counter: TokenCounter
  readonly overhead: number
  /** The caller's cost cache, if any. */
  readonly cache: CostCache | undefined
  /**
   * Without a cache of the caller's: this call's own, created on first use, for the messages counted after the
   * input (compressed copies, notes). The input's counts are kept by position instead (`original`, `cost`).
   */
  private scratch: CostCache | undefined
  /** Whether some count fell back after a counter failure. */
  private failed = false
  /** The budget fitted to: the given one, or 0 when it is unusable. */
  readonly budget: number
  readonly budgetUsable: boolean
  /** False when the messages given are not a conversation: nothing is fitted and the result never fits. */
  readonly inputUsable: boolean
  readonly groups: ReadonlyArray<ReadonlyArray<number>>
  readonly groupOf: ReadonlyArray<number>
  /** Per group: 1 when it holds a protected message (never removed, never compressed). */
  readonly locked: Uint8Array
  /** Index of the current request (the last user message that is not a summary), or -1. */
  readonly request: number
  /** `request` when it is protected (the default), else -1. */
  readonly current: number
  /** What each input message costs. */
  readonly original: ReadonlyArray<number>
  /** What each message costs now (a compressed copy costs less). */
  readonly cost: Float64Array
  /** Per group: why it was removed, or undefined while it is kept. */
  readonly removed: Array<FitReason | undefined>
  /** Removed groups, in removal order. */
  readonly order: Array<number> = []
  /** Compressed copies, by input index. */
  readonly replaced = new Map<number, M>()
  readonly notes: Array<Note<M>> = []
  readonly diagnostics: Array<FitDiagnostic> = []
  readonly options: FitOptions<M>
  total = 0

  constructor(messages: unknown, countTokens: unknown, budget: unknown, options: unknown) {
    const opts: FitOptions<M> = typeof options === "object" && options !== null ? options as FitOptions<M> : {}
    this.options = opts
    const input = conversationMessages(messages)
    this.inputUsable = Result.isSuccess(input)
    if (Result.isSuccess(input)) this.list = input.success as ReadonlyArray<M>
    else {
      this.list = []
      this.diagnostics.push(
        new NotAConversation({ given: input.failure.issues[0]?.message ?? describeValue(messages) })
      )
    }
    if (opts.format === undefined || isMessageFormat(opts.format)) {
      this.format = opts.format ?? (formats.auto as unknown as MessageFormat<M>)
    } else {
      this.format = formats.auto as unknown as MessageFormat<M>
      this.diagnostics.push(new OptionAdjusted({ option: "format", given: describeValue(opts.format), used: "auto" }))
    }
    const overhead = opts.perMessageOverhead
    if (overhead === undefined || isFiniteAtLeast(overhead, 0, false)) {
      this.overhead = overhead ?? DEFAULT_PER_MESSAGE_OVERHEAD
    } else {
      this.overhead = DEFAULT_PER_MESSAGE_OVERHEAD
      this.diagnostics.push(
        new SettingAdjusted({
          setting: "perMessageOverhead",
          given: describeValue(overhead),
          used: DEFAULT_PER_MESSAGE_OVERHEAD
        })
      )
    }
    this.counter = asCounter(countTokens)
    // The caller's cache, when given: the input is counted through it, and so is the final recount. Without
    // one, the counts are kept by position (no per-message cache writes), and the final recount adds up the
    // counts of what is kept, in order, from scratch (see `finish`).
    this.cache = opts.cache instanceof CostCache ? opts.cache : undefined
    this.budgetUsable = isFiniteAtLeast(budget, 0, true)
    this.budget = this.budgetUsable ? budget as number : 0
    if (!this.budgetUsable) this.diagnostics.push(new UnusableBudget({ given: describeValue(budget) }))

    const counted = conversationCost(this.list, {
      counter: this.counter,
      format: this.format,
      perMessageOverhead: this.overhead,
      cache: this.cache
    })
    this.absorb(counted.diagnostics)
    this.original = counted.costs
    this.cost = new Float64Array(counted.costs)
    this.total = counted.total

    const { groupOf, groups } = toolGroups(this.list, this.format)
    this.groups = groups
    this.groupOf = groupOf
    this.removed = Array.from({ length: groups.length }, (): FitReason | undefined => undefined)

    const format = this.format
    let request = -1
    for (let i = this.list.length - 1; i >= 0; i--) {
      const m = this.list[i] as M
      if (format.role(m) === "user" && !format.isSummary(m)) {
        request = i
        break
      }
    }
    this.request = request
    const current = opts.protectCurrentRequest === false ? -1 : request
    this.current = current
    this.locked = new Uint8Array(groups.length)
    for (let i = 0; i < this.list.length; i++) {
      const m = this.list[i] as M
      if (i === current || format.isProtected(m) || format.isPinned(m)) this.locked[groupOf[i] as number] = 1
    }
  }

  private costOptions() {
    return {
      counter: this.counter,
      format: this.format,
      perMessageOverhead: this.overhead,
      cache: this.cache ?? (this.scratch ??= makeCostCache())
    }
  }

  /** Keeps one diagnostic per counter failure kind, adding up the texts that fell back. */
  absorb(diagnostics: ReadonlyArray<FitDiagnostic>): void {
    for (const d of diagnostics) {
      if (d._tag === "CounterFailed") {
        this.failed = true
        const at = this.diagnostics.findIndex((x) =>
          x._tag === "CounterFailed" && x.counter === d.counter && x.failure === d.failure
        )
        const seen = at === -1 ? undefined : this.diagnostics[at]
        if (seen !== undefined && seen._tag === "CounterFailed") {
          this.diagnostics[at] = new CounterFailed({
            counter: seen.counter,
            failure: seen.failure,
            detail: seen.detail,
            texts: seen.texts + d.texts
          })
          continue
        }
      }
      this.diagnostics.push(d)
    }
  }

  /** What `message` costs (overhead included), counted through the cache. */
  messageCost(message: M): number {
    const estimate = messageCost(message, this.costOptions())
    this.absorb(estimate.diagnostics)
    return estimate.tokens
  }

  /** The tokens of `text` alone, guarded. */
  countText(text: string): number {
    const estimate = estimateTokens(text, this.counter)
    this.absorb(estimate.diagnostics)
    return estimate.tokens
  }

  /** Whether the running total, plus `extra`, fits. Never true on an unusable budget. */
  fits(extra = 0): boolean {
    return this.budgetUsable && this.total + extra <= this.budget
  }

  isRemoved(group: number): boolean {
    return this.removed[group] !== undefined
  }

  /** Removes a whole group (not when locked or already removed). */
  remove(group: number, reason: FitReason): boolean {
    if (this.locked[group] === 1 || this.removed[group] !== undefined) return false
    this.removed[group] = reason
    this.order.push(group)
    for (const i of this.groups[group] ?? []) this.total -= this.cost[i] as number
    return true
  }

  /** Removable groups (not locked), oldest first, or by `removalPriority` then age when given. */
  historyOrder(among?: ReadonlyArray<number>): Array<number> {
    const candidates: Array<number> = []
    if (among === undefined) {
      for (let g = 0; g < this.groups.length; g++) if (this.locked[g] === 0) candidates.push(g)
    } else {
      for (const g of among) if (this.locked[g] === 0) candidates.push(g)
    }
    const priority = this.options.removalPriority
    if (typeof priority !== "function") return candidates
    const rank = new Float64Array(this.groups.length)
    let failure: string | undefined
    for (const g of candidates) {
      const indices = this.groups[g] ?? []
      let p: unknown = 0
      try {
        p = priority(
          {
            indices,
            messages: indices.map((i) => this.list[i] as M),
            tokens: indices.reduce((sum, i) => sum + (this.original[i] as number), 0)
          } satisfies RemovalCandidate<M>
        )
      } catch (error) {
        failure ??= `threw: ${errorText(error)}`
        p = 0
      }
      if (typeof p !== "number" || Number.isNaN(p)) {
        failure ??= `returned ${describeValue(p)}`
        p = 0
      }
      rank[g] = p as number
    }
    if (failure !== undefined) {
      this.diagnostics.push(new CallbackFailed({ callback: "removalPriority", detail: failure }))
    }
    // Array.prototype.sort is stable: equal priorities keep their age order.
    return candidates.sort((a, b) => (rank[a] as number) - (rank[b] as number))
  }

  /** Removes groups in `order` (skipping removed and locked ones) until the total plus `extra` fits. */
  dropUntilFits(order: ReadonlyArray<number>, reason: FitReason, extra = 0): number {
    let dropped = 0
    for (const g of order) {
      if (this.fits(extra)) break
      if (this.remove(g, reason)) dropped++
    }
    return dropped
  }

  /** The compression settings of the options, or undefined when compression is off. */
  compression(): Compression | undefined {
    const given = this.options.compress
    if (given === undefined || given === false) return undefined
    const settings: CompressOptions = typeof given === "object" && given !== null ? given : {}
    let threshold = DEFAULT_COMPRESS_THRESHOLD
    if (settings.threshold !== undefined) {
      if (isFiniteAtLeast(settings.threshold, 0, true)) threshold = settings.threshold
      else {
        this.diagnostics.push(
          new OptionAdjusted({
            option: "compress.threshold",
            given: describeValue(settings.threshold),
            used: String(threshold)
          })
        )
      }
    }
    let keep = Math.min(DEFAULT_COMPRESS_KEEP, Math.floor(threshold / 2))
    if (settings.keep !== undefined) {
      if (isFiniteAtLeast(settings.keep, 0, true) && settings.keep < threshold) keep = settings.keep
      else {
        this.diagnostics.push(
          new OptionAdjusted({ option: "compress.keep", given: describeValue(settings.keep), used: String(keep) })
        )
      }
    }
    return { threshold, keep }
  }

  /** Compresses the large messages of the groups in `order`, oldest first, until the total fits. */
  compressUntilFits(order: ReadonlyArray<number>, settings: Compression): void {
    if (!this.budgetUsable) return
    for (const g of order) {
      if (this.fits()) return
      if (this.locked[g] === 1 || this.removed[g] !== undefined) continue
      for (const i of this.groups[g] ?? []) {
        if (this.fits()) return
        this.compress(i, settings)
      }
    }
  }

  private compress(i: number, settings: Compression): void {
    if (this.replaced.has(i)) return
    const format = this.format
    const m = this.list[i] as M
    const tokens = (this.cost[i] as number) - this.overhead
    if (tokens <= settings.threshold) return
    if (format.isSummary(m) || format.attachesToNext(m)) return
    const results = format.toolResults(m)
    // Never touch what a call carries: a message issuing calls keeps its text.
    if (results.length === 0 && format.toolCalls(m).length > 0) return
    let ratio = settings.keep / tokens
    for (let attempt = 0; attempt < 4; attempt++, ratio /= 2) {
      let candidate = m
      if (results.length > 0) {
        for (const r of results) {
          const cut = cutMiddle(r.text, ratio)
          if (cut !== undefined) candidate = format.withResultText(candidate, r.callId, cut)
        }
      } else {
        const cut = cutMiddle(format.text(m), ratio)
        if (cut !== undefined) candidate = format.withText(m, cut)
      }
      if (candidate === m || !sameShape(format, m, candidate)) return
      const cost = this.messageCost(candidate)
      if (cost - this.overhead <= settings.threshold && cost < (this.cost[i] as number)) {
        this.replaced.set(i, candidate)
        this.total += cost - (this.cost[i] as number)
        this.cost[i] = cost
        return
      }
    }
  }

  /** Places `message` before input index `before` (moved earlier past messages that attach to the next one). */
  insert(message: M, cost: number, before: number): void {
    let at = before
    for (;;) {
      let previous = at - 1
      while (previous >= 0 && this.isRemoved(this.groupOf[previous] as number)) previous--
      if (previous < 0 || !this.format.attachesToNext(this.list[previous] as M)) break
      at = previous
    }
    this.notes.push({ before: at, message, cost })
    this.total += cost
  }

  /** Input messages excluded so far, in input order. */
  excludedInInputOrder(): Array<M> {
    const out: Array<M> = []
    for (let i = 0; i < this.list.length; i++) {
      if (this.isRemoved(this.groupOf[i] as number)) out.push(this.list[i] as M)
    }
    return out
  }

  /** The result: kept in order with notes and compressed copies, excluded in removal order, recounted. */
  finish(extra: Pick<FitResult<M>, "summaryCreated" | "manualFallback"> = {}): FitResult<M> {
    const kept: Array<M> = []
    const inserted: Array<M> = []
    const notes = this.notes.length > 1 ? [...this.notes].sort((a, b) => a.before - b.before) : this.notes
    const list = this.list
    const groupOf = this.groupOf
    const removed = this.removed
    const cost = this.cost
    const replaced = this.replaced.size > 0 ? this.replaced : undefined
    // What `kept` costs, added up from scratch in `kept` order (as `conversationCost` adds it up): the counts
    // of the kept messages, not the running total.
    let sum = 0
    let next = 0
    for (let i = 0; i < list.length; i++) {
      while (next < notes.length && (notes[next] as Note<M>).before === i) {
        const note = notes[next++] as Note<M>
        kept.push(note.message)
        inserted.push(note.message)
        sum += note.cost
      }
      if (removed[groupOf[i] as number] !== undefined) continue
      kept.push(replaced?.get(i) ?? list[i] as M)
      sum += cost[i] as number
    }
    for (; next < notes.length; next++) {
      const note = notes[next] as Note<M>
      kept.push(note.message)
      inserted.push(note.message)
      sum += note.cost
    }
    const excluded: Array<ExcludedMessage<M>> = []
    for (const g of this.order) {
      const reason = this.removed[g] as FitReason
      for (const i of this.groups[g] ?? []) {
        excluded.push({ message: this.list[i] as M, index: i, reason, tokens: this.original[i] as number })
      }
    }
    const truncated: Array<TruncatedBlock<M>> = []
    for (const i of [...this.replaced.keys()].sort((a, b) => a - b)) {
      if (this.isRemoved(this.groupOf[i] as number)) continue
      truncated.push({
        original: this.list[i] as M,
        // Present: `i` is a key of `replaced`.
        message: this.replaced.get(i) as M,
        index: i,
        tokensBefore: this.original[i] as number,
        tokensAfter: this.cost[i] as number
      })
    }
    // With the caller's cache, or after a counter failure (the texts that fell back are tried again), `kept` is
    // counted again through `conversationCost`. Otherwise every count of `kept` is known, by position, and the
    // per-call cache would only hand them back: they are added up instead, and counting nothing still reports
    // the settings the counting adjusted.
    const recount = this.cache !== undefined || this.failed
      ? conversationCost(kept, this.costOptions())
      : { total: sum, diagnostics: conversationCost([], this.costOptions()).diagnostics }
    const known = new Set(
      this.diagnostics.map((d) => d._tag === "CounterFailed" ? `${d.counter}\u0000${d.failure}` : "")
    )
    for (const d of recount.diagnostics) {
      // Texts that fell back were counted (and reported) already; report only what is new.
      if (d._tag !== "CounterFailed" || !known.has(`${d.counter}\u0000${d.failure}`)) this.diagnostics.push(d)
    }
    const tokens = recount.total
    if (Math.abs(tokens - this.total) > 1e-6 * Math.max(1, Math.abs(tokens))) {
      this.diagnostics.push(new RecountMismatch({ running: this.total, recount: tokens }))
    }
    const fits = this.inputUsable && this.budgetUsable && tokens <= this.budget
    if (this.inputUsable && this.budgetUsable && !fits) {
      this.diagnostics.push(new ProtectedOverBudget({ protectedTokens: tokens, budget: this.budget }))
    }
    return {
      kept,
      excluded,
      truncated,
      inserted,
      tokens,
      budget: this.budget,
      fits,
      diagnostics: this.diagnostics,
      ...(extra.summaryCreated === undefined ? {} : { summaryCreated: extra.summaryCreated }),
      ...(extra.manualFallback === undefined ? {} : { manualFallback: extra.manualFallback })
    }
  }
}

/** The marker placed where a compressed text lost its middle. */
export const omissionMarker = (omitted: number): string =>
  `[… ${omitted} characters omitted to fit the context window …]`

/**
 * `text` keeping about `ratio` of its characters, 60% from its head and 40% from its tail, joined by the
 * omission marker on its own line; undefined when that would not make it shorter.
 */
export const cutMiddle = (text: string, ratio: number): string | undefined => {
  const keep = Math.floor(text.length * Math.max(0, Math.min(1, ratio)))
  const head = safeHead(text, Math.ceil(keep * 0.6))
  const tail = safeTail(text, keep - head.length)
  const omitted = text.length - head.length - tail.length
  const out = `${head}\n${omissionMarker(omitted)}\n${tail}`
  return out.length < text.length ? out : undefined
}

const ids = <M>(format: MessageFormat<M>, m: M): string =>
  JSON.stringify([
    format.role(m),
    format.id(m) ?? null,
    format.toolCalls(m).map((c) => c.id),
    format.toolResults(m).map((r) => r.callId)
  ])

/** Same role, message id, call ids and result ids: a rewrite that changed any of them is not used. */
const sameShape = <M>(format: MessageFormat<M>, a: M, b: M): boolean => ids(format, a) === ids(format, b)
