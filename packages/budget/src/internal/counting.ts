import type { MessageCounter, TokenCounter } from "../TokenCounter.ts"

/** The approximate count of anything: `ceil(length / 4)` for a string, 0 for anything else. Never NaN. */
export const approximateCount = (text: unknown): number => typeof text === "string" ? Math.ceil(text.length / 4) : 0

/** The counter's id, whatever the counter is. */
export const counterId = (counter: TokenCounter): string =>
  typeof counter?.id === "string" ? counter.id : "<counter without an id>"

/** Whether `counter` prices whole messages. */
export const isMessageCounter = (counter: TokenCounter): counter is MessageCounter =>
  typeof (counter as Partial<MessageCounter> | null)?.countMessage === "function"

/** A count a counter returned, rounded up, or -1 when it is not a count (NaN, negative, beyond 2^53, not a number). */
export const asCount = (n: unknown): number =>
  typeof n === "number" && n >= 0 && n <= Number.MAX_SAFE_INTEGER ? Math.ceil(n) : -1
