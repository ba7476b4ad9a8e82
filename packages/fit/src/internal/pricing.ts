/**
 * What a message costs. Every price fitting needs — an input message, a compressed copy, a summary note — comes
 * from the one function {@link makePrice} builds, so a change in how messages are priced is made here only.
 */
import { approximateCounter, messageCost, TokenTally } from "@ctxkit/budget"
import { CounterFailed } from "@ctxkit/budget/Diagnostics"
import * as Predicate from "effect/Predicate"
import type { FitDiagnostic } from "../Diagnostics.ts"
import type { Settings } from "./settings.ts"

/** A message's cost in tokens, overhead included. */
export type Price<M> = (message: M) => number

/**
 * Adds `fresh` to `diagnostics`, keeping one `CounterFailed` per counter and kind of failure (the numbers of texts
 * that fell back added up), so that a counter failing on every message is reported once.
 */
export const absorb = (diagnostics: Array<FitDiagnostic>, fresh: ReadonlyArray<FitDiagnostic>): void => {
  for (const d of fresh) {
    if (d._tag === "CounterFailed") {
      const at = diagnostics.findIndex((x) =>
        x._tag === "CounterFailed" && x.counter === d.counter && x.failure === d.failure
      )
      const seen = diagnostics[at]
      if (seen !== undefined && seen._tag === "CounterFailed") {
        diagnostics[at] = new CounterFailed({ ...seen, texts: seen.texts + d.texts })
        continue
      }
    }
    diagnostics.push(d)
  }
}

/**
 * The price of a message: `count(format.text(message)) + overhead` (or the counter's own `countMessage`), through the caller's cost cache when there is
 * one (so that counts are shared with every other user of that cache), guarded (a counter that fails falls back
 * to the approximate count; `diagnostics` says so) unless it is the built-in approximate counter, which cannot fail.
 */
export const makePrice = <M>(settings: Settings<M>, diagnostics: Array<FitDiagnostic>): Price<M> => {
  const { cache, counter, format, overhead } = settings
  // A counter that prices whole messages (`countMessage`) is priced the way budget prices it, framing included.
  if (cache !== undefined || Predicate.hasProperty(counter, "countMessage")) {
    const options = { counter, format, perMessageOverhead: overhead, ...(cache === undefined ? {} : { cache }) }
    return (message) => {
      const estimate = messageCost(message, options)
      if (estimate.diagnostics.length > 0) absorb(diagnostics, estimate.diagnostics)
      return estimate.tokens
    }
  }
  // The built-in approximate counter (frozen) cannot fail, so it needs no guard: its count is taken directly.
  if (counter === approximateCounter) {
    return (message) => {
      const text = format.text(message)
      return approximateCounter.count(typeof text === "string" ? text : "") + overhead
    }
  }
  // One tally counts every text: the same count as `estimateTokens(text, counter)`, without a tally and a result
  // per message. After a failure its diagnostics are taken and a fresh tally continues, so each failing text is
  // reported exactly as `estimateTokens` reports it.
  let tally = new TokenTally(counter)
  return (message) => {
    const text = format.text(message)
    const tokens = tally.count(typeof text === "string" ? text : "")
    if (tally.failed) {
      absorb(diagnostics, tally.diagnostics())
      tally = new TokenTally(counter)
    }
    return tokens + overhead
  }
}
