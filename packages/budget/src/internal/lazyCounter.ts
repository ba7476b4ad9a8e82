import type { TokenCounter } from "../TokenCounter.ts"

/**
 * An exact counter whose tokenizer is built on the first count, not at import: open-model vocabularies are
 * megabytes of JSON and take hundreds of milliseconds to build. The memo is invisible to callers (the same
 * text always gets the same count); a build that throws is retried on the next count, and the guarded
 * counting functions fall back to the approximate count meanwhile.
 */
export const lazyCounter = (id: string, build: () => (text: string) => number): TokenCounter => {
  let count: ((text: string) => number) | undefined
  return {
    id,
    approximate: false,
    count: (text) => {
      count ??= build()
      return count(text)
    }
  }
}
