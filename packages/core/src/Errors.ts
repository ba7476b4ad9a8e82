/**
 * The errors shared by every ctxkit package: tagged, Schema-defined, with a stable `_tag`, a stable `code` where
 * the designs ctxkit follows name one (Alisio's, the local-harness overflow guide), and a message that says what
 * to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The protected part of a prompt (system prompt, pinned messages, the current request) does not fit the
 * token budget on its own, so the request must not be sent. Code `TOKEN_BUDGET_EXCEEDED`.
 *
 * @example
 * ```ts
 * import { TokenBudgetExceeded } from "@ctxkit/core"
 *
 * const error = new TokenBudgetExceeded({ contextLimit: 8_192, reservedForReply: 2_048, promptTokens: 7_000 })
 * error.code // "TOKEN_BUDGET_EXCEEDED"
 * error.message // "Protected prompt context exceeds the configured token budget (7000 tokens; ..."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class TokenBudgetExceeded extends Schema.TaggedError<TokenBudgetExceeded>()("TokenBudgetExceeded", {
  /** The model's context window, in tokens. */
  contextLimit: Schema.Number,
  /** Tokens kept free for the reply (the `max_tokens` sent). */
  reservedForReply: Schema.Number,
  /** Tokens of the protected prompt that did not fit. */
  promptTokens: Schema.Number
}) {
  /** Stable machine-readable code. */
  readonly code = "TOKEN_BUDGET_EXCEEDED" as const
  override get message(): string {
    const budget = this.contextLimit - this.reservedForReply
    return `Protected prompt context exceeds the configured token budget (${this.promptTokens} tokens; budget ${budget} = context limit ${this.contextLimit} - reply reserve ${this.reservedForReply}). Unpin messages, shorten the system prompt or the current request, lower the reply reserve, or use a model with a larger window.`
  }
}

/**
 * Compaction's hard limit: even after reduction and a last compaction the conversation is larger than
 * the character budget. `what` says what compaction did; `advice` what the user can do.
 *
 * @example
 * ```ts
 * import { ContextBudgetExceeded } from "@ctxkit/core"
 *
 * const error = new ContextBudgetExceeded({
 *   conversationChars: 912_000,
 *   limit: 800_000,
 *   what: "Automatic compaction ran but could not reduce it enough.",
 *   advice: "Run /compact, trim large tool outputs, or start a new session."
 * })
 * error.message.startsWith("Context budget exceeded (approximately 912000 characters") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ContextBudgetExceeded extends Schema.TaggedError<ContextBudgetExceeded>()("ContextBudgetExceeded", {
  /** Approximate size of the conversation (instructions + transcript), in characters. */
  conversationChars: Schema.Number,
  /** The character limit it exceeds. */
  limit: Schema.Number,
  /** Exactly one sentence saying what automatic compaction did. */
  what: Schema.String,
  /** What the user can do about it (host-configurable). */
  advice: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "CONTEXT_BUDGET_EXCEEDED" as const
  override get message(): string {
    return `Context budget exceeded (approximately ${this.conversationChars} characters of conversation; limit ${this.limit}). ${this.what} ${this.advice}`
  }
}

/**
 * One problem found in a conversation: where (`messages[3].toolCallId`) and what.
 *
 * @example
 * ```ts
 * import { ConversationIssue } from "@ctxkit/core"
 *
 * const issue = new ConversationIssue({ path: "messages[3].toolCallId", message: "expected string, got 42" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class ConversationIssue extends Schema.Class<ConversationIssue>("@ctxkit/core/ConversationIssue")({
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * Input that is not a conversation of the expected format. Lists every problem with its path.
 *
 * @example
 * ```ts
 * import { ConversationIssue, InvalidConversation } from "@ctxkit/core"
 *
 * const error = new InvalidConversation({
 *   format: "canonical",
 *   issues: [new ConversationIssue({ path: "messages[0].role", message: "expected \"user\"" })]
 * })
 * error.message // "Invalid canonical conversation: messages[0].role: expected \"user\". ..."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidConversation extends Schema.TaggedError<InvalidConversation>()("InvalidConversation", {
  /** The wire format the input was read as. */
  format: Schema.String,
  /** Every problem found, each with its path. */
  issues: Schema.Array(ConversationIssue)
}) {
  /** Stable machine-readable code. */
  readonly code = "INVALID_CONVERSATION" as const
  override get message(): string {
    const shown = this.issues.slice(0, 10).map((issue) => `${issue.path}: ${issue.message}`).join("; ")
    const more = this.issues.length > 10 ? ` (and ${this.issues.length - 10} more)` : ""
    return `Invalid ${this.format} conversation: ${shown}${more}. Pass an array of messages in that format, or choose the format that matches your messages ({ format: formats.<name> }).`
  }
}

/**
 * A context strategy id that no registry entry answers.
 *
 * @example
 * ```ts
 * import { UnknownStrategy } from "@ctxkit/core"
 *
 * new UnknownStrategy({ id: "smart", available: ["manual", "summarize", "truncate", "vector-recall"] }).message
 * // "Unknown context strategy \"smart\" ..."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UnknownStrategy extends Schema.TaggedError<UnknownStrategy>()("UnknownStrategy", {
  /** The id that was asked for. */
  id: Schema.String,
  /** The ids the registry knows, sorted. */
  available: Schema.Array(Schema.String)
}) {
  /** Stable machine-readable code. */
  readonly code = "UNKNOWN_STRATEGY" as const
  override get message(): string {
    return `Unknown context strategy "${this.id}". Use one of: ${this.available.join(", ")}, or register it first.`
  }
}

/**
 * Compaction could not produce a checkpoint (the summarizer failed, refused or returned nothing usable).
 * The history is left as it was.
 *
 * @example
 * ```ts
 * import { CompactionFailed } from "@ctxkit/core"
 *
 * new CompactionFailed({ reason: "auto", error: "summarizer timed out" }).message
 * // "Compaction failed (summarizer timed out). ..."
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class CompactionFailed extends Schema.TaggedError<CompactionFailed>()("CompactionFailed", {
  /** Why compaction ran: `manual`, `auto` or `budget`. */
  reason: Schema.Literals(["manual", "auto", "budget"]),
  /** What went wrong, without provider response bodies. */
  error: Schema.String
}) {
  /** Stable machine-readable code. */
  readonly code = "COMPACTION_FAILED" as const
  override get message(): string {
    return `Compaction failed (${this.error}). The history was left unchanged; retry, or run /compact with a different summarizer model.`
  }
}
