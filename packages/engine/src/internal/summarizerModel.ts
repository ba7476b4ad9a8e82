/**
 * The summarizer over an `effect/ai` `LanguageModel`: the summary request as a prompt (the checkpoint instructions
 * as the system message, the request as the user message, no tools), and the model's answer read back as a
 * `SummaryReply` — or its failure as a `SummarizerError` that names the error kind, never the provider's body.
 */
import type { SummaryReply } from "@ctxkit/compaction"
import type { SummaryFinishReason } from "@ctxkit/compaction/Summarizer"
import { AiError, type Response } from "effect/ai"
import * as Predicate from "effect/Predicate"

/** The model's finish reason as the summarizer contract's: a content filter is a refusal; a tool call is other. */
export const finishReasonOf = (reason: Response.FinishReason): SummaryFinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "content-filter":
      return "refusal"
    case "error":
      return "error"
    default:
      return "other"
  }
}

const count = (value: number | undefined): number => typeof value === "number" && Number.isFinite(value) ? value : 0

/**
 * The prompt tokens the server reported: the input total (uncached + cache read + cache write), or the sum of the
 * parts when only they are reported; `undefined` when it reported none.
 */
export const promptTokensOf = (usage: Response.Usage | undefined): number | undefined => {
  const input = usage?.inputTokens
  if (input === undefined) return undefined
  if (typeof input.total === "number" && Number.isFinite(input.total)) return input.total
  const parts = count(input.uncached) + count(input.cacheRead) + count(input.cacheWrite)
  return parts > 0 ? parts : undefined
}

/** The reply of a generation. */
export const replyOf = (
  text: string,
  reason: Response.FinishReason,
  usage: Response.Usage | undefined
): SummaryReply => {
  const promptTokens = promptTokensOf(usage)
  return {
    text,
    finishReason: finishReasonOf(reason),
    ...(promptTokens === undefined ? {} : { promptTokens })
  }
}

const statusOf = (reason: unknown): number | undefined => {
  if (!Predicate.isObject(reason) || !Predicate.hasProperty(reason, "http")) return undefined
  const http = reason.http
  if (!Predicate.isObject(http) || !Predicate.hasProperty(http, "response")) return undefined
  const response = http.response
  return Predicate.isObject(response) && Predicate.hasProperty(response, "status") &&
      typeof response.status === "number"
    ? response.status
    : undefined
}

/**
 * What went wrong, for a `SummarizerError`: the error's kind, its HTTP status and where it was raised — never its
 * description or body, which may quote the provider's response.
 */
export const describeFailure = (error: unknown): string => {
  if (AiError.isAiError(error)) {
    const status = statusOf(error.reason)
    return `the summarizer model failed: ${error.reason._tag}${
      status === undefined ? "" : ` (HTTP ${status})`
    } in ${error.module}.${error.method}${error.isRetryable ? "; it may succeed if retried" : ""}`
  }
  if (!Predicate.isObject(error)) return "the summarizer model failed"
  const tag = Predicate.hasProperty(error, "_tag") && typeof error._tag === "string"
    ? error._tag
    : error instanceof Error
    ? error.name
    : "an unknown error"
  return `the summarizer model failed: ${tag}`
}
