/**
 * Making a conversation acceptable to providers that reject unpaired tool messages: orphan results and orphan
 * approval responses are dropped, dangling calls dropped or answered with a stub that says their outcome is
 * unknown.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { conversationMessages } from "./ConversationMessages.ts"
import { type GroupDiagnostic, NotAConversation } from "./Diagnostics.ts"
import { auto } from "./formats/Auto.ts"
import type { FormatInput, MessageFormat, ToolCallInfo } from "./MessageFormat.ts"
import { toolGroups } from "./ToolGroups.ts"

/**
 * The text of the synthetic result `repairPairs` gives a dangling call under `dangling: "stub"`.
 *
 * @example
 * ```ts
 * import { UNKNOWN_OUTCOME_TEXT } from "@ctxkit/core"
 *
 * UNKNOWN_OUTCOME_TEXT.startsWith("[") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const UNKNOWN_OUTCOME_TEXT =
  "[no result was recorded for this tool call; its outcome is unknown. Do not assume it succeeded: check, or run it again if it is safe to]"

/**
 * A result dropped because no message issues its call.
 *
 * @example
 * ```ts
 * import { OrphanDropped } from "@ctxkit/core"
 *
 * new OrphanDropped({ callId: "c9", index: 4 })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class OrphanDropped extends Schema.TaggedClass<OrphanDropped>("@ctxkit/core/OrphanDropped")("OrphanDropped", {
  callId: Schema.String,
  /** Index in the input of the message that carried it. */
  index: Schema.Number
}) {}

/**
 * A dangling call removed from the message that issued it.
 *
 * @example
 * ```ts
 * import { CallDropped } from "@ctxkit/core"
 *
 * new CallDropped({ callId: "c1", index: 2 })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class CallDropped extends Schema.TaggedClass<CallDropped>("@ctxkit/core/CallDropped")("CallDropped", {
  callId: Schema.String,
  /** Index in the input of the issuing message. */
  index: Schema.Number
}) {}

/**
 * A dangling call answered with a synthetic result ({@link UNKNOWN_OUTCOME_TEXT}).
 *
 * @example
 * ```ts
 * import { CallStubbed } from "@ctxkit/core"
 *
 * new CallStubbed({ callId: "c1", index: 2 })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class CallStubbed extends Schema.TaggedClass<CallStubbed>("@ctxkit/core/CallStubbed")("CallStubbed", {
  callId: Schema.String,
  /** Index in the input of the issuing message. */
  index: Schema.Number
}) {}

/**
 * An approval part removed: a response whose request is nowhere (`OrphanApprovalResponse`), or the request
 * or response of a call that was dropped.
 *
 * @example
 * ```ts
 * import { ApprovalDropped } from "@ctxkit/core"
 *
 * new ApprovalDropped({ approvalId: "a7", index: 5 })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class ApprovalDropped extends Schema.TaggedClass<ApprovalDropped>("@ctxkit/core/ApprovalDropped")(
  "ApprovalDropped",
  {
    approvalId: Schema.String,
    /** Index in the input of the message that carried it. */
    index: Schema.Number
  }
) {}

/**
 * A message removed whole because nothing was left of it once its orphan results or dangling calls went.
 *
 * @example
 * ```ts
 * import { MessageDropped } from "@ctxkit/core"
 *
 * new MessageDropped({ index: 4 })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class MessageDropped extends Schema.TaggedClass<MessageDropped>("@ctxkit/core/MessageDropped")(
  "MessageDropped",
  { index: Schema.Number }
) {}

/**
 * One change `repairPairs` made.
 *
 * @example
 * ```ts
 * import type { RepairChange } from "@ctxkit/core/RepairPairs"
 *
 * const describe = (change: RepairChange) => `${change._tag} at messages[${change.index}]`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type RepairChange = OrphanDropped | CallDropped | CallStubbed | ApprovalDropped | MessageDropped

/**
 * Options of {@link repairPairs}.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { RepairOptions } from "@ctxkit/core/RepairPairs"
 *
 * const options: RepairOptions<unknown> = { dangling: "drop", orphans: "drop", format: formats.auto }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RepairOptions<M> {
  /**
   * What to do with a call that has no result: leave it, drop it (with its approval request and response), or
   * answer it with a stub. Default `"stub"`. A call whose approval was answered is awaiting execution, not
   * dangling: it is never stubbed or dropped.
   */
  readonly dangling?: "keep" | "drop" | "stub" | undefined
  /**
   * What to do with a result whose call is nowhere, and with an approval response whose request is nowhere:
   * leave them or drop them. Default `"drop"`.
   */
  readonly orphans?: "keep" | "drop" | undefined
  /** The wire format. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** The text of stub results. Default {@link UNKNOWN_OUTCOME_TEXT}. */
  readonly stubText?: string | undefined
}

/**
 * {@link RepairOptions} without a format: messages are read with `formats.auto` and come back with their
 * own type.
 *
 * @example
 * ```ts
 * import type { AutoRepairOptions } from "@ctxkit/core/RepairPairs"
 *
 * const options: AutoRepairOptions = { dangling: "stub" }
 * ```
 *
 * @category models
 * @since 0.1.0
 * @inline
 */
export type AutoRepairOptions = Omit<RepairOptions<unknown>, "format"> & { readonly format?: undefined }

/**
 * What {@link repairPairs} returns: the repaired messages, what it changed (indices refer to the input),
 * and the diagnostics of the input it was given.
 *
 * @example
 * ```ts
 * import { repairPairs } from "@ctxkit/core"
 * import type { RepairResult } from "@ctxkit/core/RepairPairs"
 *
 * const result: RepairResult<unknown> = repairPairs([{ role: "user", content: "hi" }])
 * result.changes.length // 0
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RepairResult<M> {
  /** The repaired conversation; the input array itself when nothing changed. Untouched messages are the same objects. */
  readonly messages: ReadonlyArray<M>
  readonly changes: ReadonlyArray<RepairChange>
  /** The diagnostics of the input (as `toolGroups` reports them). */
  readonly diagnostics: ReadonlyArray<GroupDiagnostic>
}

/** The keys of {@link RepairOptions}: a lone argument with any other key is a (wrong) conversation, not options. */
const OPTION_KEYS: ReadonlySet<string> = new Set(["dangling", "orphans", "format", "stubText"])

/**
 * Whether a lone argument is the options of the data-last form. Anything else — an array, an `effect/ai`
 * `Prompt`, `{ messages }`, a string, `null` — is taken as the messages, so that a wrong input is diagnosed
 * instead of answered with a function.
 */
const isOptions = (arg: unknown): boolean =>
  arg === undefined ||
  (Predicate.isObject(arg) && !Array.isArray(arg) && Object.keys(arg).every((key) => OPTION_KEYS.has(key)))

const repair = <M>(input: ReadonlyArray<M>, options: RepairOptions<M> = {}): RepairResult<M> => {
  const format = options.format ?? (auto as unknown as MessageFormat<M>)
  // Not a conversation at all (a JavaScript caller's mistake): nothing to repair, and said so.
  const read = conversationMessages(input, { format })
  if (Result.isFailure(read)) {
    const given = read.failure.issues[0]?.message ?? "expected an array of messages"
    return { messages: [], changes: [], diagnostics: [new NotAConversation({ given })] }
  }
  const messages = read.success as ReadonlyArray<M>
  const dangling = options.dangling ?? "stub"
  const orphans = options.orphans ?? "drop"
  const stubText = options.stubText ?? UNKNOWN_OUTCOME_TEXT
  const { diagnostics } = toolGroups(messages, format)

  // Call ids whose calls and results go, approval ids whose requests and responses go, and per issuer index
  // the dangling calls to answer with a stub.
  const removeCalls = new Set<string>()
  const removeApprovals = new Set<string>()
  const stubAt = new Map<number, Set<string>>()
  for (const d of diagnostics) {
    if (d._tag === "OrphanResult" && orphans === "drop") removeCalls.add(d.callId)
    else if (d._tag === "OrphanApprovalResponse" && orphans === "drop") removeApprovals.add(d.approvalId)
    else if (d._tag === "DanglingCall" && dangling === "drop") removeCalls.add(d.callId)
    else if (d._tag === "DanglingCall" && dangling === "stub") {
      const ids = stubAt.get(d.index) ?? new Set<string>()
      ids.add(d.callId)
      stubAt.set(d.index, ids)
    }
  }
  if (removeCalls.size === 0 && removeApprovals.size === 0 && stubAt.size === 0) {
    return { messages, changes: [], diagnostics }
  }
  // A dropped call takes its approval with it: its request may sit in the issuer, its response far away.
  if (removeCalls.size > 0) {
    for (const message of messages) {
      for (const approval of format.approvals(message)) {
        if (approval.kind === "request" && removeCalls.has(approval.callId)) removeApprovals.add(approval.approvalId)
      }
    }
  }

  const changes: Array<RepairChange> = []
  const out: Array<M> = []
  // Stubs wait until the run of result messages right after their issuer has been copied.
  let pending: Array<M> = []
  const flush = () => {
    if (pending.length > 0) {
      for (const stub of pending) out.push(stub)
      pending = []
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (pending.length > 0 && format.role(message) !== "tool") flush()
    let kept: M | undefined = message
    let touched = false
    if (removeCalls.size > 0) {
      for (const link of format.links(message)) {
        if (link.kind === "ref" || !removeCalls.has(link.id)) continue
        touched = true
        changes.push(
          link.kind === "result"
            ? new OrphanDropped({ callId: link.id, index: i })
            : new CallDropped({ callId: link.id, index: i })
        )
      }
    }
    if (removeApprovals.size > 0) {
      for (const approval of format.approvals(message)) {
        if (!removeApprovals.has(approval.approvalId)) continue
        touched = true
        changes.push(new ApprovalDropped({ approvalId: approval.approvalId, index: i }))
      }
    }
    if (touched) {
      kept = format.withoutToolParts(message, removeCalls, removeApprovals)
      if (kept === undefined) changes.push(new MessageDropped({ index: i }))
    }
    if (kept !== undefined) out.push(kept)
    const ids = stubAt.get(i)
    if (ids !== undefined) {
      const calls: Array<ToolCallInfo> = format.toolCalls(message).filter((call) => ids.has(call.id))
      for (const call of calls) changes.push(new CallStubbed({ callId: call.id, index: i }))
      for (const stub of format.makeToolResults(message, calls, stubText, { isError: false })) pending.push(stub)
    }
  }
  flush()
  return { messages: out, changes, diagnostics }
}

/**
 * Makes a conversation acceptable to providers that reject unpaired tool messages — the failure most
 * reported against every agent framework. Orphan results (no call for them anywhere) and orphan approval
 * responses (no request for them anywhere) are dropped; dangling calls (no result anywhere) are dropped with
 * their approval request and response, or answered with a synthetic result that says their outcome is
 * unknown, placed after the issuing message and the results that already follow it. A call whose approval
 * was answered is awaiting execution and is left alone. Messages left empty are removed. Reports every change;
 * never mutates its input; returns the input array itself when there is nothing to repair. With a format, the
 * repaired messages have the caller's own message type. The input is read through `conversationMessages`: an
 * `effect/ai` `Prompt` is read as its messages; anything else that is not an array gives no messages and a
 * `NotAConversation` diagnostic naming it and the fix.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { formats, repairPairs } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "zzz", content: "stale result" }
 * ]
 * const { messages: repaired, changes } = repairPairs(messages, { format: formats.openaiChat })
 * changes.map((c) => c._tag) // ["CallStubbed", "OrphanDropped", "MessageDropped"]
 * repaired.length // 2: the call, then its stub result
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const repairPairs: {
  <F>(
    options: RepairOptions<F> & { readonly format: MessageFormat<F> }
  ): <M extends FormatInput<F>>(messages: ReadonlyArray<M>) => RepairResult<M>
  (options?: AutoRepairOptions): <M>(messages: ReadonlyArray<M>) => RepairResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    options: RepairOptions<F> & { readonly format: MessageFormat<F> }
  ): RepairResult<M>
  <M>(messages: ReadonlyArray<M>, options?: AutoRepairOptions): RepairResult<M>
} = dual(
  (args: IArguments) => args.length >= 2 || !isOptions(args[0]),
  <M>(messages: ReadonlyArray<M>, options?: RepairOptions<M>): RepairResult<M> => repair(messages, options)
)
