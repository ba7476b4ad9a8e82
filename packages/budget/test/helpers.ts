/**
 * Shared test helpers for @ctxkit/budget: instrumented and broken counters, and a walk that finds any number
 * that is not finite in a result.
 */
import type { TokenCounter } from "../src/TokenCounter.ts"

/** A counter that records every text it is asked to count (approximate counts). */
export const countingCounter = (id = "counting"): { readonly counter: TokenCounter; readonly seen: Array<string> } => {
  const seen: Array<string> = []
  return {
    seen,
    counter: {
      id,
      approximate: true,
      count: (text) => {
        seen.push(text)
        return Math.ceil(text.length / 4)
      }
    }
  }
}

/** Counters that break in every way a counter can: they must never crash counting nor produce NaN. */
export const brokenCounters: ReadonlyArray<TokenCounter> = [
  {
    id: "throws",
    approximate: false,
    count: () => {
      throw new Error("vocabulary not loaded")
    }
  },
  {
    id: "throws-a-string",
    approximate: false,
    count: () => {
      throw "boom"
    }
  },
  { id: "nan", approximate: false, count: () => Number.NaN },
  { id: "negative", approximate: false, count: () => -3 },
  { id: "infinite", approximate: false, count: () => Infinity },
  { id: "minus-infinite", approximate: false, count: () => -Infinity },
  { id: "not-a-number", approximate: false, count: () => "12" as unknown as number },
  { id: "undefined", approximate: false, count: () => undefined as unknown as number },
  { id: "no-count", approximate: false } as unknown as TokenCounter
]

/** Paths of every number in `value` that is NaN or infinite (cycle-safe; walks class instances too). */
export const nonFiniteNumbers = (value: unknown): Array<string> => {
  const out: Array<string> = []
  const seen = new WeakSet<object>()
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "number") {
      if (!Number.isFinite(v)) out.push(`${path} = ${v}`)
      return
    }
    if (typeof v !== "object" || v === null || seen.has(v)) return
    seen.add(v)
    for (const key of Object.keys(v)) walk((v as Record<string, unknown>)[key], `${path}.${key}`)
  }
  walk(value, "$")
  return out
}
