/**
 * The named outcome of a silent truncation, `context_overflow`, and the message that tells the user how to fix
 * it. The outcome is a value: the engine ends the run with it (the answer, built without part of the prompt,
 * is discarded; the history is kept whole), or, for a compaction request, leaves the conversation as it was.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { OVERFLOW_GROWTH_RATIO } from "./LooksTruncated.ts"
import { OverflowVerdict, RequestKind } from "./OverflowVerdict.ts"

/**
 * What to do about a truncated request. `end-run` for a turn: stop the run with `context_overflow`, discard the
 * answer, keep the whole history. `keep-conversation` for a compaction request: fail the compaction before
 * touching anything (a summary of half a conversation would replace all of it).
 *
 * @example
 * ```ts
 * import type { OverflowAction } from "@ctxkit/overflow/ContextOverflow"
 *
 * const action: OverflowAction = "end-run"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const OverflowAction = Schema.Literals(["end-run", "keep-conversation"])

/**
 * @category models
 * @since 0.1.0
 */
export type OverflowAction = typeof OverflowAction.Type

/**
 * The `context_overflow` outcome: the server dropped part of a request and answered as if nothing happened.
 * Carries what to do (`action`), the fix-it `message` (see {@link overflowMessage}) and the verdict behind it.
 *
 * @example
 * ```ts
 * import { ContextOverflow, contextOverflow, OverflowDetector } from "@ctxkit/overflow"
 * import * as Schema from "effect/Schema"
 *
 * const { verdict } = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 63, estimate: 17_701 })
 * const outcome = contextOverflow(verdict)
 * outcome?.reason // "context_overflow"
 * Schema.is(ContextOverflow)(outcome) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextOverflow = Schema.Struct({
  /** The named reason a run ends with. */
  reason: Schema.Literal("context_overflow"),
  /** What the truncated request was for. */
  kind: RequestKind,
  /** What to do about it. */
  action: OverflowAction,
  /** What happened and how to fix it, for the user. */
  message: Schema.String,
  /** The verdict that found the truncation. */
  verdict: OverflowVerdict
})

/**
 * @category models
 * @since 0.1.0
 */
export type ContextOverflow = typeof ContextOverflow.Type

/**
 * What the fix-it message may say about the harness.
 *
 * @example
 * ```ts
 * import type { OverflowMessageOptions } from "@ctxkit/overflow/ContextOverflow"
 *
 * const options: OverflowMessageOptions = { configuredWindow: 32_768, windowSetting: "--context-window" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface OverflowMessageOptions {
  /** The context window the harness is configured with (what it assumes the server has). */
  readonly configuredWindow?: number | undefined
  /**
   * How the user sets the harness's window: a flag or a setting name (`--context-window`, `contextWindow`).
   * Default: "the harness's context window setting".
   */
  readonly windowSetting?: string | undefined
}

const n = (value: number): string => String(Math.round(value))

const change = (by: number): string => by >= 0 ? `grew by ${n(by)}` : `fell by ${n(-by)}`

const evidence = (verdict: OverflowVerdict): string => {
  const { baseline, sample } = verdict
  const facts = verdict.evidence
  const counted = verdict.rule.startsWith("exact") ? "counted" : "estimated"
  const head = `it reported ${n(sample.tokens)} prompt tokens for a request ${counted} at ${n(sample.estimate)}`
  const since = baseline === null
    ? ""
    : `; since the last complete request the ${counted} size ${
      change(sample.estimate - baseline.estimate)
    } tokens and the reported size ${change(sample.tokens - baseline.tokens)}`
  switch (verdict.rule) {
    case "growth":
    case "exact-growth":
      return `${head}${since}`
    case "exact-first-request":
      return facts.expected === undefined
        ? head
        : `${head}, while an intact prompt reports at least ${n(facts.expected)}`
    case "not-grown":
      return facts.ceiling === undefined
        ? head
        : `${head}, no more than the ${n(facts.ceiling.tokens)} it reported for a smaller request (${counted} at ${
          n(facts.ceiling.estimate)
        }): an intact prompt only grows${since}`
    case "beyond-overflow":
      return facts.overflowEstimate === undefined
        ? head
        : `${head}, at least as large as a request of this conversation (${counted} at ${
          n(facts.overflowEstimate)
        }) that did not fit`
    case "known-window":
      return facts.window === undefined || facts.expected === undefined
        ? head
        : `${head}; its window is ${n(facts.window)} tokens and this request needs at least ${n(facts.expected)}`
    case "collapse":
      return baseline === null ? head : `${head}, down from ${n(baseline.tokens)} for the last complete request`
    case "first-request":
      return `${head}, under ${String(Math.round((facts.threshold ?? OVERFLOW_GROWTH_RATIO) * 1_000) / 10)}% of it`
    default:
      return head
  }
}

const consequence = (verdict: OverflowVerdict): string => {
  const lost = verdict.mode === "collapse"
    ? "The server answered from almost none of it."
    : "The server keeps the system prompt and the latest messages and drops the oldest ones, where the task usually is."
  return verdict.kind === "compaction"
    ? `${lost} A summary would miss part of the conversation, so the compaction was not applied and the conversation was left as it was.`
    : `${lost} The answer was discarded; the conversation history is kept whole.`
}

const windowFacts = (verdict: OverflowVerdict, configured: number | undefined): string => {
  const assumed = configured === undefined ? "" : `, while the harness is configured for ${n(configured)}`
  const window = verdict.apparentWindow
  if (window === undefined) return `The server's context window is smaller than this request${assumed}.`
  const above = window.overflowAt === undefined ? "" : `; a request of about ${n(window.overflowAt)} did not fit`
  return `The server appears to have a context window of about ${
    n(window.tokens)
  } tokens (it processed prompts of up to ${n(window.tokens)} tokens${above})${assumed}.`
}

/**
 * The fix-it message for a truncated request: what the server did, with its numbers; what was done about it
 * (the answer discarded and the history kept, or the compaction not applied); the window the server appears to
 * have; and how to set the real window — in the harness, or on the server (Ollama: `num_ctx` or
 * `OLLAMA_CONTEXT_LENGTH`; llama.cpp: `-c` / `--ctx-size`; other servers: their context-length setting).
 *
 * @example
 * ```ts
 * import { OverflowDetector, overflowMessage } from "@ctxkit/overflow"
 *
 * const detector = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 3_700, estimate: 3_750 }).state
 * const { verdict } = OverflowDetector.observe(detector, { tokens: 3_725, estimate: 6_204 })
 * overflowMessage(verdict, { configuredWindow: 32_768, windowSetting: "--context-window" })
 * // "The server silently dropped part of the prompt: it reported 3725 prompt tokens for a request estimated at
 * //  6204; since the last complete request the estimated size grew by 2454 tokens and the reported size grew
 * //  by 25. The server keeps the system prompt and the latest messages and drops the oldest ones, where the task
 * //  usually is. The answer was discarded; the conversation history is kept whole. The server appears to have a
 * //  context window of about 3725 tokens (...), while the harness is configured for 32768. Set the real context
 * //  window: either set --context-window to the window the server really has (about 3725 tokens), or raise
 * //  the server's window to 32768 (Ollama: the num_ctx option or the OLLAMA_CONTEXT_LENGTH environment
 * //  variable; llama.cpp: -c / --ctx-size; other servers: their context-length setting)."
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const overflowMessage = (verdict: OverflowVerdict, options: OverflowMessageOptions = {}): string => {
  const configured = options.configuredWindow !== undefined && Number.isFinite(options.configuredWindow)
    ? options.configuredWindow
    : undefined
  const setting = options.windowSetting ?? "the harness's context window"
  const what = verdict.kind === "compaction"
    ? `The server silently dropped part of the compaction request: ${evidence(verdict)}.`
    : `The server silently dropped part of the prompt: ${evidence(verdict)}.`
  const real = verdict.apparentWindow === undefined
    ? "the window the server really has"
    : `the window the server really has (about ${n(verdict.apparentWindow.tokens)} tokens)`
  const fix = `Set the real context window: either set ${setting} to ${real}, or raise the server's window${
    configured === undefined ? "" : ` to ${n(configured)}`
  } (Ollama: the num_ctx option or the OLLAMA_CONTEXT_LENGTH environment variable; llama.cpp: -c / --ctx-size; other servers: their context-length setting).`
  return `${what} ${consequence(verdict)} ${windowFacts(verdict, configured)} ${fix}`
}

/**
 * The `context_overflow` outcome of a verdict, or `undefined` when the request did not look truncated.
 *
 * @example
 * ```ts
 * import { contextOverflow, OverflowDetector } from "@ctxkit/overflow"
 *
 * const { verdict } = OverflowDetector.observe(OverflowDetector.initial(), { tokens: 63, estimate: 3_975 })
 * const outcome = contextOverflow(verdict, { windowSetting: "--context-window" })
 * outcome?.action // "end-run"
 * contextOverflow(OverflowDetector.observe(OverflowDetector.initial(), { tokens: 900, estimate: 800 }).verdict) // undefined
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const contextOverflow = (
  verdict: OverflowVerdict,
  options: OverflowMessageOptions = {}
): ContextOverflow | undefined =>
  verdict.truncated
    ? {
      reason: "context_overflow",
      kind: verdict.kind,
      action: verdict.kind === "compaction" ? "keep-conversation" : "end-run",
      message: overflowMessage(verdict, options),
      verdict
    }
    : undefined
