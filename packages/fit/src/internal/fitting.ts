/**
 * The fitting engine every built-in strategy runs on, in four steps:
 *
 * 1. {@link startFitting} reads the arguments (`readSettings`), splits the conversation into tool-call
 *    groups (`toolGroups`: a call and its results, wherever they are, are kept or dropped together), finds the
 *    protected ones, and charges them: they are kept whatever happens.
 * 2. A strategy puts the other groups in its removal order (`removalOrder`: oldest first by default) and calls
 *    `shift`, which keeps the newest groups of that order that still fit ({@link keepNewest}) and removes the
 *    rest.
 * 3. The `summarize` strategy may then insert a note ({@link insertNote}) and make room for it with
 *    {@link keepNewest} again.
 * 4. {@link finishFitting} assembles the result and checks the running total against a sum of what is sent.
 *
 * Prices: each input message is priced at most once ({@link costAt}), through the one pricing function, and only
 * when a decision needs it. Removing "the oldest groups until the rest fits" keeps a suffix of the removal order,
 * so the engine finds that suffix from its newest end and never prices the groups older than the cut — with a real
 * tokenizer most of the work of fitting a long conversation — unless the caller asks (`countExcluded`).
 *
 * All state is local to one call and never escapes: the result holds new arrays and the caller's own messages.
 */
import { estimateTokens } from "@ctxkit/budget"
import { conversationMessages, type ToolGroups, toolGroups } from "@ctxkit/core"
import { currentRequest } from "@ctxkit/core/CurrentRequest"
import { describeValue } from "@ctxkit/core/Describe"
import * as Result from "effect/Result"
import type { FitDiagnostic } from "../Diagnostics.ts"
import { NotAConversation, ProtectedOverBudget, RecountMismatch } from "../Diagnostics.ts"
import type { ExcludedMessage, FitReason, FitResult, TruncatedBlock } from "../FitResult.ts"
import { absorb, makePrice, type Price } from "./pricing.ts"
import { readSettings, type Settings } from "./settings.ts"

/** A group's state: not decided yet, kept (its cost is in the total), or removed. */
const PENDING = 0
const KEPT = 1
const REMOVED = 2

/** A message sent in place of an input message: a compressed or partial copy. */
export interface Copy<M> {
  readonly message: M
  readonly cost: number
}

/** A message that is not from the input (the summary), placed before input index `before`. */
interface Note<M> {
  readonly before: number
  readonly message: M
  readonly cost: number
}

/** One fitting in progress. */
export interface Fitting<M> {
  readonly input: ReadonlyArray<M>
  readonly settings: Settings<M>
  readonly price: Price<M>
  /**
   * The tool-call groups, numbered `0 … groupCount - 1` by their first (oldest) member. Group `g`'s input indices,
   * ascending, are `members[start[g]]` up to `members[start[g + 1] - 1]`: one flat list, no array per group.
   */
  readonly groupCount: number
  readonly members: Int32Array
  readonly start: Int32Array
  /** The grouping itself: its `groups` are arrays of input indices, built on first read (for callbacks and rarer steps). */
  readonly grouping: ToolGroups
  readonly groupOf: ReadonlyArray<number>
  /** Per group: 1 when it holds a protected message (never removed, never compressed). */
  readonly locked: Uint8Array
  /** Index of the current request (the last user message that is not a summary), or -1. */
  readonly request: number
  /** Per group: PENDING, KEPT or REMOVED. */
  readonly state: Uint8Array
  /** Removed groups, in removal order, and why each was removed (`reasons[k]` for `removed[k]`). */
  readonly removed: Array<number>
  readonly reasons: Array<FitReason>
  /** Per input message: what it costs, NaN until priced (a copy's cost once it has one). */
  readonly costs: Float64Array
  /** Copies sent in place of input messages, by input index, with what the originals cost. */
  readonly copies: Map<number, Copy<M> & { readonly original: number }>
  readonly notes: Array<Note<M>>
  readonly diagnostics: Array<FitDiagnostic>
  /** What the kept groups and notes cost, kept up to date by every step. */
  total: number
}

/** Step 1: reads the arguments, groups and protects, and charges the protected groups. */
export const startFitting = <M>(
  messages: unknown,
  countTokens: unknown,
  budget: unknown,
  options: unknown
): Fitting<M> => {
  const diagnostics: Array<FitDiagnostic> = []
  let input: ReadonlyArray<M> = []
  const conversation = conversationMessages(messages)
  if (Result.isSuccess(conversation)) input = conversation.success as ReadonlyArray<M>
  else {
    diagnostics.push(
      new NotAConversation({ given: conversation.failure.issues[0]?.message ?? describeValue(messages) })
    )
  }
  const settings = readSettings<M>(countTokens, budget, options, diagnostics)
  const { format } = settings
  const grouping = toolGroups(input, format)
  const { groupOf } = grouping
  const n = input.length
  // Every per-message and per-group array of the fitting lives in one buffer: a typed array has a fixed cost
  // to allocate and to collect that is larger than filling a thousand entries, and there are five of them.
  // A conversation has at most `n` groups, so `n` entries are room enough for each per-group array.
  const buffer = new ArrayBuffer(8 * n + 4 * (2 * n + 2) + 2 * n)
  const costs = new Float64Array(buffer, 0, n).fill(Number.NaN)
  const { count: groupCount, members, start } = flatGroups(
    groupOf,
    new Int32Array(buffer, 8 * n, n),
    new Int32Array(buffer, 12 * n, n + 2)
  )
  const locked = new Uint8Array(buffer, 16 * n + 8, groupCount)
  const state = new Uint8Array(buffer, 17 * n + 8, groupCount)

  const request = currentRequest(input, format)
  const protectedRequest = settings.protectCurrentRequest ? request : -1
  for (let i = 0; i < n; i++) {
    const m = input[i] as M
    if (i === protectedRequest || format.isProtected(m) || format.isPinned(m)) locked[groupOf[i] as number] = 1
  }

  const f: Fitting<M> = {
    input,
    settings,
    price: makePrice(settings, diagnostics),
    groupCount,
    members,
    start,
    grouping,
    groupOf,
    locked,
    request,
    state,
    reasons: [],
    removed: [],
    costs,
    copies: new Map(),
    notes: [],
    diagnostics,
    total: 0
  }
  // The protected groups are charged first: every later decision is about the room they leave.
  for (let g = 0; g < groupCount; g++) {
    if (locked[g] === 1) keep(f, g)
  }
  return f
}

/**
 * The groups of `groupOf` as one flat list (a counting sort by group), written into the two arrays given (`members`
 * of `groupOf.length` entries, `cursor` two more): how many groups there are, and for each its members in ascending
 * order, `members[start[g]] … members[start[g + 1] - 1]`. Groups are numbered by their first member, so a message
 * opens a new group exactly when its group number is the count so far.
 */
const flatGroups = (
  groupOf: ReadonlyArray<number>,
  members: Int32Array,
  cursor: Int32Array
): { readonly count: number; readonly members: Int32Array; readonly start: Int32Array } => {
  const n = groupOf.length
  // The size of each group g in cursor[g + 1]; running sums make cursor[g + 1] where group g ends.
  let count = 0
  for (let i = 0; i < n; i++) {
    const g = groupOf[i] as number
    if (g === count) count++
    cursor[g + 1] = (cursor[g + 1] as number) + 1
  }
  for (let g = 1; g <= count; g++) cursor[g] = (cursor[g] as number) + (cursor[g - 1] as number)
  // Filled from the last message back, each group's cursor moves from its end to its beginning, so that
  // cursor[g + 1] ends where group g begins: the starts are `cursor` shifted by one, closed by `n`.
  for (let i = n - 1; i >= 0; i--) {
    const at = (cursor[(groupOf[i] as number) + 1] as number) - 1
    members[at] = i
    cursor[(groupOf[i] as number) + 1] = at
  }
  cursor[count + 1] = n
  return { count, members, start: cursor.subarray(1, count + 2) }
}

/** What input message `i` costs now, priced on first use. */
export const costAt = <M>(f: Fitting<M>, i: number): number => {
  const known = f.costs[i] as number
  if (!Number.isNaN(known)) return known
  const cost = f.price(f.input[i] as M)
  f.costs[i] = cost
  return cost
}

/** The tokens of `text` alone (the summary's cap is on its text), guarded like every count. */
export const countText = <M>(f: Fitting<M>, text: string): number => {
  const estimate = estimateTokens(text, f.settings.counter)
  if (estimate.diagnostics.length > 0) absorb(f.diagnostics, estimate.diagnostics)
  return estimate.tokens
}

/** What group `g` costs now. */
export const groupCost = <M>(f: Fitting<M>, g: number): number => {
  let sum = 0
  for (let k = f.start[g] as number, end = f.start[g + 1] as number; k < end; k++) {
    sum += costAt(f, f.members[k] as number)
  }
  return sum
}

/** Whether the total plus `room` fits the budget. Never true on an unusable budget. */
export const fits = <M>(f: Fitting<M>, room = 0): boolean =>
  f.settings.budgetUsable && f.total + room <= f.settings.budget

export const isRemoved = <M>(f: Fitting<M>, g: number): boolean => f.state[g] === REMOVED

/** Keeps group `g`, adding its cost to the total. */
export const keep = <M>(f: Fitting<M>, g: number): void => {
  if (f.state[g] === KEPT) return
  f.state[g] = KEPT
  f.total += groupCost(f, g)
}

/** Removes group `g` (never a locked one); false when it could not be removed or already was. */
export const removeGroup = <M>(f: Fitting<M>, g: number, reason: FitReason): boolean => {
  if (f.locked[g] === 1 || f.state[g] === REMOVED) return false
  if (f.state[g] === KEPT) f.total -= groupCost(f, g)
  f.state[g] = REMOVED
  f.removed.push(g)
  f.reasons.push(reason)
  return true
}

/** Every group not decided yet is kept (priced): for the steps that need the whole total, like compression. */
export const keepAll = <M>(f: Fitting<M>): void => {
  for (let g = 0; g < f.groupCount; g++) if (f.state[g] === PENDING) keep(f, g)
}

/**
 * Keeps the newest groups of `order` that fit with `room` to spare, and removes the others, oldest first: the
 * same as removing groups from the front of `order` until the rest fits, since that always leaves a suffix of
 * `order`. Found from the newest end, it prices only the groups it keeps and the first one that does not fit.
 * Returns how many groups it removed. `atCut`, when given, is offered the group at the cut first (the partial
 * step): when it keeps that group (or a part of it), the cut moves past it.
 */
export const keepNewest = <M>(
  f: Fitting<M>,
  order: ReadonlyArray<number>,
  reason: FitReason,
  room = 0,
  atCut?: (group: number) => boolean
): number => {
  // The walk reads the fitting's arrays and keeps the running total in locals, written back once: updating a
  // field of the fitting at every step cost more than the rest of the walk.
  const { locked, state } = f
  const { budget, budgetUsable } = f.settings
  let total = f.total
  // The order's kept groups leave the total; the walk below puts back those that still fit.
  for (let k = 0; k < order.length; k++) {
    const g = order[k] as number
    if (state[g] === KEPT && locked[g] === 0) {
      total -= groupCost(f, g)
      state[g] = PENDING
    }
  }
  let cut = order.length - 1
  for (; cut >= 0; cut--) {
    const g = order[cut] as number
    if (state[g] !== PENDING || locked[g] === 1) continue
    const cost = groupCost(f, g)
    if (!budgetUsable || total + cost + room > budget) break
    state[g] = KEPT
    total += cost
  }
  f.total = total
  if (cut >= 0 && atCut !== undefined && atCut(order[cut] as number)) cut--
  let removed = 0
  for (let k = 0; k <= cut; k++) if (removeGroup(f, order[k] as number, reason)) removed++
  return removed
}

/** Places `message` before input index `before` (moved earlier past messages that attach to the next one). */
export const insertNote = <M>(f: Fitting<M>, message: M, cost: number, before: number): void => {
  let at = before
  for (;;) {
    let previous = at - 1
    while (previous >= 0 && isRemoved(f, f.groupOf[previous] as number)) previous--
    if (previous < 0 || !f.settings.format.attachesToNext(f.input[previous] as M)) break
    at = previous
  }
  f.notes.push({ before: at, message, cost })
  f.total += cost
}

/** Replaces input message `i` by `copy` (compressed or partial), adjusting the total when its group is kept. */
export const replace = <M>(f: Fitting<M>, i: number, copy: Copy<M>): void => {
  const original = f.copies.get(i)?.original ?? costAt(f, i)
  if (f.state[f.groupOf[i] as number] === KEPT) f.total += copy.cost - costAt(f, i)
  f.costs[i] = copy.cost
  f.copies.set(i, { ...copy, original })
}

/** The removed input messages, in input order (what a summary summarizes). */
export const removedInInputOrder = <M>(f: Fitting<M>): Array<M> =>
  f.input.filter((_, i) => f.state[f.groupOf[i] as number] === REMOVED)

/** Step 4: the result — kept in order with notes and copies, excluded in removal order — and its checks. */
export const finishFitting = <M>(
  f: Fitting<M>,
  extra: Pick<FitResult<M>, "summaryCreated" | "manualFallback"> = {}
): FitResult<M> => {
  keepAll(f)
  const { input, groupOf, state } = f
  const notes = f.notes.length > 1 ? [...f.notes].sort((a, b) => a.before - b.before) : f.notes
  // `kept` is made at its final length: the messages of the groups not removed, and the notes (set again after
  // the pass, so that it is exact whatever the count).
  let size = input.length + notes.length
  for (const g of f.removed) size -= (f.start[g + 1] as number) - (f.start[g] as number)
  const kept = new Array<M>(size)
  let k = 0
  const inserted: Array<M> = []
  const truncated: Array<TruncatedBlock<M>> = []
  const hasCopies = f.copies.size > 0
  // What is sent, added up in the order it is sent from the prices of its messages, to check the running total.
  // One pass to `input.length` inclusive: the notes placed before index `i` go first, then message `i`.
  let tokens = 0
  let next = 0
  for (let i = 0; i <= input.length; i++) {
    for (; next < notes.length && (notes[next] as Note<M>).before <= i; next++) {
      const note = notes[next] as Note<M>
      kept[k++] = note.message
      inserted.push(note.message)
      tokens += note.cost
    }
    if (i === input.length || state[groupOf[i] as number] === REMOVED) continue
    const copy = hasCopies ? f.copies.get(i) : undefined
    kept[k++] = copy?.message ?? input[i] as M
    tokens += costAt(f, i)
    if (copy !== undefined) {
      truncated.push({
        original: input[i] as M,
        message: copy.message,
        index: i,
        tokensBefore: copy.original,
        tokensAfter: copy.cost
      })
    }
  }
  kept.length = k

  // With `countExcluded`, pricing the excluded messages can report a counter failure, so they are priced and
  // listed now; otherwise the list is built when first read: a caller that only sends `kept` never pays for an
  // entry per removed message (about half of a long conversation), and one that reads it gets the same entries.
  // The list is made from what the removal left (not from the fitting), so a result the caller keeps does not
  // keep the fitting's grouping, prices and pricing state too.
  if (f.settings.countExcluded) {
    for (const g of f.removed) {
      for (let k = f.start[g] as number, end = f.start[g + 1] as number; k < end; k++) costAt(f, f.members[k] as number)
    }
  }
  const removal: Removal<M> = {
    input,
    removed: f.removed,
    reasons: f.reasons,
    start: f.start,
    members: f.members,
    copies: f.copies,
    costs: f.costs
  }
  let excluded: ReadonlyArray<ExcludedMessage<M>> | undefined = f.settings.countExcluded
    ? excludedOf(removal)
    : undefined

  const diagnostics = f.diagnostics
  if (Math.abs(tokens - f.total) > 1e-6 * Math.max(1, Math.abs(tokens))) {
    diagnostics.push(new RecountMismatch({ running: f.total, recount: tokens }))
  }
  const { budget, budgetUsable } = f.settings
  // A wrong input (not a conversation) never fits: an empty "success" would hide it.
  const inputUsable = !diagnostics.some((d) => d._tag === "NotAConversation")
  const fit = inputUsable && budgetUsable && tokens <= budget
  if (inputUsable && budgetUsable && !fit) {
    diagnostics.push(new ProtectedOverBudget({ protectedTokens: tokens, budget }))
  }
  return {
    kept,
    get excluded() {
      return excluded ??= excludedOf(removal)
    },
    truncated,
    inserted,
    tokens,
    budget,
    fits: fit,
    diagnostics,
    ...(extra.summaryCreated === undefined ? {} : { summaryCreated: extra.summaryCreated }),
    ...(extra.manualFallback === undefined ? {} : { manualFallback: extra.manualFallback })
  }
}

/** What the list of excluded messages is made from: the removed groups, why, their members and their prices. */
type Removal<M> = Pick<Fitting<M>, "input" | "removed" | "reasons" | "start" | "members" | "copies" | "costs">

/** The removed messages in removal order, each with its price when it has one (the original's, for a copy). */
const excludedOf = <M>(r: Removal<M>): ReadonlyArray<ExcludedMessage<M>> => {
  const excluded: Array<ExcludedMessage<M>> = []
  const hasCopies = r.copies.size > 0
  for (let at = 0; at < r.removed.length; at++) {
    const g = r.removed[at] as number
    const reason = r.reasons[at] as FitReason
    for (let k = r.start[g] as number, end = r.start[g + 1] as number; k < end; k++) {
      const i = r.members[k] as number
      const message = r.input[i] as M
      const cost = (hasCopies ? r.copies.get(i)?.original : undefined) ?? r.costs[i] as number
      excluded.push(Number.isNaN(cost) ? { message, index: i, reason } : { message, index: i, reason, tokens: cost })
    }
  }
  return excluded
}
