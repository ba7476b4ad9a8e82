/**
 * Applying the analysis's decisions through the lens, and the figures derived from them.
 *
 * @internal
 */
import { conversationCost } from "@ctxkit/budget"
import type { MessageFormat } from "@ctxkit/core"
import type { ElidedCounts } from "../ContextGoverned.ts"
import type { Elision } from "../Govern.ts"
import type { Analysis, Decision } from "./analysis.ts"
import type { Settings } from "./settings.ts"
import { safeCount } from "./text.ts"

/** The projection of an analysed history: the replaced messages and the elisions that really applied. */
export interface Projection<M> {
  readonly replaced: ReadonlyMap<number, M>
  readonly applied: ReadonlyArray<Decision>
}

/**
 * Applies the decisions through the lens. A decision the lens cannot apply (the message does not change) is
 * dropped, so `shadow` never reports what `on` would not do.
 */
export const project = <M>(history: ReadonlyArray<M>, analysis: Analysis, format: MessageFormat<M>): Projection<M> => {
  const replaced = new Map<number, M>()
  const applied: Array<Decision> = []
  for (const decision of analysis.decisions) {
    const index = decision.fact.index
    const current = replaced.get(index) ?? (history[index] as M)
    const next = format.withResultText(current, decision.fact.callId, decision.stub)
    if (next === current) continue
    replaced.set(index, next)
    applied.push(decision)
  }
  return { replaced, applied }
}

/** Segments: one per message, or one per tool result for a message carrying results. */
export const segmentCount = (analysis: Analysis): number => {
  let withResults = 0
  let last = -1
  for (const fact of analysis.facts) {
    if (fact.index !== last) withResults++
    last = fact.index
  }
  return analysis.messages.length - withResults + analysis.facts.length
}

/** Elisions with their token savings. */
export const elisionsOf = <M>(applied: ReadonlyArray<Decision>, settings: Settings<M>): Array<Elision> =>
  applied.map((d) => ({
    reason: d.reason,
    callId: d.fact.callId,
    supersededBy: d.supersededBy,
    stub: d.stub,
    tokensSaved: Math.max(0, safeCount(settings.counter, d.fact.text) - safeCount(settings.counter, d.stub)),
    index: d.fact.index,
    tool: d.fact.tool
  }))

/** How many elisions, in total and by reason. */
export const countsOf = (elisions: ReadonlyArray<Elision>): ElidedCounts => {
  const counts = { total: elisions.length, superseded_read: 0, stale_bg_output: 0, duplicate_search: 0 }
  for (const e of elisions) counts[e.reason]++
  return counts
}

/** The token estimates before and after the projection; the replaced messages are counted anew. */
export const estimate = <M>(history: ReadonlyArray<M>, replaced: ReadonlyMap<number, M>, settings: Settings<M>) => {
  const before = conversationCost(history, {
    counter: settings.counter,
    format: settings.format,
    cache: settings.cache
  })
  // Stubbed messages are new objects every request: counting them through the cache would only fill it.
  const stubs = conversationCost([...replaced.values()], { counter: settings.counter, format: settings.format })
  let removed = 0
  for (const index of replaced.keys()) removed += before.costs[index] ?? 0
  return { before, after: before.total - removed + stubs.total, approximate: before.approximate || stubs.approximate }
}
