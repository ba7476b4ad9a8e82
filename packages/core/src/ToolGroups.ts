/**
 * Tool-call groups: the sets of messages that must be kept or dropped together because they are linked
 * by tool-call ids (a call and every result for it), approvals, or reasoning items — transitively, and
 * wherever the members sit in the conversation.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import { conversationMessages } from "./ConversationMessages.ts"
import * as Diagnostics from "./Diagnostics.ts"
import { auto } from "./formats/Auto.ts"
import { type FormatInput, isMessageFormat, type Link, type MessageFormat } from "./MessageFormat.ts"

// What `toolGroups` reports, declared in `Diagnostics.ts` and re-exported from the step's own module.
export {
  AwaitingExecution,
  DanglingCall,
  type GroupDiagnostic,
  NotAConversation,
  OrphanApprovalResponse,
  OrphanResult,
  ReusedCallId
} from "./Diagnostics.ts"

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
  /**
   * Reused call ids and orphan results in the order found, then dangling and awaiting-execution calls by
   * issuer index, then orphan approval responses by index.
   */
  readonly diagnostics: ReadonlyArray<Diagnostics.GroupDiagnostic>
}

/** What the walk knows about one approval id. */
interface ApprovalState {
  /** The call the request is for, once the request is seen. */
  callId: string | undefined
  /** The message carrying the first response, and what it said. */
  responseAt: number | undefined
  approved: boolean
}

/**
 * What the walk behind {@link toolGroups} knows. It is a plain object made by one literal ({@link startWalk}) and the
 * steps are functions of the module: V8 keeps the shape of an object literal for as long as the code that makes
 * it, while the shape of a class instance is dropped by a full garbage collection once no instance is alive, and
 * every optimized function that relied on it falls back to slower code until it is optimized again.
 */
interface Walk {
  /**
   * Per message, its group. A message joins the group of the earlier messages its links name (the call it
   * answers, the first message with the same approval id; two such groups are merged); a message whose links name
   * no earlier message opens the next group. So groups are numbered by their first member as the walk goes, and most conversations need
   * nothing more.
   */
  readonly groupOf: Array<number>
  /** How many groups are open. */
  count: number
  /**
   * When a message names two groups (one message answering calls of two turns), they are merged: `into[g]` is the
   * group `g` was merged into, always an older one (union–find over groups). Made at the first merge; the numbers
   * are made consecutive again after the walk.
   */
  into: Int32Array | undefined
  /** The group of the message being walked, -1 while none of its links named an earlier message. */
  group: number
  /**
   * Per tool-call id, by slot: the first message that mentioned it (later mentions join its group); the message
   * that issued the call, -1 while only results were seen; whether some result answers it (1) or not (0).
   */
  anchor: Int32Array
  issuer: Int32Array
  answered: Uint8Array
  /** The slot of each id, and how many slots are used and allocated. */
  readonly slotOf: Map<string, number>
  slots: number
  capacity: number
  /** The first message carrying each `ref` key (approval ids, provider-side pairs): later carriers join it. */
  readonly firstWithKey: Map<string, number>
  readonly diagnostics: Array<Diagnostics.GroupDiagnostic>
  /** Set when a result is seen before any call for its id: only then can there be orphans to look for. */
  resultBeforeCall: boolean
  /**
   * Whether a call's id is looked up before it is added. Off at first: a new id is added with one `set`, and the
   * map not growing shows the id was known. Then the walk starts again with it on (see {@link linkGroups}).
   */
  readonly lookUpCalls: boolean
  /** Set when a call's id turned out to be known while `lookUpCalls` was off. */
  knownCall: boolean
  /** The message being walked, and whether it has a `ref` link (only such a message can carry approvals). */
  at: number
  hasRef: boolean
}

const startWalk = (n: number, lookUpCalls: boolean): Walk => {
  // Conversations rarely have more ids than messages, so there are `n` slots at first, twice as many when full.
  // The slots share one buffer: each typed array has a fixed cost to allocate and collect, larger than filling a
  // thousand entries.
  const capacity = Math.max(n, 8)
  const buffer = new ArrayBuffer(9 * capacity)
  return {
    groupOf: new Array<number>(n),
    count: 0,
    into: undefined,
    group: -1,
    anchor: new Int32Array(buffer, 0, capacity),
    issuer: new Int32Array(buffer, 4 * capacity, capacity),
    answered: new Uint8Array(buffer, 8 * capacity, capacity),
    slotOf: new Map(),
    slots: 0,
    capacity,
    firstWithKey: new Map(),
    diagnostics: [],
    resultBeforeCall: false,
    lookUpCalls,
    knownCall: false,
    at: 0,
    hasRef: false
  }
}

/** The group `g` is now part of: itself until merged. */
const rootOf = (into: Int32Array, g: number): number => {
  let x = g
  while (into[x] !== x) {
    // Path halving: point each visited group at its grandparent.
    const up = into[into[x]!]!
    into[x] = up
    x = up
  }
  return x
}

/** Merges groups `a` and `b` into the older one, which it returns. */
const merge = (w: Walk, a: number, b: number): number => {
  if (w.into === undefined) {
    // Groups are numbered below the number of messages, so one entry per message is room enough.
    const into = new Int32Array(w.groupOf.length)
    for (let g = 0; g < into.length; g++) into[g] = g
    w.into = into
  }
  const ra = rootOf(w.into, a)
  const rb = rootOf(w.into, b)
  if (ra < rb) w.into[rb] = ra
  else if (rb < ra) w.into[ra] = rb
  return Math.min(ra, rb)
}

/** The message being walked joins the group of message `m` (an earlier one, or itself: nothing to do). */
const join = (w: Walk, m: number): void => {
  if (m === w.at) return
  const g = w.groupOf[m]!
  if (w.group === -1) w.group = g
  else if (w.group !== g) w.group = merge(w, w.group, g)
}

const addSlot = (w: Walk, first: number, issuedBy: number, answer: number): number => {
  if (w.slots === w.capacity) {
    const capacity = w.capacity * 2
    const grown = new ArrayBuffer(9 * capacity)
    const anchor = new Int32Array(grown, 0, capacity)
    const issuer = new Int32Array(grown, 4 * capacity, capacity)
    const answered = new Uint8Array(grown, 8 * capacity, capacity)
    anchor.set(w.anchor)
    issuer.set(w.issuer)
    answered.set(w.answered)
    w.anchor = anchor
    w.issuer = issuer
    w.answered = answered
    w.capacity = capacity
  }
  w.anchor[w.slots] = first
  w.issuer[w.slots] = issuedBy
  w.answered[w.slots] = answer
  return w.slots++
}

/** One link of message `w.at`: the message joins the group of the first message that mentioned the same id. */
const link = (w: Walk, kind: Link["kind"], id: string): void => {
  const i = w.at
  if (kind === "ref") {
    w.hasRef = true
    const first = w.firstWithKey.get(id)
    if (first === undefined) w.firstWithKey.set(id, i)
    else join(w, first)
    return
  }
  if (kind === "call" && !w.lookUpCalls) {
    const known = w.slotOf.size
    w.slotOf.set(id, w.slots)
    if (w.slotOf.size > known) addSlot(w, i, i, 0)
    else w.knownCall = true
    return
  }
  const slot = w.slotOf.get(id)
  if (slot === undefined) {
    // First mention of the id, from its call (the usual case) or from a result.
    w.slotOf.set(id, addSlot(w, i, kind === "call" ? i : -1, kind === "result" ? 1 : 0))
    if (kind === "result") w.resultBeforeCall = true
    return
  }
  if (kind === "result") {
    join(w, w.anchor[slot]!)
    w.answered[slot] = 1
    return
  }
  // A call for an id already mentioned.
  const earlier = w.issuer[slot]!
  if (earlier === -1) {
    // Its results came first: now the issuer is known.
    join(w, w.anchor[slot]!)
    w.issuer[slot] = i
    return
  }
  w.diagnostics.push(new Diagnostics.ReusedCallId({ callId: id, first: earlier, index: i }))
  if (w.answered[slot] === 1 && earlier !== i) {
    // The earlier call was answered: this is a new call that reuses the id (servers that number calls per
    // response do this). Later results answer the new call, in a new group.
    w.anchor[slot] = i
    w.issuer[slot] = i
    w.answered[slot] = 0
  } else {
    // Two calls with one id and no result between them: their results cannot be told apart.
    join(w, w.anchor[slot]!)
  }
}

/**
 * The walk behind {@link toolGroups}, in one pass over the messages:
 *
 * - every link is read through `format.forEachLink` (no array per message), and a message joins the group of the
 *   first message that mentioned the same id; a message that names no earlier message opens the next group, so
 *   the groups are numbered by their first member as the walk goes. Only a message naming two groups merges them
 *   (union–find over groups), and only then are the numbers made consecutive again, in one more pass;
 * - what is known about each tool-call id lives in three parallel typed arrays indexed by a slot number, and one
 *   `Map` gives an id's slot: no object per id (on long conversations, allocating and collecting an object per id
 *   cost more than the lookups), and one map operation per link. A call's id is added without a lookup, since it
 *   is new in almost every conversation; when the map does not grow, the id was known (a reused id, or results
 *   met before their call) and the walk starts again, looking each call's id up first. The map is most of the
 *   walk's cost, so this saves about a quarter of it, and the second walk happens at most once;
 * - approvals are read only from messages that have a `ref` link (only those can carry one);
 * - the diagnostics that need the whole conversation (orphans, dangling calls, orphan approval responses) are
 *   found after the walk, from the per-id state;
 * - the lists of members (`groups`) are built from `groupOf` when first read, since fitting reads only `groupOf`.
 */
const linkGroups = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>, lookUpCalls = false): ToolGroups => {
  const n = Array.isArray(messages) ? messages.length : 0
  const walk = startWalk(n, lookUpCalls)
  const { diagnostics, groupOf, slotOf } = walk
  const approvals = new Map<string, ApprovalState>()
  // The one closure of the walk, given to `forEachLink` for every message: it only hands the link on.
  const visit = (kind: Link["kind"], id: string): void => link(walk, kind, id)
  for (let i = 0; i < n; i++) {
    const message = messages[i]!
    walk.at = i
    walk.hasRef = false
    format.forEachLink(message, visit)
    if (walk.knownCall) return linkGroups(messages, format, true)
    const group = walk.group === -1 ? walk.count++ : walk.group
    groupOf[i] = group
    // A message that attaches to the next one (a reasoning item) brings the next one into its group.
    walk.group = i + 1 < n && format.attachesToNext(message) ? group : -1
    if (!walk.hasRef) continue
    for (const approval of format.approvals(message)) {
      let state = approvals.get(approval.approvalId)
      if (state === undefined) {
        state = { callId: undefined, responseAt: undefined, approved: false }
        approvals.set(approval.approvalId, state)
      }
      if (approval.kind === "request") state.callId = approval.callId
      else if (state.responseAt === undefined) {
        state.responseAt = i
        state.approved = approval.approved
      }
    }
  }
  const { answered, issuer, slots } = walk

  if (walk.resultBeforeCall) {
    // A result is an orphan when no message ever issued its id. Rare, so a second walk is fine.
    for (let k = 0; k < n; k++) {
      format.forEachLink(messages[k]!, (kind, id) => {
        if (kind !== "result") return
        const slot = slotOf.get(id)
        if (slot === undefined || issuer[slot] === -1) {
          diagnostics.push(new Diagnostics.OrphanResult({ callId: id, index: k }))
        }
      })
    }
  }

  // Calls whose approval was answered, and responses with no request.
  const answeredApproval = new Map<string, { readonly approvalId: string; readonly approved: boolean }>()
  const orphanResponses: Array<Diagnostics.OrphanApprovalResponse> = []
  for (const [approvalId, state] of approvals) {
    if (state.responseAt === undefined) continue
    if (state.callId === undefined) {
      orphanResponses.push(new Diagnostics.OrphanApprovalResponse({ approvalId, index: state.responseAt }))
    } else answeredApproval.set(state.callId, { approvalId, approved: state.approved })
  }

  // An unanswered call is dangling, unless its approval was answered (then it awaits execution). Most
  // conversations have none, so the ids are only walked when some slot is open.
  const unanswered: Array<Diagnostics.DanglingCall | Diagnostics.AwaitingExecution> = []
  let open = false
  for (let slot = 0; slot < slots && !open; slot++) open = answered[slot] === 0 && issuer[slot] !== -1
  if (open) {
    for (const [callId, slot] of slotOf) {
      if (answered[slot] === 1 || issuer[slot] === -1) continue
      const approval = answeredApproval.get(callId)
      const index = issuer[slot]!
      unanswered.push(
        approval === undefined
          ? new Diagnostics.DanglingCall({ callId, index })
          : new Diagnostics.AwaitingExecution({
            callId,
            approvalId: approval.approvalId,
            approved: approval.approved,
            index
          })
      )
    }
  }
  if (unanswered.length > 1) unanswered.sort((a, b) => a.index - b.index)
  for (const d of unanswered) diagnostics.push(d)
  if (orphanResponses.length > 1) orphanResponses.sort((a, b) => a.index - b.index)
  for (const d of orphanResponses) diagnostics.push(d)

  return grouped(groupOf, walk.into === undefined ? walk.count : renumber(groupOf, walk.into, walk.count), diagnostics)
}

/**
 * After merges: each message gets the number of its merged group, the groups numbered again `0 … count - 1` by
 * their first member (the first message of a group met in index order). Returns how many groups are left.
 */
const renumber = (groupOf: Array<number>, into: Int32Array, open: number): number => {
  const number = new Int32Array(open).fill(-1)
  let count = 0
  for (let m = 0; m < groupOf.length; m++) {
    const root = rootOf(into, groupOf[m]!)
    if (number[root] === -1) number[root] = count++
    groupOf[m] = number[root]!
  }
  return count
}

/**
 * The result, its `groups` built on first read. Made here rather than in the walk, so that the getter holds only
 * `groupOf`: a closure keeps every variable its function shares with other closures, and in the walk that is the
 * walk's whole state (its map and buffers), which a caller keeping the result would keep too.
 */
const grouped = (
  groupOf: ReadonlyArray<number>,
  count: number,
  diagnostics: ReadonlyArray<Diagnostics.GroupDiagnostic>
): ToolGroups => {
  let groups: ReadonlyArray<ReadonlyArray<number>> | undefined
  return {
    get groups() {
      return groups ??= membersOf(groupOf, count)
    },
    groupOf,
    diagnostics
  }
}

/** Each group's messages, ascending, from `groupOf` (groups numbered `0 … count - 1` by their first member). */
const membersOf = (groupOf: ReadonlyArray<number>, count: number): Array<Array<number>> => {
  const groups: Array<Array<number>> = []
  for (let g = 0; g < count; g++) groups.push([])
  for (let m = 0; m < groupOf.length; m++) groups[groupOf[m]!]!.push(m)
  return groups
}

/**
 * Partitions `messages` into groups that must be kept or dropped as units: messages sharing any link
 * (a tool-call id, an approval id, a provider-side tool pair) are in one group, transitively, and a
 * message that attaches to the next one (an OpenAI Responses reasoning item) is grouped with it.
 * Non-adjacent members are found too. Runs in linear time (one pass; groups that one message ties together are
 * merged by union–find) and never throws: problems are reported in `diagnostics`.
 *
 * A call whose approval was answered and that has no result yet is reported as {@link AwaitingExecution},
 * not as a {@link DanglingCall}; an approval response with no request is an {@link OrphanApprovalResponse}.
 *
 * The messages are the caller's own type (LangChain `BaseMessage`s, AI SDK `ModelMessage`s, `effect/ai`
 * `Prompt` messages, interfaces of the wire shape) when they fit the format's shape; without a format, messages
 * are read with `formats.auto`. The input is read through {@link conversationMessages}: an `effect/ai` `Prompt`
 * is read as its messages, and anything else that is not an array (`{ messages }`, a string, `null`) gives no
 * groups and a {@link NotAConversation} that names it and the fix.
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
 * @category operations
 * @since 0.1.0
 */
export const toolGroups: {
  <M>(format?: MessageFormat<M>): (messages: ReadonlyArray<M>) => ToolGroups
  <M extends FormatInput<F>, F>(messages: ReadonlyArray<M>, format: MessageFormat<F>): ToolGroups
  <M>(messages: ReadonlyArray<NoInfer<M>>, format?: MessageFormat<M> | undefined): ToolGroups
} = dual(
  // Data-last is `toolGroups()` or `toolGroups(format)`: anything else (an array, a wrong value) is the messages.
  (args: IArguments) => args.length >= 2 || (args.length === 1 && !isMessageFormat(args[0])),
  (messages: unknown, format?: MessageFormat<unknown>): ToolGroups => {
    const read = conversationMessages(messages, { format })
    if (Result.isFailure(read)) {
      const given = read.failure.issues[0]?.message ?? "expected an array of messages"
      return { groups: [], groupOf: [], diagnostics: [new Diagnostics.NotAConversation({ given })] }
    }
    return linkGroups(read.success, format ?? auto)
  }
)
