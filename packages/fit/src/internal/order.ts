/**
 * The order groups are removed in: oldest first (a group's age is its oldest member), newest first with
 * `strategy: "first"`, and, when the caller gives a `removalPriority`, lowest priority first, age breaking ties.
 */
import { describeValue } from "@ctxkit/core/Describe"
import { CallbackFailed } from "../Diagnostics.ts"
import type { RemovalCandidate } from "../FitOptions.ts"
import { type Fitting, groupCost } from "./fitting.ts"

const errorText = (error: unknown): string => error instanceof Error ? error.message : describeValue(error)

/**
 * The removable (unprotected) groups of `among` (default: every group), in removal order. A priority callback
 * sees each group's tokens, so with one every group is priced.
 */
export const removalOrder = <M>(f: Fitting<M>, among?: ReadonlyArray<number>): Array<number> => {
  let candidates: Array<number> = []
  if (among === undefined) {
    // Every unlocked group, in a list made at its length.
    const { groupCount, locked } = f
    let count = 0
    for (let g = 0; g < groupCount; g++) count += 1 - (locked[g] as number)
    candidates = new Array<number>(count)
    for (let g = 0, k = 0; g < groupCount; g++) if (locked[g] === 0) candidates[k++] = g
  } else {
    for (const g of among) if (f.locked[g] === 0) candidates.push(g)
  }
  if (f.settings.keep === "first") candidates.reverse()
  const priority = f.settings.removalPriority
  if (priority === undefined) return candidates

  const rank = new Float64Array(f.groupCount)
  let failure: string | undefined
  for (const g of candidates) {
    const indices = f.grouping.groups[g] ?? []
    let p: unknown = 0
    try {
      p = priority(
        {
          indices,
          messages: indices.map((i) => f.input[i] as M),
          tokens: groupCost(f, g)
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
  if (failure !== undefined) f.diagnostics.push(new CallbackFailed({ callback: "removalPriority", detail: failure }))
  // Array.prototype.sort is stable: equal priorities keep their age order.
  return candidates.sort((a, b) => (rank[a] as number) - (rank[b] as number))
}
