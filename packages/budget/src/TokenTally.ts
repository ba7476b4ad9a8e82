/**
 * Guarded counting, once: a counter that throws or returns something that is not a count never crashes a count
 * and never yields NaN. The text (or message) is counted approximately instead, and the failures of one
 * operation are gathered into one `CounterFailed` per kind of failure. Every counting function of ctxkit counts
 * through a tally.
 *
 * @since 0.1.0
 */
import type { MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { type BudgetDiagnostic, CounterFailed } from "./Diagnostics.ts"
import { approximateCount, asCount, counterId } from "./internal/counting.ts"
import { keepLayout } from "./internal/layout.ts"
import { type Counter, type MessageCounter, toCounter, type TokenCounter } from "./TokenCounter.ts"

/**
 * One operation's guarded counting with one counter: counts texts and messages, falls back to the approximate
 * count (`ceil(length / 4)`) where the counter fails, and remembers the failures, so that the operation reports
 * one `CounterFailed` per counter and kind of failure (`threw`, `invalid-count`) with the number of texts that
 * fell back. It is an accumulator local to one call: create one per operation, never share it.
 *
 * `absorb` takes in the diagnostics of the budget functions the operation calls (`conversationCost`,
 * `messageCost`, `estimateTokens`), so that their counter failures are merged with the tally's own.
 *
 * @example
 * ```ts
 * import { conversationCost, TokenTally } from "@ctxkit/budget"
 *
 * const flaky = { id: "flaky", approximate: false, count: (text: string) => text.length > 10 ? Number.NaN : 1 }
 * const tally = new TokenTally(flaky)
 * tally.count("short") // 1
 * tally.count("a longer text") // 4: the counter returned NaN, so ceil(13 / 4)
 * const cost = conversationCost([{ role: "user", content: "another long text" }], { counter: flaky })
 * tally.absorb(cost.diagnostics) // []: the failure is now the tally's
 * tally.diagnostics()[0]?.texts // 2
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export class TokenTally {
  /** The counter counted with, as {@link toCounter} reads the argument. */
  readonly counter: TokenCounter
  // This tally's own failures: how many texts fell back, and the first error or value of each kind.
  #threw = 0
  #invalid = 0
  #firstError = ""
  #firstValue = ""
  // Failures absorbed from the results of other counting calls, by counter and kind, in the order first seen.
  readonly #absorbed = new Map<string, CounterFailed>()

  static {
    keepLayout(new TokenTally())
  }

  constructor(counter?: Counter) {
    this.counter = toCounter(counter)
  }

  /** Whether any text or message fell back to the approximate count. */
  get failed(): boolean {
    return this.#threw > 0 || this.#invalid > 0 || this.#absorbed.size > 0
  }

  /** Whether the counts are estimates: an approximate counter, or a fallback. */
  get approximate(): boolean {
    return this.counter?.approximate !== false || this.failed
  }

  /** The tokens of `text`: the counter's count rounded up, or the approximate count when the counter failed. */
  count(text: string): number {
    const exact = this.attempt(text)
    return exact >= 0 ? exact : approximateCount(text)
  }

  /**
   * The counter's count of `text` rounded up, or -1 when it failed (remembered; the caller falls back).
   *
   * @internal
   */
  attempt(text: string): number {
    let n: unknown
    try {
      n = this.counter.count(text)
    } catch (error) {
      return this.#threwOn(error)
    }
    const count = asCount(n)
    return count >= 0 ? count : this.#invalidCount(n)
  }

  /**
   * The message counter's price of `message` rounded up, or -1 when it failed (remembered; the caller falls
   * back). Only for a counter that prices messages.
   *
   * @internal
   */
  attemptMessage<M>(counter: MessageCounter, message: M, format: MessageFormat<M>): number {
    let n: unknown
    try {
      n = counter.countMessage(message, format)
    } catch (error) {
      return this.#threwOn(error)
    }
    const count = asCount(n)
    return count >= 0 ? count : this.#invalidCount(n)
  }

  /**
   * Takes in the diagnostics of another counting call: its `CounterFailed` become the tally's (merged with those
   * of the same counter and kind); every other diagnostic is returned, in order, for the caller to report.
   */
  absorb(diagnostics: ReadonlyArray<BudgetDiagnostic>): Array<BudgetDiagnostic> {
    const others: Array<BudgetDiagnostic> = []
    for (const d of diagnostics) {
      if (d._tag === "CounterFailed") this.#absorbed.set(key(d), merge(this.#absorbed.get(key(d)), d))
      else others.push(d)
    }
    return others
  }

  /** One `CounterFailed` per counter and kind of failure seen: this tally's own first, `threw` before `invalid-count`. */
  diagnostics(): Array<CounterFailed> {
    const all = new Map<string, CounterFailed>()
    const id = counterId(this.counter)
    if (this.#threw > 0) {
      const d = new CounterFailed({ counter: id, failure: "threw", detail: this.#firstError, texts: this.#threw })
      all.set(key(d), d)
    }
    if (this.#invalid > 0) {
      const d = new CounterFailed({
        counter: id,
        failure: "invalid-count",
        detail: this.#firstValue,
        texts: this.#invalid
      })
      all.set(key(d), d)
    }
    for (const [k, d] of this.#absorbed) all.set(k, merge(all.get(k), d))
    return [...all.values()]
  }

  // The failures, out of the counting path: remembered, and -1 for the caller to fall back.
  #threwOn(error: unknown): number {
    if (this.#threw++ === 0) this.#firstError = error instanceof Error ? error.message : describeValue(error)
    return -1
  }

  // NaN, a negative count or one too large to be a count.
  #invalidCount(n: unknown): number {
    if (this.#invalid++ === 0) this.#firstValue = describeValue(n)
    return -1
  }
}

const key = (d: CounterFailed): string => `${d.counter}\u0000${d.failure}`

/** `d` added to `seen`: the first detail, the texts summed. */
const merge = (seen: CounterFailed | undefined, d: CounterFailed): CounterFailed =>
  seen === undefined
    ? d
    : new CounterFailed({
      counter: seen.counter,
      failure: seen.failure,
      detail: seen.detail,
      texts: seen.texts + d.texts
    })
