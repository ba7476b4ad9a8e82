/** The four built-in strategies' `fit` functions, on the fitting engine. */
import { describeValue } from "@ctxkit/core/Describe"
import { bm25Scores } from "../Bm25.ts"
import { CallbackFailed, RelevanceIgnored, SummaryOmitted } from "../Diagnostics.ts"
import type { CountTokens, FitOptions } from "../FitOptions.ts"
import type { FitResult } from "../FitResult.ts"
import {
  countText,
  finishFitting,
  fits,
  type Fitting,
  insertNote,
  isRemoved,
  keepNewest,
  removedInInputOrder,
  removeGroup,
  startFitting
} from "./fitting.ts"
import { removalOrder } from "./order.ts"
import { shift } from "./shift.ts"
import { buildSummary, summaryCap, summaryLines } from "./summary.ts"

type Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M> | undefined
) => FitResult<M>

/** `truncate`: the oldest unprotected groups go first, until it fits. */
export const truncateFit: Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M>
): FitResult<M> => {
  const f = startFitting<M>(messages, countTokens, budget, options)
  shift(f, removalOrder(f))
  return finishFitting(f)
}

/** `summarize`: truncate, then a local summary of what went, before the current request, removable last. */
export const summarizeFit: Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M>
): FitResult<M> => {
  const f = startFitting<M>(messages, countTokens, budget, options)
  const order = removalOrder(f)
  shift(f, order)
  const { budget: fitted, budgetUsable, format, overhead } = f.settings
  let created = false
  if (f.removed.length > 0 && budgetUsable) {
    const cap = summaryCap(fitted)
    const count = (text: string): number => countText(f, text)
    for (let attempt = 0;; attempt++) {
      const text = buildSummary(summaryLines(removedInInputOrder(f), format), cap, count)
      if (text === undefined) {
        f.diagnostics.push(new SummaryOmitted({ reason: "too-small", cap }))
        break
      }
      const note = format.makeNote(text, { role: "user", kind: "summary" })
      const cost = f.price(note)
      if (fits(f, cost)) {
        const request = f.request >= 0 && !isRemoved(f, f.groupOf[f.request] as number) ? f.request : f.input.length
        insertNote(f, note, cost, request)
        created = true
        break
      }
      // Make room for the summary (it goes last). After two rebuilds, make room for the largest summary the
      // cap allows, so that the next one fits: at most four summaries are ever built.
      const room = attempt < 2 ? cost : Math.max(cost, cap + overhead)
      if (keepNewest(f, order, "context-shift", room) === 0) {
        f.diagnostics.push(new SummaryOmitted({ reason: "no-room", cap }))
        break
      }
    }
  }
  return finishFitting(f, { summaryCreated: created })
}

const isRecallBlock = <M>(f: Fitting<M>, m: M): boolean => {
  const format = f.settings.format
  if (format.role(m) !== "system") return false
  const source = format.source(m)
  return source === "memory" || source === "lorebook"
}

/** Relevance in [0, 1] of every memory/lorebook message in `members`: `meta.relevance`, else the scorer's. */
const relevances = <M>(f: Fitting<M>, members: ReadonlyArray<number>): Map<number, number> => {
  const format = f.settings.format
  const out = new Map<number, number>()
  const unscored: Array<number> = []
  for (const i of members) {
    const meta = format.meta(f.input[i] as M)
    const given = meta === undefined ? undefined : meta["relevance"]
    if (typeof given === "number" && given >= 0 && given <= 1) out.set(i, given)
    else {
      if (given !== undefined) f.diagnostics.push(new RelevanceIgnored({ index: i, given: describeValue(given) }))
      unscored.push(i)
    }
  }
  if (unscored.length === 0) return out
  const query = f.request >= 0 ? format.text(f.input[f.request] as M) : ""
  const documents = members.map((i) => format.text(f.input[i] as M))
  const scorer = f.settings.relevance ?? bm25Scores
  let scores: ReadonlyArray<number> = []
  let failure: string | undefined
  try {
    const answer: unknown = scorer(query, documents)
    if (!Array.isArray(answer) || answer.length !== documents.length) {
      failure = `returned ${
        Array.isArray(answer) ? `${answer.length} scores` : describeValue(answer)
      } for ${documents.length} documents`
    } else if (!answer.every((s) => typeof s === "number" && s >= 0 && Number.isFinite(s))) {
      failure = "returned a score that is not a finite number >= 0"
    } else scores = answer as ReadonlyArray<number>
  } catch (error) {
    failure = `threw: ${error instanceof Error ? error.message : describeValue(error)}`
  }
  if (failure !== undefined) f.diagnostics.push(new CallbackFailed({ callback: "relevance", detail: failure }))
  const max = scores.reduce((a, b) => Math.max(a, b), 0)
  const position = new Map(members.map((i, k) => [i, k]))
  for (const i of unscored) out.set(i, max > 0 ? (scores[position.get(i) ?? 0] ?? 0) / max : 0)
  return out
}

/** `vector-recall`: memory and lorebook blocks first, lowest relevance first; then the oldest history. */
export const vectorRecallFit: Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M>
): FitResult<M> => {
  const f = startFitting<M>(messages, countTokens, budget, options)
  const blocks: Array<number> = []
  const history: Array<number> = []
  const members: Array<number> = []
  for (let g = 0; g < f.grouping.groups.length; g++) {
    if (f.locked[g] === 1) continue
    const group = f.grouping.groups[g] ?? []
    if (group.every((i) => isRecallBlock(f, f.input[i] as M))) {
      blocks.push(g)
      for (const i of group) members.push(i)
    } else history.push(g)
  }
  const relevance = members.length === 0 ? new Map<number, number>() : relevances(f, members)
  const groupRelevance = new Map<number, number>()
  for (const g of blocks) {
    groupRelevance.set(g, (f.grouping.groups[g] ?? []).reduce((best, i) => Math.max(best, relevance.get(i) ?? 0), 0))
  }
  // Stable: equal relevance keeps age order.
  blocks.sort((a, b) => (groupRelevance.get(a) ?? 0) - (groupRelevance.get(b) ?? 0))
  shift(f, [...blocks, ...removalOrder(f, history)])
  return finishFitting(f)
}

const isManuallyExcluded = <M>(f: Fitting<M>, m: M): boolean => f.settings.format.meta(m)?.["manualExcluded"] === true

/** `manual`: `meta.manualExcluded` groups go (protected ones stay), then truncate if more room is needed. */
export const manualFit: Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M>
): FitResult<M> => {
  const f = startFitting<M>(messages, countTokens, budget, options)
  for (let g = 0; g < f.grouping.groups.length; g++) {
    if (f.locked[g] === 0 && (f.grouping.groups[g] ?? []).some((i) => isManuallyExcluded(f, f.input[i] as M))) {
      removeGroup(f, g, "manual")
    }
  }
  // The rest is shifted as by `truncate`; the fallback is whether that had to remove or compress anything, or could
  // not fit at all.
  const shifted = shift(f, removalOrder(f))
  return finishFitting(f, { manualFallback: shifted > 0 || f.copies.size > 0 || !fits(f) })
}
