/**
 * Tool-call groups: the sets of messages that must be kept or dropped together because they are linked
 * by tool-call ids (a call and every result for it), approvals, or reasoning items — transitively, and
 * wherever the members sit in the conversation.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { auto } from "./formats/Auto.ts"
import type { Link, MessageFormat } from "./MessageFormat.ts"

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
 * A problem `toolGroups` found. Reported, never thrown.
 *
 * @example
 * ```ts
 * import { type GroupDiagnostic, toolGroups } from "@ctxkit/core"
 *
 * const diagnostics: ReadonlyArray<GroupDiagnostic> = toolGroups([{ role: "tool", toolCallId: "x", content: "" }]).diagnostics
 * diagnostics[0]?._tag // "OrphanResult"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type GroupDiagnostic = OrphanResult | DanglingCall | ReusedCallId

/**
 * The partition of a conversation into tool-call groups.
 *
 * @example
 * ```ts
 * import { type ToolGroups, toolGroups } from "@ctxkit/core"
 *
 * const result: ToolGroups = toolGroups([{ role: "user", content: "hi" }])
 * result.groups // [[0]]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolGroups {
  /** Each group as the ascending indices of its messages; groups ordered by their first index. */
  readonly groups: ReadonlyArray<ReadonlyArray<number>>
  /** `groupOf[i]` is the index in `groups` of message `i`'s group. */
  readonly groupOf: ReadonlyArray<number>
  /** Reused call ids and orphan results in the order found, then dangling calls by issuer index. */
  readonly diagnostics: ReadonlyArray<GroupDiagnostic>
}

/**
 * Partitions `messages` into groups that must be kept or dropped as units: messages sharing any link
 * (a tool-call id, an approval id, a provider-side tool pair) are in one group, transitively, and a
 * message that attaches to the next one (an OpenAI Responses reasoning item) is grouped with it.
 * Non-adjacent members are found too. Runs in linear time (one pass, union–find) and never throws:
 * problems are reported in `diagnostics`.
 *
 * The message type is taken from the format, so literal messages only need to be assignable to it;
 * without a format, messages are read with `formats.auto`.
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "user", content: "list and read" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ls", arguments: "{}" }, { id: "b", name: "cat", arguments: "{}" }] },
 *   { role: "tool", toolCallId: "a", content: "x.txt" },
 *   { role: "user", content: "meanwhile…" },
 *   { role: "tool", toolCallId: "b", content: "hello" }
 * ] as const
 *
 * const { groups, groupOf } = toolGroups(messages, formats.canonical)
 * groups // [[0], [1, 2, 4], [3]]
 * groupOf // [0, 1, 1, 2, 1]
 * ```
 *
 * @category grouping
 * @since 0.1.0
 */
export const toolGroups = <M = unknown>(
  messages: ReadonlyArray<NoInfer<M>>,
  format: MessageFormat<M> = auto as unknown as MessageFormat<M>
): ToolGroups => {
  const n = Array.isArray(messages) ? messages.length : 0
  const parent = new Int32Array(n)
  for (let i = 0; i < n; i++) parent[i] = i
  const find = (i: number): number => {
    let x = i
    while (parent[x] !== x) {
      const up = parent[parent[x]!]!
      parent[x] = up
      x = up
    }
    return x
  }
  const union = (a: number, b: number): void => {
    const ra = find(a)
    const rb = find(b)
    // The smaller index becomes the root: trees stay shallow for the usual call-then-results order.
    if (ra < rb) parent[rb] = ra
    else if (rb < ra) parent[ra] = rb
  }

  // Per call id, one number: (first message mentioning it) * 4 + ISSUED + ANSWERED. When the id was first
  // seen on a result, the issuer is elsewhere: `lateIssuer` keeps it (rare: results before their call).
  const ISSUED = 1
  const ANSWERED = 2
  const ids = new Map<string, number>()
  const lateIssuer = new Map<string, number>()
  const refAt = new Map<string, number>()
  const diagnostics: Array<GroupDiagnostic> = []
  let orphansPossible = false

  let i = 0
  const visit = (kind: Link["kind"], id: string): void => {
    if (kind === "ref") {
      const at = refAt.get(id)
      if (at === undefined) refAt.set(id, i)
      else union(at, i)
      return
    }
    const entry = ids.get(id)
    if (kind === "call") {
      if (entry === undefined) ids.set(id, i * 4 + ISSUED)
      else if ((entry & ISSUED) === 0) {
        union(entry >> 2, i)
        ids.set(id, entry | ISSUED)
        lateIssuer.set(id, i)
      } else {
        const first = lateIssuer.get(id) ?? entry >> 2
        diagnostics.push(new ReusedCallId({ callId: id, first, index: i }))
        if ((entry & ANSWERED) !== 0 && first !== i) {
          // The earlier call was answered: this is a new call that reuses the id (servers that number calls
          // per response do this). Later results answer the new call.
          ids.set(id, i * 4 + ISSUED)
          lateIssuer.delete(id)
        } else {
          // Two calls with one id and no result between them: their results cannot be told apart.
          union(entry >> 2, i)
        }
      }
    } else if (entry === undefined) {
      ids.set(id, i * 4 + ANSWERED)
      orphansPossible = true
    } else {
      union(entry >> 2, i)
      if ((entry & ANSWERED) === 0) ids.set(id, entry | ANSWERED)
    }
  }
  for (; i < n; i++) {
    const message = messages[i]!
    format.forEachLink(message, visit)
    if (i + 1 < n && format.attachesToNext(message)) union(i, i + 1)
  }

  // Orphans are rare: only when some result was seen before any call for its id, look again.
  if (orphansPossible) {
    for (let k = 0; k < n; k++) {
      format.forEachLink(messages[k]!, (kind, id) => {
        if (kind === "result" && ((ids.get(id) ?? 0) & ISSUED) === 0) {
          diagnostics.push(new OrphanResult({ callId: id, index: k }))
        }
      })
    }
  }
  const dangling: Array<DanglingCall> = []
  for (const [id, entry] of ids) {
    // An unanswered id was first seen on its call, so the issuer is the first mention.
    if ((entry & ANSWERED) === 0) dangling.push(new DanglingCall({ callId: id, index: entry >> 2 }))
  }
  if (dangling.length > 1) dangling.sort((a, b) => a.index - b.index)
  for (const d of dangling) diagnostics.push(d)

  // Number groups by first member. A root is always the smallest index of its set, so when message i is
  // not a root, its root came earlier and already has a group.
  const groupOf: Array<number> = []
  const groups: Array<Array<number>> = []
  for (let i = 0; i < n; i++) {
    const root = parent[i] === i ? i : find(i)
    if (root === i) {
      groupOf.push(groups.length)
      groups.push([i])
    } else {
      const g = groupOf[root]!
      groupOf.push(g)
      groups[g]!.push(i)
    }
  }
  return { groups, groupOf, diagnostics }
}
