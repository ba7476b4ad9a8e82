import { CounterFailed } from "../Diagnostics.ts"
import { approximateCounter, type TokenCounter } from "../TokenCounter.ts"
import { describeValue } from "./format.ts"

/** The approximate count of anything: `ceil(length / 4)` for a string, 0 for anything else. Never NaN. */
export const approximateCount = (text: unknown): number => typeof text === "string" ? Math.ceil(text.length / 4) : 0

/** The counter to use: the approximate one when none (or something that is not an object) was given. */
export const counterOf = (counter: TokenCounter | undefined): TokenCounter =>
  typeof counter === "object" && counter !== null ? counter : approximateCounter

/** The counter's id, whatever the counter is. */
export const counterId = (counter: TokenCounter): string =>
  typeof counter.id === "string" ? counter.id : "<counter without an id>"

/**
 * Counting with one counter, guarded: a throw or an invalid count falls back to the approximate count and is
 * remembered, so the caller can report one {@link CounterFailed} per kind of failure. One instance per call:
 * it is the call's local accumulator, never shared.
 */
export class GuardedCount {
  readonly counter: TokenCounter
  /** Whether any text fell back. */
  failed = false
  private threw = 0
  private invalid = 0
  private firstError = ""
  private firstValue = ""

  constructor(counter: TokenCounter) {
    this.counter = counter
  }

  /** The count of `text`: the counter's, rounded up, or the approximate one when the counter failed. */
  count(text: string): number {
    const exact = this.attempt(text)
    return exact >= 0 ? exact : approximateCount(text)
  }

  /** The counter's count of `text` rounded up, or -1 when it failed (logged; the caller falls back). */
  attempt(text: string): number {
    let n: unknown
    try {
      n = this.counter.count(text)
    } catch (error) {
      this.failed = true
      if (this.threw++ === 0) this.firstError = error instanceof Error ? error.message : describeValue(error)
      return -1
    }
    if (typeof n === "number" && n >= 0 && n <= Number.MAX_SAFE_INTEGER) return Math.ceil(n)
    // NaN fails `n >= 0`, so it lands here too; so does a count too large to be a count.
    this.failed = true
    if (this.invalid++ === 0) this.firstValue = describeValue(n)
    return -1
  }

  /** One diagnostic per kind of failure seen, in a fixed order. */
  diagnostics(): Array<CounterFailed> {
    const out: Array<CounterFailed> = []
    const id = counterId(this.counter)
    if (this.threw > 0) {
      out.push(new CounterFailed({ counter: id, failure: "threw", detail: this.firstError, texts: this.threw }))
    }
    if (this.invalid > 0) {
      out.push(
        new CounterFailed({ counter: id, failure: "invalid-count", detail: this.firstValue, texts: this.invalid })
      )
    }
    return out
  }
}
