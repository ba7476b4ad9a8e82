/**
 * What fitting reports instead of failing: a budget that cannot be used, protected context that does not fit,
 * a summary that had no room, an option or callback that was ignored, a recount that disagreed. Every
 * diagnostic is a Schema tagged class with a stable `_tag` and a `message` that says what to do. The
 * `InvalidBudget` error is what `fitOrFail` fails with when the budget itself is unusable.
 *
 * @since 0.1.0
 */
import type { BudgetDiagnostic } from "@ctxkit/budget"
import * as Schema from "effect/Schema"

/**
 * The budget given is not a finite number of tokens greater than 0 (NaN, negative, zero, infinite, not a
 * number). Nothing unprotected was kept and the result says it does not fit: a request is never sent on an
 * unusable budget.
 *
 * @example
 * ```ts
 * import { UnusableBudget } from "@ctxkit/fit/Diagnostics"
 *
 * new UnusableBudget({ given: "NaN" }).message
 * // "The token budget NaN is not a finite number of tokens > 0; ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class UnusableBudget extends Schema.TaggedClass<UnusableBudget>("@ctxkit/fit/UnusableBudget")(
  "UnusableBudget",
  {
    /** The budget given, as text (`"NaN"`, `"-1"`, `"Infinity"`, `"0"`, `"undefined"`). */
    given: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `The token budget ${this.given} is not a finite number of tokens > 0; nothing unprotected was kept and the result does not fit. Pass the context window minus the reply reserve (available(window, maxTokens) from @ctxkit/budget computes it).`
  }
}

/**
 * The protected messages alone (system prompt, pinned messages, the current request, and the tool-call groups
 * they belong to) cost more than the budget: everything else was excluded and the result does not fit.
 * `fitOrFail` turns this into `TokenBudgetExceeded`.
 *
 * @example
 * ```ts
 * import { ProtectedOverBudget } from "@ctxkit/fit/Diagnostics"
 *
 * new ProtectedOverBudget({ protectedTokens: 9_000, budget: 6_144 }).message
 * // "The protected context alone costs 9000 tokens, more than the budget of 6144; ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ProtectedOverBudget extends Schema.TaggedClass<ProtectedOverBudget>("@ctxkit/fit/ProtectedOverBudget")(
  "ProtectedOverBudget",
  {
    /** Tokens of what is left: the protected messages and their groups. */
    protectedTokens: Schema.Number,
    /** The budget, in tokens. */
    budget: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `The protected context alone costs ${this.protectedTokens} tokens, more than the budget of ${this.budget}; nothing unprotected was kept and the request must not be sent. Unpin messages, shorten the system prompt or the current request, lower the reply reserve, or use a model with a larger window.`
  }
}

/**
 * The final independent recount of what is sent disagreed with the running total kept while fitting (a
 * counter that gives different counts for the same text). The recount is what the result reports, and what
 * `fits` was decided on.
 *
 * @example
 * ```ts
 * import { RecountMismatch } from "@ctxkit/fit/Diagnostics"
 *
 * new RecountMismatch({ running: 1_000, recount: 1_012 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class RecountMismatch extends Schema.TaggedClass<RecountMismatch>("@ctxkit/fit/RecountMismatch")(
  "RecountMismatch",
  {
    /** The total maintained while fitting. */
    running: Schema.Number,
    /** The independent recount of the messages sent. */
    recount: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `The recount of the messages sent (${this.recount} tokens) differs from the running total (${this.running}); the recount was used. The token counter is not deterministic: make count(text) return the same number for the same text.`
  }
}

/**
 * The `summarize` strategy excluded history but inserted no summary: even the summary's first line costs more
 * than the summary's token cap (`too-small`), or there was no room left for it once every unprotected group was
 * excluded (`no-room`).
 *
 * @example
 * ```ts
 * import { SummaryOmitted } from "@ctxkit/fit/Diagnostics"
 *
 * new SummaryOmitted({ reason: "no-room", cap: 8 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class SummaryOmitted extends Schema.TaggedClass<SummaryOmitted>("@ctxkit/fit/SummaryOmitted")(
  "SummaryOmitted",
  {
    /** `too-small`: the header alone exceeds the cap; `no-room`: the protected context leaves no room for it. */
    reason: Schema.Literals(["too-small", "no-room"]),
    /** The summary's token cap: `max(8, min(128, floor(budget × 0.35)))`. */
    cap: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return this.reason === "too-small"
      ? `No summary of the excluded history was inserted: its first line alone costs more than its cap of ${this.cap} tokens. Use a larger budget, or a counter that counts that line in fewer tokens.`
      : `No summary of the excluded history was inserted: the protected context leaves no room for it (cap ${this.cap} tokens). Use a larger budget or protect less context.`
  }
}

const EXPECTED = {
  format: "a MessageFormat (formats.canonical, formats.openaiChat, …)",
  perMessageOverhead: "a finite number of tokens >= 0",
  "compress.threshold": "a finite number of tokens > 0",
  "compress.keep": "a finite number of tokens > 0, below compress.threshold",
  strategy: "\"last\" or \"first\"",
  textSplitter: "a function from a text to the pieces it is made of",
  startOn: "a role (system, user, assistant, tool; or human, ai), or an array of them",
  endOn: "a role (system, user, assistant, tool; or human, ai), or an array of them",
  reasoning: "\"all\", \"before-last-message\" or \"none\"",
  toolCalls:
    "\"all\", \"before-last-message\", \"before-last-N-messages\" (N a whole number), \"none\" or a list of { type, tools? }",
  emptyMessages: "\"keep\" or \"remove\""
} as const

/**
 * An option had a value that cannot be used; the value in `used` was used instead.
 *
 * @example
 * ```ts
 * import { OptionAdjusted } from "@ctxkit/fit/Diagnostics"
 *
 * new OptionAdjusted({ option: "compress.threshold", given: "-5", used: "1000" }).message
 * // "Option compress.threshold = -5 cannot be used; used 1000 instead. ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class OptionAdjusted extends Schema.TaggedClass<OptionAdjusted>("@ctxkit/fit/OptionAdjusted")(
  "OptionAdjusted",
  {
    /** Which option. */
    option: Schema.Literals([
      "format",
      "perMessageOverhead",
      "compress.threshold",
      "compress.keep",
      "strategy",
      "textSplitter",
      "startOn",
      "endOn",
      "reasoning",
      "toolCalls",
      "emptyMessages"
    ]),
    /** The value given, as text. */
    given: Schema.String,
    /** The value used instead, as text. */
    used: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const expected = EXPECTED[this.option]
    return `Option ${this.option} = ${this.given} cannot be used; used ${this.used} instead. Set it to ${expected}.`
  }
}

/**
 * A callback given in the options (`removalPriority`, `relevance`) threw or returned something unusable; its
 * answer was replaced by a neutral one (priority 0, relevance 0) and fitting went on.
 *
 * @example
 * ```ts
 * import { CallbackFailed } from "@ctxkit/fit/Diagnostics"
 *
 * new CallbackFailed({ callback: "relevance", detail: "returned 2 scores for 3 documents" }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class CallbackFailed extends Schema.TaggedClass<CallbackFailed>("@ctxkit/fit/CallbackFailed")(
  "CallbackFailed",
  {
    /** Which callback. */
    callback: Schema.Literals(["removalPriority", "relevance"]),
    /** The first error message or the problem with the answer. */
    detail: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const neutral = this.callback === "relevance" ? "relevance 0" : "priority 0"
    return `The ${this.callback} callback failed (${this.detail}); ${neutral} was used instead. Make it a total, pure function returning finite numbers${
      this.callback === "relevance" ? ", one score per document" : ""
    }.`
  }
}

/**
 * A message's `meta.relevance` is present but not a number in [0, 1]; the relevance scorer's score was used for
 * it instead.
 *
 * @example
 * ```ts
 * import { RelevanceIgnored } from "@ctxkit/fit/Diagnostics"
 *
 * new RelevanceIgnored({ index: 2, given: "1.7" }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class RelevanceIgnored extends Schema.TaggedClass<RelevanceIgnored>("@ctxkit/fit/RelevanceIgnored")(
  "RelevanceIgnored",
  {
    /** Index of the message in the input. */
    index: Schema.Number,
    /** The value found, as text. */
    given: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `messages[${this.index}].meta.relevance = ${this.given} is not a number in [0, 1]; the relevance scorer's score was used instead. Store relevance as a fraction between 0 and 1.`
  }
}

/**
 * The messages given are not a conversation (not an array, nor an `effect/ai` `Prompt`): nothing is fitted and
 * `fits` is false, so a wrong input never passes for an empty conversation that fits.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { shiftContext } from "@ctxkit/fit"
 *
 * const result = shiftContext({ messages: [] } as never, approximateCounter, 1_000)
 * result.fits // false
 * result.diagnostics[0]?._tag // "NotAConversation", naming the object and its messages array
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class NotAConversation extends Schema.TaggedClass<NotAConversation>("@ctxkit/fit/NotAConversation")(
  "NotAConversation",
  {
    /** What was given instead and what to pass, as text (`expected an array of messages, got null: …`). */
    given: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Not a conversation: ${this.given}. Nothing was fitted and the result does not fit (decodeConversation from @ctxkit/core checks untrusted input).`
  }
}

/**
 * Any diagnostic a fitting reports: its own, and the counting diagnostics of `@ctxkit/budget` (a counter that
 * failed and was replaced by the approximate count).
 *
 * @example
 * ```ts
 * import { type FitDiagnostic, shiftContext } from "@ctxkit/fit"
 *
 * const diagnostics: ReadonlyArray<FitDiagnostic> = shiftContext([], (text) => text.length, Number.NaN).diagnostics
 * diagnostics.map((d) => d._tag) // ["UnusableBudget"]
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type FitDiagnostic =
  | UnusableBudget
  | ProtectedOverBudget
  | RecountMismatch
  | SummaryOmitted
  | OptionAdjusted
  | CallbackFailed
  | RelevanceIgnored
  | NotAConversation
  | BudgetDiagnostic

/**
 * `fitOrFail` was given a budget that is not a finite number of tokens greater than 0, or (`reservedForReply`
 * set) a reply reserve that is not a finite number of tokens, 0 or more. Code `INVALID_BUDGET`.
 *
 * @example
 * ```ts
 * import { InvalidBudget } from "@ctxkit/fit"
 *
 * const error = new InvalidBudget({ budget: "NaN" })
 * error.code // "INVALID_BUDGET"
 * new InvalidBudget({ budget: "3000", reservedForReply: "-1" }).message
 * // "The reply reserve -1 is not a finite number of tokens, 0 or more, so the context limit is unknown and no request was sent. ..."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidBudget extends Schema.TaggedError<InvalidBudget>()("InvalidBudget", {
  /** The budget given, as text. */
  budget: Schema.String,
  /** The reply reserve given, as text, when it is the value at fault. */
  reservedForReply: Schema.optionalKey(Schema.String)
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_BUDGET" as const
  override get message(): string {
    if (this.reservedForReply !== undefined) {
      return `The reply reserve ${this.reservedForReply} is not a finite number of tokens, 0 or more, so the context limit is unknown and no request was sent. Pass the tokens the budget was computed with for the reply (the maxTokens given to available(window, maxTokens)), or leave it out for 0.`
    }
    return `The token budget ${this.budget} is not a finite number of tokens > 0, so nothing can be fitted and no request was sent. Pass the context window minus the reply reserve (available(window, maxTokens) from @ctxkit/budget computes it).`
  }
}
