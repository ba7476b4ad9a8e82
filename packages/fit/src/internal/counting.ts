import type { TokenCounter } from "@ctxkit/budget"

// Plain functions get one TokenCounter each, for the life of the function, so that a `CostCache` (keyed by
// counter id) never mixes the counts of two different functions.
const wrapped = new WeakMap<object, TokenCounter>()
let created = 0

/**
 * `countTokens` as a `TokenCounter`: a counter object as is; a plain function wrapped once with an id unique to
 * it (`function:<name>#<n>`, reported as approximate since nothing says otherwise). Anything else is returned
 * as is: the budget package's guarded counting replaces it by the approximate counter and reports the failure.
 */
export const asCounter = (countTokens: unknown): TokenCounter => {
  if (typeof countTokens !== "function") return countTokens as TokenCounter
  const known = wrapped.get(countTokens)
  if (known !== undefined) return known
  const count = countTokens as (text: string) => unknown
  const name = typeof count.name === "string" && count.name.length > 0 ? count.name : "anonymous"
  const counter: TokenCounter = {
    id: `function:${name}#${++created}`,
    approximate: true,
    count: (text) => count(text) as number
  }
  wrapped.set(countTokens, counter)
  return counter
}

/** Whether `value` looks like a `countTokens` argument (a function or a counter object), not like messages. */
export const isCountTokens = (value: unknown): boolean =>
  typeof value === "function" ||
  (typeof value === "object" && value !== null && !Array.isArray(value) && "count" in value)
