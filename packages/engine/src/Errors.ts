/**
 * The engine's own typed errors. Each message says what went wrong and how to fix it; the budget errors
 * (`TokenBudgetExceeded`, `ContextBudgetExceeded`) come from `@ctxkit/core` and are re-exported by the engine.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `observe` (or a `prepare` with nothing to append) named a session the store does not have.
 *
 * @example
 * ```ts
 * import { UnknownSession } from "@ctxkit/engine"
 *
 * new UnknownSession({ session: "s1", operation: "observe" }).message.includes("prepare") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UnknownSession extends Schema.TaggedError<UnknownSession>()("UnknownSession", {
  /** The session id asked for. */
  session: Schema.String,
  /** The operation that asked: `prepare` or `observe`. */
  operation: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "UNKNOWN_SESSION" as const
  override get message(): string {
    return this.operation === "observe"
      ? `Unknown session "${this.session}": observe reports on a request that prepare made. Call prepare for this session first, and pass the same session id to both.`
      : `Unknown session "${this.session}" and nothing to append: start a session by calling prepare with its first messages (the system message and the user's request).`
  }
}

/**
 * Messages appended to a session are not in the engine's wire format (or not messages at all).
 *
 * @example
 * ```ts
 * import { InvalidAppend } from "@ctxkit/engine"
 *
 * new InvalidAppend({ session: "s1", format: "anthropic", issues: ["append[0].role: expected user or assistant"] })
 *   .message.includes("format") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidAppend extends Schema.TaggedError<InvalidAppend>()("InvalidAppend", {
  /** The session. */
  session: Schema.String,
  /** The wire format the engine reads (`ContextEngine.layer({ format })`, or the session's detected one). */
  format: Schema.String,
  /** What is wrong, each with its path in `append`. */
  issues: Schema.Array(Schema.String)
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_APPEND" as const
  override get message(): string {
    const shown = this.issues.slice(0, 5).join("; ")
    const more = this.issues.length > 5 ? ` (and ${this.issues.length - 5} more)` : ""
    return `Messages appended to session "${this.session}" are not ${this.format} messages: ${shown}${more}. Nothing was appended. Append messages in the engine's format, or build the engine with the format your messages are in (ContextEngine.layer({ format: formats.<name> })).`
  }
}

/**
 * The token counter failed on a new message: it threw, returned something other than a finite number ≥ 0, or
 * (an effectful counter) its effect failed. Nothing was appended.
 *
 * @example
 * ```ts
 * import { TokenCounterFailed } from "@ctxkit/engine"
 *
 * new TokenCounterFailed({ counter: "o200k_base", error: "boom" }).message.includes("TokenCounter.layer") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class TokenCounterFailed extends Schema.TaggedError<TokenCounterFailed>()("TokenCounterFailed", {
  /** The counter's id. */
  counter: Schema.String,
  /** What it did. */
  error: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "TOKEN_COUNTER_FAILED" as const
  override get message(): string {
    return `The token counter "${this.counter}" failed (${this.error}), so the new messages could not be counted and nothing was appended. Fix the counter, or provide one that works, such as TokenCounter.layer(approximateCounter).`
  }
}

/**
 * The session store failed. The session is as it was before the operation (the store applies each change in one
 * transaction): retry the same call.
 *
 * @example
 * ```ts
 * import { SessionStoreError } from "@ctxkit/engine"
 *
 * new SessionStoreError({ session: "s1", operation: "apply", error: "disk full" }).message.includes("retry") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>()("SessionStoreError", {
  /** The session. */
  session: Schema.String,
  /** The store operation: `load`, `apply` or `delete`. */
  operation: Schema.String,
  /** What the store reported. */
  error: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "SESSION_STORE_FAILED" as const
  override get message(): string {
    return `The session store failed to ${this.operation} session "${this.session}" (${this.error}). The session is as it was before this call: retry the same call once the store is reachable.`
  }
}

/**
 * A change was applied to a session that changed in between (another writer): the store refused it.
 *
 * @example
 * ```ts
 * import { SessionConflict } from "@ctxkit/engine/Errors"
 *
 * new SessionConflict({ session: "s1", expected: 3, found: 4 }).message.includes("one engine") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionConflict extends Schema.TaggedError<SessionConflict>()("SessionConflict", {
  /** The session. */
  session: Schema.String,
  /** The revision the change was prepared against. */
  expected: Schema.Number,
  /** The revision the store holds. */
  found: Schema.Number
}) {
  /** Stable machine-readable code. */
  readonly code = "SESSION_CONFLICT" as const
  override get message(): string {
    return `Session "${this.session}" changed while a change was being prepared (revision ${this.expected} expected, ${this.found} found), so the change was refused and the session is as the other writer left it. Serve each session from one engine, and retry the call.`
  }
}

/**
 * `ContextEngine.layer` was given an option it cannot use (a window or reply budget that is not a positive
 * number, an unknown preset, a policy whose thresholds contradict each other). The engine is not built: there is
 * no safe default for these.
 *
 * @example
 * ```ts
 * import { InvalidEngineOptions } from "@ctxkit/engine"
 *
 * new InvalidEngineOptions({ option: "window", problem: "got -1; pass the model's context window in tokens" })
 *   .message.startsWith("ContextEngine.layer: option window") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidEngineOptions extends Schema.TaggedError<InvalidEngineOptions>()("InvalidEngineOptions", {
  /** The option at fault. */
  option: Schema.String,
  /** What is wrong with it and what to pass instead. */
  problem: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_ENGINE_OPTIONS" as const
  override get message(): string {
    return `ContextEngine.layer: option ${this.option} is not usable (${this.problem}).`
  }
}
