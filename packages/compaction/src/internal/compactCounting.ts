/**
 * Token estimates for compaction: the history before and after, the summarized span, the checkpoint and the
 * summarizer request, all with one counter.
 *
 * @internal
 */
import { conversationCost, type CostCache, estimateTokens, type TokenCounter } from "@ctxkit/budget"
import type { MessageFormat } from "@ctxkit/core"
import type { SummaryRequest } from "../Summarizer.ts"

/** The counter the options name: `toCounter` from `@ctxkit/budget`, as capping and clearing read it. */
export { toCounter as counterOf } from "@ctxkit/budget"

/** Estimated tokens of `messages` (each message's text plus the per-message overhead, or its `countMessage` price). */
export const messagesTokens = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  counter: TokenCounter,
  cache: CostCache
): number => conversationCost(messages, { format, counter, cache }).total

/** Estimated tokens of a summarizer request: its system text and its prompt. */
export const requestTokens = (request: SummaryRequest, counter: TokenCounter): number =>
  estimateTokens(request.system, counter).tokens + estimateTokens(request.prompt, counter).tokens
