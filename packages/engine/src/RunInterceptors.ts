/**
 * `runInterceptors`: plugin interceptors over a fitted prompt, under the host's rules — by priority, each under
 * a timeout, additions unpinned and marked as plugin content, protected messages restored, failures skipped —
 * followed by a mandatory recount and final fit, so that no interceptor can add messages late to slip over the
 * limit.
 *
 * @since 0.1.0
 */
import { detectMessageFormat, type FormatInput, type MessageFormat, toolGroups } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import type { CountTokens, ExcludedMessage, FitOptions, FitResult, TruncatedBlock } from "@ctxkit/fit"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import {
  FinalFitApplied,
  type InterceptorDiagnostic,
  InterceptorRestored,
  InterceptorSkipped
} from "./HostDiagnostics.ts"
import {
  appendDiagnostics,
  attempt,
  budgetUsable,
  clip,
  costingOf,
  costs,
  durationOr,
  formatOf,
  hostFit,
  isObject,
  keptSlots,
  nextInputSlots,
  Occurrences,
  protectedPositions
} from "./internal/host.ts"
import type { DroppedBlock } from "./RunStrategy.ts"

/**
 * How long the host waits for each interceptor: 2 seconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_INTERCEPTOR_TIMEOUT } from "@ctxkit/engine/RunInterceptors"
 *
 * DEFAULT_INTERCEPTOR_TIMEOUT // "2 seconds"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_INTERCEPTOR_TIMEOUT: Duration.Input = "2 seconds"

/**
 * What an interceptor is told besides the messages: the format (to make messages with `makeNote`), the counter
 * and the budget (what it adds beyond the budget is removed again), and whether this is a preview (an interceptor
 * with side effects should skip them then, and return the same messages).
 *
 * @example
 * ```ts
 * import type { InterceptorContext } from "@ctxkit/engine/RunInterceptors"
 *
 * const note = <M>(context: InterceptorContext<M>): M =>
 *   context.format.makeNote("Today is Tuesday.", { role: "user", kind: "note" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InterceptorContext<M> {
  /** The wire format of the messages. */
  readonly format: MessageFormat<M>
  /** The host's counter. */
  readonly countTokens: CountTokens
  /** The token budget of the prompt. */
  readonly budget: number
  /** True during `preview`: nothing will be sent. */
  readonly preview: boolean
}

/**
 * A plugin interceptor: it sees the fitted prompt and returns the messages to send instead — some of the messages
 * it was given, in their order, plus messages of its own — synchronously or as an Effect.
 *
 * What the host guarantees (see {@link runInterceptors}): interceptors run by `priority` (higher first), each
 * under a timeout; one that throws, fails, hangs or returns garbage is skipped; protected messages it removes,
 * and the rest of tool-call groups it splits, are put back; messages it adds are unpinned plugin content
 * (`source: "plugin"` in the canonical format), first to go when the final fit needs room; and a final recount
 * and fit keep the prompt within the budget. Added messages must not carry tool calls, results or other links.
 * It must not mutate the messages it is given.
 *
 * @example
 * ```ts
 * import type { PromptInterceptor } from "@ctxkit/engine"
 *
 * // Adds a retrieved note just before the last message.
 * const retrieved: PromptInterceptor = {
 *   id: "acme/rag",
 *   priority: 10,
 *   intercept: (messages, { format }) => [
 *     ...messages.slice(0, -1),
 *     format.makeNote("[retrieved] The build uses tsc -b.", { role: "user", kind: "note" }),
 *     ...messages.slice(-1)
 *   ]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PromptInterceptor<M = unknown> {
  /** A stable id, shown in diagnostics and the audit. */
  readonly id: string
  /** Higher runs first; equal priorities run in the order given. Default 0. */
  readonly priority?: number | undefined
  /** The messages to send instead of `messages`. */
  readonly intercept: (
    messages: ReadonlyArray<M>,
    context: InterceptorContext<M>
  ) => ReadonlyArray<M> | Effect.Effect<ReadonlyArray<M>, unknown>
}

/**
 * Options of {@link runInterceptors}: those of fitting (the format, the overhead, the cache, whether the current
 * request is protected), the timeout of each interceptor, and whether this is a preview.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import type { RunInterceptorsOptions } from "@ctxkit/engine/RunInterceptors"
 *
 * const options: RunInterceptorsOptions<Message> = { format: formats.canonical, timeout: "500 millis" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RunInterceptorsOptions<M> extends FitOptions<M> {
  /**
   * How long each interceptor may run. Default {@link DEFAULT_INTERCEPTOR_TIMEOUT}; a value that is not a duration
   * >= 0 is replaced by the default. A synchronous interceptor cannot be interrupted.
   */
  readonly timeout?: Duration.Input | undefined
  /** Tells the interceptors this is a preview (`InterceptorContext.preview`). Default false. */
  readonly preview?: boolean | undefined
}

/**
 * An input message an interceptor removed, by its index in the input.
 *
 * @example
 * ```ts
 * import type { InterceptorRemoval } from "@ctxkit/engine/RunInterceptors"
 *
 * const removal: InterceptorRemoval = { index: 4, interceptor: "acme/dedupe" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InterceptorRemoval {
  /** Index of the message in the input of the fitting. */
  readonly index: number
  /** The interceptor that removed it. */
  readonly interceptor: string
}

/**
 * A message an interceptor added, as sent, and which interceptor added it.
 *
 * @example
 * ```ts
 * import type { InterceptorAddition } from "@ctxkit/engine/RunInterceptors"
 *
 * const addition: InterceptorAddition<{ readonly role: string; readonly content: string }> = {
 *   message: { role: "user", content: "[retrieved] …" },
 *   interceptor: "acme/rag"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InterceptorAddition<M> {
  /** The message, as sent. */
  readonly message: M
  /** The interceptor that added it. */
  readonly interceptor: string
}

/**
 * What {@link runInterceptors} returns: the final result and what happened on the way.
 *
 * @example
 * ```ts
 * import { runInterceptors } from "@ctxkit/engine"
 * import type { InterceptorRun } from "@ctxkit/engine/RunInterceptors"
 * import { shiftContext } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const count = (text: string) => Math.ceil(text.length / 4)
 * const fitted = shiftContext([{ role: "user", content: "hi" }], count, 100)
 * const run: InterceptorRun<{ readonly role: string; readonly content: string }> = Effect.runSync(
 *   runInterceptors(fitted, [], count, 100)
 * )
 * run.result.kept.length // 1
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InterceptorRun<M> {
  /**
   * The final result, over the same input as the fitted one: `kept` is what is sent; `excluded` adds the input
   * messages interceptors removed (`interceptor`) and those the final fit removed (`final-budget`); `inserted`
   * holds the strategy's notes and the interceptors' additions that are sent.
   */
  readonly result: FitResult<M>
  /** Messages added by interceptors that are sent (canonical ones marked `source: "plugin"`, unpinned), in order. */
  readonly added: ReadonlyArray<InterceptorAddition<M>>
  /** Input messages interceptors removed, in removal order. */
  readonly removed: ReadonlyArray<InterceptorRemoval>
  /** Notes and interceptor additions removed again, by an interceptor or the final fit. */
  readonly dropped: ReadonlyArray<DroppedBlock<M>>
  /** The interceptors whose output was used, in run order. */
  readonly ran: ReadonlyArray<string>
  /** The interceptors skipped (failed, timed out, or returned garbage), in run order. */
  readonly skipped: ReadonlyArray<string>
  /** Whether the final fit had to remove messages. */
  readonly finalFit: boolean
  /** What the host did and why. */
  readonly diagnostics: ReadonlyArray<InterceptorDiagnostic>
}

/** Where a message of the working list comes from. */
interface Info<M> {
  /** Index of the input message it stands for, or -1 (a note or an interceptor's addition). */
  readonly slot: number
  readonly origin: "input" | "copy" | "inserted" | "plugin"
  /** The input message, for `input` and `copy`. */
  readonly original: M
  /** Protected by the host's rules (never removed). */
  readonly protected: boolean
  /** The interceptor that added it, for `plugin`. */
  readonly by?: string | undefined
}

const idOf = (value: unknown): string => {
  const id = isObject(value) ? value["id"] : undefined
  return typeof id === "string" ? id : describeValue(id)
}

const priorityOf = (value: unknown): number => {
  const priority = isObject(value) ? value["priority"] : undefined
  return typeof priority === "number" && !Number.isNaN(priority) ? priority : 0
}

/** Fields only the canonical format has: a message with one of them is canonical whatever reads it. */
const CANONICAL_ONLY = ["toolCalls", "toolCallId", "summary", "source"]

/**
 * An interceptor's addition as plugin content: in the canonical format (under `formats.auto`, only a message that
 * has a canonical-only field: a plain `{ role, content }` may be bound for a provider that rejects unknown fields),
 * a copy with `source: "plugin"` and without `pinned` or `meta.pinned`. Other wire formats have no field the lens
 * can set for this, and adding one could make the provider reject the request: their messages are left as they
 * are, and the host treats them as unpinned plugin content in every decision it makes.
 */
const asPluginContent = <M>(format: MessageFormat<M>, m: M): M => {
  if (!isObject(m) || Array.isArray(m)) return m
  const canonical = format.name === "auto"
    ? detectMessageFormat(m).name === "canonical" && CANONICAL_ONLY.some((key) => key in m)
    : format.name === "canonical"
  if (!canonical) return m
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(m)) {
    if (key === "pinned") continue
    if (key === "meta" && isObject(value) && !Array.isArray(value) && "pinned" in value) {
      out[key] = Object.fromEntries(Object.entries(value).filter(([k]) => k !== "pinned"))
      continue
    }
    out[key] = value
  }
  out["source"] = "plugin"
  return out as M
}

type Applied<M> =
  | {
    readonly ok: true
    readonly list: ReadonlyArray<M>
    readonly info: ReadonlyArray<Info<M>>
    /** Positions of the previous list removed (not restored). */
    readonly removed: ReadonlyArray<number>
    readonly restored: number
    readonly restoredProtected: boolean
  }
  | { readonly ok: false; readonly detail: string }

/** An interceptor's output applied to `list` under the host's rules, or why it cannot be. */
const apply = <M>(
  list: ReadonlyArray<M>,
  info: ReadonlyArray<Info<M>>,
  out: unknown,
  format: MessageFormat<M>,
  by: string
): Applied<M> => {
  if (!Array.isArray(out)) return { ok: false, detail: `it returned ${describeValue(out)}` }
  const occurrences = new Occurrences(list)
  const present = new Uint8Array(list.length)
  const items: Array<number | { readonly added: M }> = []
  const seen = new Set<unknown>()
  let last = -1
  for (let k = 0; k < out.length; k++) {
    const m = out[k] as M
    if (occurrences.has(m)) {
      const at = occurrences.next(m, last)
      if (at < 0) return { ok: false, detail: `output[${k}] reorders or repeats a message` }
      present[at] = 1
      items.push(at)
      last = at
      continue
    }
    if (!isObject(m) || Array.isArray(m)) {
      return { ok: false, detail: `output[${k}] is ${describeValue(m)}, not a message` }
    }
    if (seen.has(m)) return { ok: false, detail: `output[${k}] repeats an added message` }
    const issue = format.validate(m, `output[${k}]`)[0]
    if (issue !== undefined) return { ok: false, detail: `${issue.path}: ${clip(issue.message, 120)}` }
    if (format.links(m).length > 0 || format.attachesToNext(m)) {
      return { ok: false, detail: `added output[${k}] carries tool calls, results or other links` }
    }
    seen.add(m)
    items.push({ added: asPluginContent(format, m) })
  }

  // Put back protected messages, then the rest of every group that is now only partly there.
  const restore = new Uint8Array(list.length)
  let restored = 0
  let restoredProtected = false
  for (let p = 0; p < list.length; p++) {
    if (present[p] === 0 && (info[p] as Info<M>).protected) {
      restore[p] = 1
      restored++
      restoredProtected = true
    }
  }
  for (const group of toolGroups(list, format).groups) {
    if (group.length < 2) continue
    let there = 0
    for (const p of group) if (present[p] === 1 || restore[p] === 1) there++
    if (there === 0 || there === group.length) continue
    for (const p of group) {
      if (present[p] === 0 && restore[p] === 0) {
        restore[p] = 1
        restored++
      }
    }
  }

  // Restored messages go back just before the next message of the previous list that is still there.
  const next: Array<M> = []
  const nextInfo: Array<Info<M>> = []
  let cursor = 0
  const flush = (end: number): void => {
    for (; cursor < end; cursor++) {
      if (restore[cursor] === 1) {
        next.push(list[cursor] as M)
        nextInfo.push(info[cursor] as Info<M>)
      }
    }
  }
  for (const item of items) {
    if (typeof item === "number") {
      flush(item)
      cursor = item + 1
      next.push(list[item] as M)
      nextInfo.push(info[item] as Info<M>)
    } else {
      next.push(item.added)
      nextInfo.push({ slot: -1, origin: "plugin", original: item.added, protected: false, by })
    }
  }
  flush(list.length)

  // An addition must stand alone: no message may travel with it.
  const { groupOf, groups } = toolGroups(next, format)
  for (let p = 0; p < next.length; p++) {
    if ((nextInfo[p] as Info<M>).origin === "plugin" && (groups[groupOf[p] as number] ?? []).length > 1) {
      return { ok: false, detail: "an added message was placed where it joins a tool-call group" }
    }
  }
  const removed: Array<number> = []
  for (let p = 0; p < list.length; p++) if (present[p] === 0 && restore[p] === 0) removed.push(p)
  return { ok: true, list: next, info: nextInfo, removed, restored, restoredProtected }
}

const NOTHING: FitResult<never> = {
  kept: [],
  excluded: [],
  truncated: [],
  inserted: [],
  tokens: 0,
  budget: 0,
  fits: false,
  diagnostics: []
}

/** Whether `value` has the arrays of a fitting result (anything else is read as an empty result that does not fit). */
const isResult = <M>(value: FitResult<M>): boolean =>
  isObject(value) && Array.isArray(value.kept) && Array.isArray(value.excluded) && Array.isArray(value.truncated) &&
  Array.isArray(value.inserted) && Array.isArray(value.diagnostics)

/** Per position: the input index of the next input-derived message from there on, or `end`. */
const nextSlots = <M>(info: ReadonlyArray<Info<M>>, end: number): Int32Array =>
  nextInputSlots(info.map((at) => at.slot), end)

/** Where each message of a fitted result's `kept` comes from, and the input's length. */
const origins = <M>(
  fitted: FitResult<M>,
  format: MessageFormat<M>,
  protectCurrentRequest: boolean | undefined
): { readonly info: Array<Info<M>>; readonly inputLength: number } => {
  const { inputLength, slots } = keptSlots(fitted)
  const copies = new Map(fitted.truncated.map((t) => [t.message, t.original]))
  const isNote = (p: number): boolean => slots[p] === -1
  const protectedAt = protectedPositions(fitted.kept, format, protectCurrentRequest, isNote)
  // A message in a tool-call group with a protected one is protected too.
  const { groupOf } = toolGroups(fitted.kept, format)
  const lockedGroups = new Set<number>()
  for (let p = 0; p < fitted.kept.length; p++) if (protectedAt[p] === 1) lockedGroups.add(groupOf[p] as number)
  const info = fitted.kept.map((m, p): Info<M> => {
    const slot = slots[p] as number
    if (slot < 0) return { slot, origin: "inserted", original: m, protected: false }
    const locked = protectedAt[p] === 1 || lockedGroups.has(groupOf[p] as number)
    return copies.has(m)
      // Present: `copies` has `m`.
      ? { slot, origin: "copy", original: copies.get(m) as M, protected: locked }
      : { slot, origin: "input", original: m, protected: locked }
  })
  return { info, inputLength }
}

/**
 * Runs plugin interceptors over a fitted prompt (the result of `runStrategy`, `shiftContext` or a strategy), then
 * recounts and fits it again: counting and fitting run BEFORE the interceptors, and a mandatory recount and final
 * fit AFTER them, so that an interceptor cannot add messages late to slip over the limit.
 *
 * - Interceptors run one after the other by `priority` (higher first; equal ones in the order given), each on the
 *   previous one's output, each under `timeout` (default 2 s; an interceptor that returns an Effect is interrupted
 *   when it takes longer; a synchronous one cannot be interrupted).
 * - One that throws, fails, dies or times out is skipped (`InterceptorSkipped`) and the run goes on with the
 *   messages it was given; so is one whose output is not a list of the messages it was given, in their order,
 *   plus new messages the format can read that carry no tool calls, results or other links.
 * - Protected messages it removed (system from the system itself, pinned, the current request, and their
 *   tool-call groups), and the rest of any group it removed only part of, are put back where they were
 *   (`InterceptorRestored`).
 * - Messages it adds are unpinned plugin content: in the canonical format a copy with `source: "plugin"` and
 *   without `pinned` (under `formats.auto`, only messages with a canonical-only field); in other formats the
 *   message as it is (they have no such field), treated by the host as unpinned plugin content all the same. Rewriting a message is removing it and adding the copy; the original
 *   comes back when it was protected.
 * - Then the host recounts with its own counter; when over, the final fit (built-in truncation, protection decided
 *   by the host) removes the interceptors' additions first, then the oldest history (`FinalFitApplied`).
 *
 * When the fitted result does not fit, nothing will be sent: the interceptors are not run. Never fails. Given a
 * `format`, the run is typed as the caller's own message type, like `shiftContext`'s.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { type PromptInterceptor, runInterceptors } from "@ctxkit/engine"
 * import { shiftContext } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const count = (text: string) => Math.ceil(text.length / 4)
 * const messages: ReadonlyArray<Message> = [
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "What is ctxkit?" }
 * ]
 * // Tries to slip 4,000 characters in, pinned.
 * const greedy: PromptInterceptor<Message> = {
 *   id: "greedy",
 *   intercept: (list) => [...list, { role: "user", content: "x".repeat(4_000), pinned: true }]
 * }
 * const fitted = shiftContext(messages, count, 50, { format: formats.canonical })
 * const run = Effect.runSync(runInterceptors(fitted, [greedy], count, 50, { format: formats.canonical }))
 * run.result.kept.length // 2: the addition was removed by the final fit
 * run.diagnostics[0]?.message
 * // "after the interceptors the prompt costs 1019 tokens, over the budget of 50; the final fit removed 1 messages"
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export const runInterceptors: {
  <M>(
    fitted: FitResult<M>,
    interceptors: ReadonlyArray<PromptInterceptor<M>>,
    countTokens: CountTokens,
    budget: number,
    options?: RunInterceptorsOptions<M> | undefined
  ): Effect.Effect<InterceptorRun<M>>
  <M extends FormatInput<F>, F>(
    fitted: FitResult<M>,
    interceptors: ReadonlyArray<PromptInterceptor<M>>,
    countTokens: CountTokens,
    budget: number,
    options: RunInterceptorsOptions<F> & { readonly format: MessageFormat<F> }
  ): Effect.Effect<InterceptorRun<M>>
} = Effect.fn("runInterceptors")(function*<M>(
  given: FitResult<M>,
  interceptors: ReadonlyArray<PromptInterceptor<M>>,
  countTokens: CountTokens,
  budget: number,
  options?: RunInterceptorsOptions<M> | undefined
) {
  const fitOptions: RunInterceptorsOptions<M> | undefined = isObject(options) ? options : undefined
  const fitted: FitResult<M> = isResult(given) ? given : NOTHING
  const format = formatOf(fitOptions)
  const timeout = durationOr(fitOptions?.timeout, DEFAULT_INTERCEPTOR_TIMEOUT)
  const { info: initial, inputLength } = origins(fitted, format, fitOptions?.protectCurrentRequest)
  const context: InterceptorContext<M> = {
    format,
    countTokens,
    budget,
    preview: fitOptions?.preview === true
  }
  const ordered = fitted.fits
    ? (Array.isArray(interceptors) ? [...interceptors] : []).sort((a, b) => priorityOf(b) - priorityOf(a))
    : []

  let list: ReadonlyArray<M> = fitted.kept
  let info: ReadonlyArray<Info<M>> = initial
  const removals: Array<{ readonly info: Info<M>; readonly interceptor: string }> = []
  const dropped: Array<DroppedBlock<M>> = []
  const diagnostics: Array<InterceptorDiagnostic> = []
  const ran: Array<string> = []
  const skipped: Array<string> = []
  for (const interceptor of ordered) {
    const id = idOf(interceptor)
    const given = Object.freeze([...list])
    const outcome = yield* attempt(() => interceptor.intercept(given, context), timeout)
    if (outcome._tag === "Failed") {
      diagnostics.push(new InterceptorSkipped({ interceptor: id, cause: outcome.cause, detail: outcome.detail }))
      skipped.push(id)
      continue
    }
    const applied = apply(list, info, outcome.value, format, id)
    if (!applied.ok) {
      diagnostics.push(new InterceptorSkipped({ interceptor: id, cause: "invalid-output", detail: applied.detail }))
      skipped.push(id)
      continue
    }
    if (applied.restored > 0) {
      diagnostics.push(
        new InterceptorRestored({
          interceptor: id,
          problem: applied.restoredProtected ? "protected-removed" : "group-split",
          restored: applied.restored
        })
      )
    }
    const before = nextSlots(info, inputLength)
    for (const p of applied.removed) {
      const removed = info[p] as Info<M>
      if (removed.slot >= 0) removals.push({ info: removed, interceptor: id })
      else {
        dropped.push({
          message: list[p] as M,
          origin: removed.origin === "plugin" ? "plugin" : "inserted",
          reason: "interceptor",
          interceptor: id,
          ...(removed.by === undefined ? {} : { addedBy: removed.by }),
          before: before[p + 1] as number
        })
      }
    }
    list = applied.list
    info = applied.info
    ran.push(id)
  }

  // The mandatory recount, with the host's own counter, and the final fit when over.
  const costing = costingOf(countTokens, fitOptions)
  const recount = costs(list, costing)
  let fitDiagnostics = appendDiagnostics(fitted.diagnostics, recount.diagnostics)
  const finalRemoved: Array<Info<M>> = []
  let finalList = list
  let finalInfo = info
  let tokens = recount.total
  let fits = fitted.fits && budgetUsable(budget) && recount.total <= budget
  let finalFit = false
  if (!fits) {
    const protectedRefs = new Set<M>()
    const added = new Set<M>()
    list.forEach((m, p) => {
      const at = info[p] as Info<M>
      if (at.protected) protectedRefs.add(m)
      if (at.origin === "plugin") added.add(m)
    })
    const refit = hostFit(
      list,
      countTokens,
      budget,
      { ...fitOptions, cache: costing.cache },
      protectedRefs,
      added,
      true
    )
    const gone = new Uint8Array(list.length)
    const before = nextSlots(info, inputLength)
    for (const e of refit.excluded) {
      gone[e.index] = 1
      const at = info[e.index] as Info<M>
      if (at.slot >= 0) finalRemoved.push(at)
      else {
        dropped.push({
          message: e.message,
          origin: at.origin === "plugin" ? "plugin" : "inserted",
          reason: "final-budget",
          ...(at.by === undefined ? {} : { addedBy: at.by }),
          before: before[e.index + 1] as number
        })
      }
    }
    finalList = refit.kept
    finalInfo = info.filter((_, p) => gone[p] === 0)
    tokens = refit.tokens
    fits = fitted.fits && refit.fits
    fitDiagnostics = appendDiagnostics(fitDiagnostics, refit.diagnostics)
    if (refit.excluded.length > 0) {
      finalFit = true
      diagnostics.push(
        new FinalFitApplied({ tokens: recount.total, budget: refit.budget, removed: refit.excluded.length })
      )
    }
  }

  const originals = [...removals.map((r) => r.info.original), ...finalRemoved.map((r) => r.original)]
  const originalCosts = costs(originals, costing).costs
  const excluded: Array<ExcludedMessage<M>> = [
    ...fitted.excluded,
    ...removals.map((r, n): ExcludedMessage<M> => ({
      message: r.info.original,
      index: r.info.slot,
      reason: "interceptor",
      tokens: originalCosts[n] as number
    })),
    ...finalRemoved.map((r, n): ExcludedMessage<M> => ({
      message: r.original,
      index: r.slot,
      reason: "final-budget",
      tokens: originalCosts[removals.length + n] as number
    }))
  ]
  const sentCopies = new Set<number>()
  for (const at of finalInfo) if (at.origin === "copy") sentCopies.add(at.slot)
  const truncated: Array<TruncatedBlock<M>> = fitted.truncated.filter((t) => sentCopies.has(t.index))
  const inserted = finalList.filter((_, p) => (finalInfo[p] as Info<M>).slot < 0)
  const added: Array<InterceptorAddition<M>> = []
  finalList.forEach((message, p) => {
    const at = finalInfo[p] as Info<M>
    if (at.origin === "plugin") added.push({ message, interceptor: at.by ?? "" })
  })
  return {
    result: {
      kept: finalList,
      excluded,
      truncated,
      inserted,
      tokens,
      budget: budgetUsable(budget) ? budget : 0,
      fits,
      diagnostics: fitDiagnostics,
      ...(fitted.summaryCreated === undefined ? {} : { summaryCreated: fitted.summaryCreated }),
      ...(fitted.manualFallback === undefined ? {} : { manualFallback: fitted.manualFallback })
    },
    added,
    removed: removals.map((r) => ({ index: r.info.slot, interceptor: r.interceptor })),
    dropped,
    ran,
    skipped,
    finalFit,
    diagnostics
  }
})
