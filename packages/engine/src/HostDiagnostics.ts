/**
 * What the host reports when it does not trust a plugin: a strategy rejected, failed or refitted, an
 * interceptor skipped or undone, the final fit after the interceptors, an approximate tokenizer. Schema tagged
 * classes with stable `_tag`s; their `message`s are the stable texts an audit shows.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A plugin strategy's result was not used: it removed protected context (`protected-removed`), split a
 * tool-call group (`group-split`), kept messages that are neither from the input nor its own declared notes or
 * compressed copies (`foreign-messages`), or did not return a fitting of the input at all (`invalid-result`).
 * Safe truncation of the input was used instead. For the first two the message is exactly
 * `context strategy "<id>" rejected: protected context was removed`.
 *
 * @example
 * ```ts
 * import { StrategyRejected } from "@ctxkit/engine/HostDiagnostics"
 *
 * new StrategyRejected({ strategy: "my/recall", problem: "protected-removed", detail: "message 0 was removed" }).message
 * // "context strategy \"my/recall\" rejected: protected context was removed"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class StrategyRejected extends Schema.TaggedClass<StrategyRejected>("@ctxkit/engine/StrategyRejected")(
  "StrategyRejected",
  {
    /** The id of the strategy. */
    strategy: Schema.String,
    /** What was wrong with its result. */
    problem: Schema.Literals(["protected-removed", "group-split", "foreign-messages", "invalid-result"]),
    /** Where, in words (`protected message 3 was removed`). */
    detail: Schema.String
  }
) {
  /** What happened. */
  get message(): string {
    return this.problem === "protected-removed" || this.problem === "group-split"
      ? `context strategy "${this.strategy}" rejected: protected context was removed`
      : `context strategy "${this.strategy}" rejected: its result is not a fitting of the input (${this.detail}); safe truncation used instead`
  }
}

/**
 * A plugin strategy threw, failed, died or did not complete within its timeout; safe truncation of the input was
 * used instead. The message is exactly `context strategy "<id>" failed or timed out; safe truncation used
 * instead`; `detail` says which (an error name and message, clipped; never a provider response body).
 *
 * @example
 * ```ts
 * import { StrategyFailed } from "@ctxkit/engine/HostDiagnostics"
 *
 * new StrategyFailed({ strategy: "my/recall", cause: "timed-out", detail: "did not complete within 15s" }).message
 * // "context strategy \"my/recall\" failed or timed out; safe truncation used instead"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class StrategyFailed extends Schema.TaggedClass<StrategyFailed>("@ctxkit/engine/StrategyFailed")(
  "StrategyFailed",
  {
    /** The id of the strategy. */
    strategy: Schema.String,
    /** `failed` (threw, failed or died) or `timed-out`. */
    cause: Schema.Literals(["failed", "timed-out"]),
    /** The error, in a few words. */
    detail: Schema.String
  }
) {
  /** What happened. */
  get message(): string {
    return `context strategy "${this.strategy}" failed or timed out; safe truncation used instead`
  }
}

/**
 * The host recounted a plugin strategy's result with its own counter and found it over the budget (or the
 * budget unusable), so it fitted the result again with built-in truncation, removing `removed` more messages.
 *
 * @example
 * ```ts
 * import { StrategyRefitted } from "@ctxkit/engine/HostDiagnostics"
 *
 * new StrategyRefitted({ strategy: "my/recall", tokens: 9_000, budget: 6_000, removed: 12 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class StrategyRefitted extends Schema.TaggedClass<StrategyRefitted>("@ctxkit/engine/StrategyRefitted")(
  "StrategyRefitted",
  {
    /** The id of the strategy. */
    strategy: Schema.String,
    /** Tokens of its result by the host's count. */
    tokens: Schema.Number,
    /** The budget. */
    budget: Schema.Number,
    /** Messages the host removed to fit. */
    removed: Schema.Number
  }
) {
  /** What happened. */
  get message(): string {
    return `context strategy "${this.strategy}" returned ${this.tokens} tokens by the host's count, over the budget of ${this.budget}; the host removed ${this.removed} more messages to fit`
  }
}

/**
 * Any diagnostic of the strategy guard ({@link StrategyRejected}, {@link StrategyFailed},
 * {@link StrategyRefitted}).
 *
 * @example
 * ```ts
 * import type { HostDiagnostic } from "@ctxkit/engine/HostDiagnostics"
 *
 * const show = (d: HostDiagnostic) => `${d._tag}: ${d.message}`
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type HostDiagnostic = StrategyRejected | StrategyFailed | StrategyRefitted

/**
 * An interceptor was skipped and the run went on with the messages it was given: it threw, failed or died
 * (`failed`), did not complete within its timeout (`timed-out`), or returned something that is not a usable
 * message list (`invalid-output`: not an array, messages reordered or repeated, values the format cannot read,
 * or added messages that carry tool calls, results or other links).
 *
 * @example
 * ```ts
 * import { InterceptorSkipped } from "@ctxkit/engine/HostDiagnostics"
 *
 * new InterceptorSkipped({ interceptor: "rag", cause: "timed-out", detail: "did not complete within 2s" }).message
 * // "interceptor \"rag\" failed or timed out; it was skipped and the run went on"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class InterceptorSkipped extends Schema.TaggedClass<InterceptorSkipped>("@ctxkit/engine/InterceptorSkipped")(
  "InterceptorSkipped",
  {
    /** The id of the interceptor. */
    interceptor: Schema.String,
    /** Why it was skipped. */
    cause: Schema.Literals(["failed", "timed-out", "invalid-output"]),
    /** The error or the problem with its output, in a few words. */
    detail: Schema.String
  }
) {
  /** What happened. */
  get message(): string {
    return this.cause === "invalid-output"
      ? `interceptor "${this.interceptor}" returned an invalid message list (${this.detail}); it was skipped and the run went on`
      : `interceptor "${this.interceptor}" failed or timed out; it was skipped and the run went on`
  }
}

/**
 * An interceptor removed protected messages (`protected-removed`) or part of a tool-call group (`group-split`);
 * the host put them back where they were.
 *
 * @example
 * ```ts
 * import { InterceptorRestored } from "@ctxkit/engine/HostDiagnostics"
 *
 * new InterceptorRestored({ interceptor: "cleanup", problem: "protected-removed", restored: 1 }).message
 * // "interceptor \"cleanup\" removed protected context; 1 messages were restored"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class InterceptorRestored extends Schema.TaggedClass<InterceptorRestored>("@ctxkit/engine/InterceptorRestored")(
  "InterceptorRestored",
  {
    /** The id of the interceptor. */
    interceptor: Schema.String,
    /** `protected-removed` when a protected message was among them, else `group-split`. */
    problem: Schema.Literals(["protected-removed", "group-split"]),
    /** How many messages were put back. */
    restored: Schema.Number
  }
) {
  /** What happened. */
  get message(): string {
    return this.problem === "protected-removed"
      ? `interceptor "${this.interceptor}" removed protected context; ${this.restored} messages were restored`
      : `interceptor "${this.interceptor}" split a tool-call group; ${this.restored} messages were restored`
  }
}

/**
 * After the interceptors, the mandatory recount found the prompt over the budget (or the budget unusable), and
 * the final fit removed `removed` messages — the interceptors' additions first.
 *
 * @example
 * ```ts
 * import { FinalFitApplied } from "@ctxkit/engine/HostDiagnostics"
 *
 * new FinalFitApplied({ tokens: 7_000, budget: 6_000, removed: 2 }).message
 * // "after the interceptors the prompt costs 7000 tokens, over the budget of 6000; the final fit removed 2 messages"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class FinalFitApplied extends Schema.TaggedClass<FinalFitApplied>("@ctxkit/engine/FinalFitApplied")(
  "FinalFitApplied",
  {
    /** Tokens after the interceptors, by the host's count. */
    tokens: Schema.Number,
    /** The budget. */
    budget: Schema.Number,
    /** Messages the final fit removed. */
    removed: Schema.Number
  }
) {
  /** What happened. */
  get message(): string {
    return `after the interceptors the prompt costs ${this.tokens} tokens, over the budget of ${this.budget}; the final fit removed ${this.removed} messages`
  }
}

/**
 * Any diagnostic of the interceptor stage ({@link InterceptorSkipped}, {@link InterceptorRestored},
 * {@link FinalFitApplied}).
 *
 * @example
 * ```ts
 * import type { InterceptorDiagnostic } from "@ctxkit/engine/HostDiagnostics"
 *
 * const show = (d: InterceptorDiagnostic) => `${d._tag}: ${d.message}`
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type InterceptorDiagnostic = InterceptorSkipped | InterceptorRestored | FinalFitApplied

/**
 * The token counts of an audit come from an approximate tokenizer (or some texts fell back to the approximate
 * count). The message is exactly `tokenizer "<profile>" is approximate`.
 *
 * @example
 * ```ts
 * import { TokenizerApproximate } from "@ctxkit/engine/HostDiagnostics"
 *
 * new TokenizerApproximate({ profile: "approximate-chars-v1" }).message
 * // "tokenizer \"approximate-chars-v1\" is approximate"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class TokenizerApproximate extends Schema.TaggedClass<TokenizerApproximate>(
  "@ctxkit/engine/TokenizerApproximate"
)("TokenizerApproximate", {
  /** The tokenizer profile (the counter's id). */
  profile: Schema.String
}) {
  /** What happened. */
  get message(): string {
    return `tokenizer "${this.profile}" is approximate`
  }
}
