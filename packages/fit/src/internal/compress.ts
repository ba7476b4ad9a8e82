/**
 * Opt-in compression: before a group is dropped, its large messages keep their head and tail around a visible
 * marker. Tool results are rewritten through the format's `withResultText`, other texts through `withText`;
 * messages that issue calls, summaries and messages that travel with the next one are never touched, and a
 * rewrite that would change a role, a message id or a call id is not used.
 */
import type { MessageFormat } from "@ctxkit/core"
import { safeHead, safeTail } from "@ctxkit/core/TextCut"
import { costAt, fits, type Fitting, isRemoved, replace } from "./fitting.ts"
import type { Compression } from "./settings.ts"

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
export const sameShape = <M>(format: MessageFormat<M>, a: M, b: M): boolean => ids(format, a) === ids(format, b)

/** Compresses the large messages of the groups of `order`, oldest first, until the total fits. */
export const compressOldest = <M>(f: Fitting<M>, order: ReadonlyArray<number>, settings: Compression): void => {
  if (!f.settings.budgetUsable) return
  for (const g of order) {
    if (fits(f)) return
    if (f.locked[g] === 1 || isRemoved(f, g)) continue
    for (const i of f.grouping.groups[g] ?? []) {
      if (fits(f)) return
      compressOne(f, i, settings)
    }
  }
}

/**
 * Compresses input message `i` when its text costs more than the threshold: the kept share of its text is halved
 * (at most four tries) until the copy's text costs at most the threshold.
 */
const compressOne = <M>(f: Fitting<M>, i: number, settings: Compression): void => {
  if (f.copies.has(i)) return
  const format = f.settings.format
  const m = f.input[i] as M
  const cost = costAt(f, i)
  const tokens = cost - f.settings.overhead
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
    const copyCost = f.price(candidate)
    if (copyCost - f.settings.overhead <= settings.threshold && copyCost < cost) {
      replace(f, i, { message: candidate, cost: copyCost })
      return
    }
  }
}
