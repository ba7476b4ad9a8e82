/**
 * What core reports instead of failing, in one module as every ctxkit package has it: the diagnostics of
 * `toolGroups` (an orphan result or approval response, a dangling call, a reused id, a call awaiting execution,
 * an input that is not a conversation), which `repairPairs` and every strategy also report. Each has a stable
 * `_tag` and a `message` that names the problem and the fix. What `repairPairs` changed is its result, not a
 * diagnostic: `RepairChange` in `@ctxkit/core/RepairPairs`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A tool result whose call does not appear anywhere in the conversation. Providers reject such a request;
 * `repairPairs` drops it.
 *
 * @example
 * ```ts
 * import { OrphanResult } from "@ctxkit/core"
 *
 * new OrphanResult({ callId: "c9", index: 4 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class OrphanResult extends Schema.TaggedClass<OrphanResult>("@ctxkit/core/OrphanResult")("OrphanResult", {
  /** The call id the result claims to answer. */
  callId: Schema.String,
  /** Index of the message carrying the result. */
  index: Schema.Number
}) {
  /** What is wrong and what to do. */
  get message(): string {
    return `messages[${this.index}] answers tool call "${this.callId}", which no message issues. Providers reject orphan results: drop it with repairPairs(messages, { orphans: "drop" }).`
  }
}

/**
 * A tool call with no result anywhere in the conversation: in flight, or its outcome is unknown.
 * `repairPairs` can drop it or answer it with a stub.
 *
 * @example
 * ```ts
 * import { DanglingCall } from "@ctxkit/core"
 *
 * new DanglingCall({ callId: "c1", index: 2 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class DanglingCall extends Schema.TaggedClass<DanglingCall>("@ctxkit/core/DanglingCall")("DanglingCall", {
  /** The id of the unanswered call. */
  callId: Schema.String,
  /** Index of the message issuing it. */
  index: Schema.Number
}) {
  /** What is wrong and what to do. */
  get message(): string {
    return `Tool call "${this.callId}" issued by messages[${this.index}] has no result. If it is not in flight, close it with repairPairs(messages, { dangling: "stub" }) or drop it with { dangling: "drop" }.`
  }
}

/**
 * One call id issued by two different calls. When the earlier call was already answered, the id is read
 * as reused (later results answer the later call: servers that number calls per response do this);
 * otherwise the results cannot be told apart and every message using the id is put in one group. Some
 * providers reject a request with duplicate ids.
 *
 * @example
 * ```ts
 * import { ReusedCallId } from "@ctxkit/core"
 *
 * new ReusedCallId({ callId: "call_0", first: 1, index: 7 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class ReusedCallId extends Schema.TaggedClass<ReusedCallId>("@ctxkit/core/ReusedCallId")("ReusedCallId", {
  /** The reused id. */
  callId: Schema.String,
  /** Index of the message that issued it first. */
  first: Schema.Number,
  /** Index of the message that issued it again. */
  index: Schema.Number
}) {
  /** What is wrong and what to do. */
  get message(): string {
    return `Tool call id "${this.callId}" is issued by messages[${this.first}] and again by messages[${this.index}]. Results after the second call are paired with it; some providers reject duplicate ids, so give each call a unique id.`
  }
}

/**
 * An approval response whose request is nowhere in the conversation (AI SDK and `effect/ai` tool approvals,
 * OpenAI Responses `mcp_approval_response` items).
 * The AI SDK rejects such a prompt (`AI_InvalidToolApprovalError`); `repairPairs` drops it.
 *
 * @example
 * ```ts
 * import { OrphanApprovalResponse } from "@ctxkit/core"
 *
 * new OrphanApprovalResponse({ approvalId: "a7", index: 5 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class OrphanApprovalResponse
  extends Schema.TaggedClass<OrphanApprovalResponse>("@ctxkit/core/OrphanApprovalResponse")("OrphanApprovalResponse", {
    /** The approval id the response answers. */
    approvalId: Schema.String,
    /** Index of the message carrying the response. */
    index: Schema.Number
  })
{
  /** What is wrong and what to do. */
  get message(): string {
    return `messages[${this.index}] answers approval "${this.approvalId}", which no message requests. The AI SDK rejects it (AI_InvalidToolApprovalError): drop it with repairPairs(messages, { orphans: "drop" }).`
  }
}

/**
 * Information, not a problem: a call whose approval was answered and that has no result yet. Approved, it is
 * waiting to run (the AI SDK's normal state between steps); denied, it is waiting for the framework's
 * `execution-denied` result. It is not dangling: `repairPairs` never stubs or drops it, and fitting keeps it
 * with its approval.
 *
 * @example
 * ```ts
 * import { AwaitingExecution } from "@ctxkit/core"
 *
 * new AwaitingExecution({ callId: "c1", approvalId: "a1", approved: true, index: 2 }).message
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class AwaitingExecution
  extends Schema.TaggedClass<AwaitingExecution>("@ctxkit/core/AwaitingExecution")("AwaitingExecution", {
    /** The id of the call. */
    callId: Schema.String,
    /** The approval that was answered. */
    approvalId: Schema.String,
    /** Whether the approval was granted. */
    approved: Schema.Boolean,
    /** Index of the message issuing the call. */
    index: Schema.Number
  })
{
  /** What it means. */
  get message(): string {
    return this.approved
      ? `Tool call "${this.callId}" issued by messages[${this.index}] was approved and has not run yet; it runs on the next step. Nothing to repair.`
      : `Tool call "${this.callId}" issued by messages[${this.index}] was denied and has no result yet; the framework answers it with an execution-denied result. Nothing to repair.`
  }
}

/**
 * The messages given are not a conversation (not an array, nor an `effect/ai` `Prompt`; for example an object
 * holding a `messages` array, a string, `null`): nothing was read, so there are no groups and nothing to
 * repair. Reported so that a JavaScript caller's mistake is never read as an empty conversation that is fine.
 *
 * @example
 * ```ts
 * import { toolGroups } from "@ctxkit/core"
 *
 * const wrong: unknown = { messages: [{ role: "user", content: "hi" }] }
 * toolGroups(wrong as ReadonlyArray<unknown>).diagnostics[0]?._tag // "NotAConversation"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class NotAConversation extends Schema.TaggedClass<NotAConversation>("@ctxkit/core/NotAConversation")(
  "NotAConversation",
  {
    /** What was given instead and what to pass, as text (`expected an array of messages, got null: …`). */
    given: Schema.String
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Not a conversation: ${this.given}. Nothing was read (decodeConversation checks untrusted input).`
  }
}

/**
 * What `toolGroups` reports. Reported, never thrown: problems (an orphan result or approval response, a
 * dangling call, a reused id) and the informational {@link AwaitingExecution}.
 *
 * @example
 * ```ts
 * import { toolGroups } from "@ctxkit/core"
 * import type { GroupDiagnostic } from "@ctxkit/core/ToolGroups"
 *
 * const diagnostics: ReadonlyArray<GroupDiagnostic> = toolGroups([{ role: "tool", toolCallId: "x", content: "" }]).diagnostics
 * diagnostics[0]?._tag // "OrphanResult"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type GroupDiagnostic =
  | OrphanResult
  | DanglingCall
  | ReusedCallId
  | OrphanApprovalResponse
  | AwaitingExecution
  | NotAConversation
