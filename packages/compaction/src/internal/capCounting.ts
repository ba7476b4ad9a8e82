/**
 * Counting for capping and clearing: a `TokenCounter` or a plain `(text) => number`, guarded through
 * `estimateTokens` from `@ctxkit/budget` (a throw or an invalid count falls back to the approximate count), with
 * the failures of one call merged into one `CounterFailed` per kind.
 *
 * @internal
 */
import { approximateCounter, CounterFailed, estimateTokens, type TokenCounter } from "@ctxkit/budget"

/** What the `counter` options accept. */
export type CounterInput = TokenCounter | ((text: string) => number)

// Plain functions get one TokenCounter each for the life of the function, as in `@ctxkit/fit`.
const wrapped = new WeakMap<object, TokenCounter>()

/**
 * The counter to use: the approximate one when none was given; a plain function wrapped as an approximate
 * counter named after it; anything else as is (a broken object is caught by the guarded count).
 */
export const counterOf = (counter: CounterInput | undefined): TokenCounter => {
  if (counter === undefined || counter === null) return approximateCounter
  if (typeof counter !== "function") return counter
  const known = wrapped.get(counter)
  if (known !== undefined) return known
  const name = typeof counter.name === "string" && counter.name.length > 0 ? counter.name : "anonymous"
  const made: TokenCounter = { id: `function:${name}`, approximate: true, count: (text) => counter(text) }
  wrapped.set(counter, made)
  return made
}

/** One call's guarded counting: counts texts and remembers the counter's failures. Never shared between calls. */
export class Tally {
  readonly counter: TokenCounter
  private readonly failures = new Map<string, CounterFailed>()

  constructor(counter: CounterInput | undefined) {
    this.counter = counterOf(counter)
  }

  /** Tokens of `text`: the counter's (rounded up), or the approximate count when the counter failed. */
  count(text: string): number {
    const estimate = estimateTokens(text, this.counter)
    for (const d of estimate.diagnostics) {
      if (d._tag !== "CounterFailed") continue
      const seen = this.failures.get(d.failure)
      this.failures.set(
        d.failure,
        seen === undefined ? d : new CounterFailed({
          counter: seen.counter,
          failure: seen.failure,
          detail: seen.detail,
          texts: seen.texts + d.texts
        })
      )
    }
    return estimate.tokens
  }

  /** One `CounterFailed` per kind of failure seen (`threw` before `invalid-count`). */
  diagnostics(): Array<CounterFailed> {
    const out: Array<CounterFailed> = []
    const threw = this.failures.get("threw")
    const invalid = this.failures.get("invalid-count")
    if (threw !== undefined) out.push(threw)
    if (invalid !== undefined) out.push(invalid)
    return out
  }
}
