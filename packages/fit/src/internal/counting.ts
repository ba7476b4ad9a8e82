import { type Counter, toCounter, type TokenCounter } from "@ctxkit/budget"

/**
 * `countTokens` as a counter: `toCounter` from `@ctxkit/budget`, the one conversion every package uses (a plain
 * function gets one approximate counter of its own, id `function:<name>#<n>`; a counter object, message-pricing
 * or not, is used as it is). Messages are priced with budget's `messageCost` / `conversationCost`, which honour a
 * counter's `countMessage`.
 */
export const asCounter = (countTokens: unknown): TokenCounter => toCounter(countTokens as Counter | undefined)

/** Whether `value` looks like a `countTokens` argument (a function or a counter object), not like messages. */
export const isCountTokens = (value: unknown): boolean =>
  typeof value === "function" ||
  (typeof value === "object" && value !== null && !Array.isArray(value) && "count" in value)
