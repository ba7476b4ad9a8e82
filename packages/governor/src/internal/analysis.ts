/**
 * The governor's analysis of a history, in three steps a reader can take one at a time:
 *
 * 1. `resolve.ts` — what each tool call is (the harness's tool mapping);
 * 2. `evidence.ts` — what each successful result says (a read's digest, a search's matches, …);
 * 3. `redundancy.ts` — which results of the epoch window a later result made redundant.
 *
 * This file runs steps 1 and 2 over the messages, oldest first, into a {@link Ledger}: one record per message,
 * per call and per result. Nothing in a record depends on a later message, so a ledger is EXTENDED when the
 * history grows — each message is read once per session — and step 3 then runs on the ledger alone.
 *
 * @internal
 */
import type { MessageFormat } from "@ctxkit/core"
import { startsTurn, type TurnReading } from "@ctxkit/core/CurrentRequest"
import type { ElidedCall, ElisionReason } from "../ElisionStub.ts"
import type { GovernorAnalysis } from "../Govern.ts"
import type { ToolKinds } from "../ToolKinds.ts"
import { isEmptyOutput, nextOffsetOf, type ReadDigest, readDigest, searchKey } from "./evidence.ts"
import { decide } from "./redundancy.ts"
import { resolveCall, type Resolved } from "./resolve.ts"

export type { Resolved } from "./resolve.ts"

/** One tool call, where it was issued and what it is. */
export interface CallRecord {
  readonly index: number
  readonly id: string
  readonly name: string
  /** What the mapping made of it; `undefined` for a tool the mapping does not know. */
  readonly resolved: Resolved | undefined
  /** A `path`/`file_path` argument of an unmapped tool (usage summary). */
  readonly pathArgument: string | undefined
}

/** One tool result and what the rules need to know about it. */
export interface ResultFact {
  readonly index: number
  readonly callId: string
  /** The tool name: the call's, else the result's own, else `"unknown"`. */
  readonly tool: string
  /** The call it answers (the latest call with its id, as `toolGroups` pairs them). */
  readonly call: CallRecord | undefined
  readonly isError: boolean
  readonly text: string
  /** The result sits in a pinned message or a checkpoint: never elided. */
  readonly protectedMessage: boolean
  /** A bg_output query that continues from an earlier `next_offset`: never elided. */
  readonly continuation: boolean
  /** A successful read's digest, when the tool reported one or `hashReads` computed it. */
  readonly digest: ReadDigest | undefined
  /** A successful search's duplicate key (arguments and matches). */
  readonly searchKey: string | undefined
  /** A bg_output result with no output. */
  readonly empty: boolean
}

/** Per message: what the report and the last-turn rule need. */
export interface MessageFacts {
  readonly role: "system" | "user" | "assistant" | "tool"
  /** A user message that is neither a checkpoint nor the invariants block: it starts a turn. */
  readonly normalUser: boolean
  readonly summary: boolean
  readonly pinned: boolean
  readonly invariants: boolean
}

/** One result the policy replaces by a stub (in `on`) or would (in `shadow`). */
export interface Decision {
  readonly fact: ResultFact
  readonly reason: ElisionReason
  /** The call id of the later result that made it redundant. */
  readonly supersededBy: string
  readonly stub: string
  readonly call: ElidedCall
}

/** What a ledger was built with: a ledger is only extended under the same format, mapping and hashing. */
interface LedgerSettings<M> {
  readonly format: MessageFormat<M>
  readonly toolKinds: ToolKinds
  readonly hashReads: boolean
}

/**
 * The records of steps 1 and 2, appended to message by message. Its arrays only ever grow; an {@link Analysis}
 * is a view of the first `length` messages. A ledger is only appended to with the messages of a history that
 * agrees with all it read, so the records any analysis sees never change.
 */
interface Ledger<M> extends LedgerSettings<M> {
  /** The messages read so far (by identity: a grown history must start with exactly these objects). */
  readonly history: Array<M>
  readonly messages: Array<MessageFacts>
  readonly calls: Array<CallRecord>
  readonly facts: Array<ResultFact>
  /** `assistantsUpTo[k]`: assistant messages among the first k messages (so it has one more entry). */
  readonly assistantsUpTo: Array<number>
  /**
   * Indexes of the messages that start a turn under {@link GOVERNOR_TURNS}, ascending: an index for the last turn
   * start below any limit in O(log n), equal to core's `turnStart(history, format, GOVERNOR_TURNS, { before })`.
   */
  readonly turnStarts: Array<number>
  /** The latest call for each id. */
  readonly callsById: Map<string, CallRecord>
  /** Per background task, the offsets an earlier result said to continue from. */
  readonly continueOffsets: Map<string, Set<number>>
  /** The last path opened by a kind with `opensFile` (SWE-agent's `open`). */
  currentFile: string | undefined
}

/** The analysis of a history: its records, the last turn, and the decisions over its epoch window. */
export interface Analysis {
  readonly messages: ReadonlyArray<MessageFacts>
  readonly calls: ReadonlyArray<CallRecord>
  readonly facts: ReadonlyArray<ResultFact>
  /** Index of the first message of the last turn of the whole history (0 when there is no normal user message). */
  readonly lastTurnStart: number
  /** The epoch window: messages `[0, windowEnd)` are eligible. */
  readonly windowEnd: number
  readonly decisions: ReadonlyArray<Decision>
}

/** A kept analysis: its view, the ledger it reads, and what the decisions were made for. */
export interface AnalysisState<M> {
  readonly analysis: Analysis
  readonly ledger: Ledger<M>
  readonly length: number
  readonly minAgeTurns: number
}

const newLedger = <M>(settings: LedgerSettings<M>): Ledger<M> => ({
  format: settings.format,
  toolKinds: settings.toolKinds,
  hashReads: settings.hashReads,
  history: [],
  messages: [],
  calls: [],
  facts: [],
  assistantsUpTo: [0],
  turnStarts: [],
  callsById: new Map(),
  continueOffsets: new Map(),
  currentFile: undefined
})

/**
 * The governor's reading of a turn (core's `startsTurn`): neither a checkpoint nor the invariants block starts
 * one — the block is resent with every request, so counting it would make every result part of the last turn.
 */
export const GOVERNOR_TURNS: TurnReading = { checkpoints: false, invariantsBlock: false }

/** What kind of message it is: a checkpoint, the invariants block, or a normal user message starting a turn. */
const messageFacts = <M>(message: M, format: MessageFormat<M>): MessageFacts => {
  const role = format.role(message)
  const summary = format.isSummary(message)
  const pinned = format.isPinned(message)
  const normalUser = startsTurn(message, format, GOVERNOR_TURNS)
  const invariants = role === "user" && !summary && !normalUser
  return { role, normalUser, summary, pinned, invariants }
}

/** Reads one message into the ledger: the message, then its calls, then its results (in that order). */
const append = <M>(ledger: Ledger<M>, message: M): void => {
  const { format } = ledger
  const index = ledger.history.length
  const facts = messageFacts(message, format)
  ledger.history.push(message)
  ledger.messages.push(facts)
  if (facts.normalUser) ledger.turnStarts.push(index)
  const assistantsBefore = ledger.assistantsUpTo[index] ?? 0
  ledger.assistantsUpTo.push(assistantsBefore + (facts.role === "assistant" ? 1 : 0))

  for (const call of format.toolCalls(message)) {
    const { pathArgument, resolved } = resolveCall(ledger.toolKinds, call, ledger.currentFile)
    const record: CallRecord = { index, id: call.id, name: call.name, resolved, pathArgument }
    ledger.calls.push(record)
    // A reused id answers its latest call (as toolGroups pairs it).
    ledger.callsById.set(call.id, record)
  }

  const results = format.toolResults(message)
  for (const result of results) {
    const call = ledger.callsById.get(result.callId)
    const resolved = call?.resolved
    const isError = result.isError === true
    const text = typeof result.text === "string" ? result.text : ""
    let continuation = false
    let empty = false
    let digest: ReadDigest | undefined
    let key: string | undefined
    switch (resolved?.kind) {
      case "bg_output": {
        // A query from an offset an earlier result said to continue from asks for new output.
        const offsets = ledger.continueOffsets.get(resolved.taskId)
        continuation = offsets?.has(resolved.offset) === true
        empty = !isError && isEmptyOutput(resolved.spec, text)
        const next = isError ? undefined : nextOffsetOf(resolved.spec, text)
        if (next !== undefined) {
          if (offsets === undefined) ledger.continueOffsets.set(resolved.taskId, new Set([next]))
          else offsets.add(next)
        }
        break
      }
      case "read_file":
        if (!isError) digest = readDigest(resolved, result, text, message, results.length, format, ledger.hashReads)
        break
      case "search_text":
        if (!isError) key = searchKey(resolved, text)
        break
      default:
        break
    }
    ledger.facts.push({
      index,
      callId: result.callId,
      tool: call?.name ?? (typeof result.name === "string" && result.name !== "" ? result.name : "unknown"),
      call,
      isError,
      text,
      protectedMessage: facts.summary || facts.pinned,
      continuation,
      digest,
      searchKey: key,
      empty
    })
    if (!isError && resolved !== undefined && "opensFile" in resolved && resolved.opensFile) {
      ledger.currentFile = resolved.path
    }
  }
}

/** The last element of `sorted` (ascending) below `limit`, or -1. */
const lastBelow = (sorted: ReadonlyArray<number>, limit: number): number => {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((sorted[mid] ?? limit) < limit) low = mid + 1
    else high = mid
  }
  return low === 0 ? -1 : sorted[low - 1] ?? -1
}

/** The epoch window of a history of `length` messages: `floor(length / epoch) × epoch`, or all of it with 0. */
const windowOf = (length: number, epochMessages: number): number =>
  epochMessages > 0 ? Math.floor(length / epochMessages) * epochMessages : length

/** A view of the first `length` messages of a ledger (the arrays themselves at the tip, else copies). */
const view = <M>(
  ledger: Ledger<M>,
  length: number,
  windowEnd: number,
  decisions: ReadonlyArray<Decision>
): Analysis => {
  const atTip = ledger.history.length === length
  const factCount = atTip ? ledger.facts.length : ledger.facts.findIndex((f) => f.index >= length)
  const callCount = atTip ? ledger.calls.length : ledger.calls.findIndex((c) => c.index >= length)
  const lastUser = lastBelow(ledger.turnStarts, length)
  return {
    messages: atTip ? ledger.messages : ledger.messages.slice(0, length),
    calls: atTip || callCount < 0 ? ledger.calls : ledger.calls.slice(0, callCount),
    facts: atTip || factCount < 0 ? ledger.facts : ledger.facts.slice(0, factCount),
    lastTurnStart: lastUser < 0 ? 0 : lastUser,
    windowEnd,
    decisions
  }
}

/** Step 3 over the window of a ledger. Its decisions depend only on the first `windowEnd` messages. */
const decideWindow = <M>(ledger: Ledger<M>, windowEnd: number, minAgeTurns: number): ReadonlyArray<Decision> => {
  const assistantsAtEnd = ledger.assistantsUpTo[windowEnd] ?? 0
  return decide(ledger.facts, {
    windowEnd,
    // The last turn of the window; -1 when the window has no normal user message (then all of it is).
    lastTurnStart: lastBelow(ledger.turnStarts, windowEnd),
    minAgeTurns,
    assistantsAfter: (index) => assistantsAtEnd - (ledger.assistantsUpTo[index + 1] ?? 0)
  })
}

/** Whether `history` starts with exactly the messages `ledger` read first (the same objects, in order). */
const startsWith = <M>(history: ReadonlyArray<M>, ledger: Ledger<M>, length: number): boolean => {
  for (let i = 0; i < length; i++) if (history[i] !== ledger.history[i]) return false
  return true
}

/** What {@link analyze} needs from the settings. */
export interface AnalysisSettings<M> extends LedgerSettings<M> {
  readonly minAgeTurns: number
  readonly epochMessages: number
}

/**
 * Analyses `history`, reusing `previous` when `history` extends the history it analysed (same message objects
 * first) under the same format, mapping and hashing: only the new messages are read, and the decisions are kept
 * while the epoch window has not moved. The result is the same as from scratch either way.
 */
export const analyze = <M>(
  history: ReadonlyArray<M>,
  settings: AnalysisSettings<M>,
  previous?: AnalysisState<M> | undefined
): AnalysisState<M> => {
  const windowEnd = windowOf(history.length, settings.epochMessages)
  let ledger: Ledger<M> | undefined
  let decisions: ReadonlyArray<Decision> | undefined
  if (previous !== undefined) {
    const old = previous.ledger
    const sameReading = old.format === settings.format && old.toolKinds === settings.toolKinds &&
      old.hashReads === settings.hashReads
    // The ledger serves any history that agrees with every message it read (up to the shorter of the two): its
    // records of a prefix never change. A history that differs anywhere there gets a ledger of its own.
    if (sameReading && startsWith(history, old, Math.min(old.history.length, history.length))) {
      ledger = old
      if (previous.analysis.windowEnd === windowEnd && previous.minAgeTurns === settings.minAgeTurns) {
        decisions = previous.analysis.decisions
      }
    }
  }
  if (ledger === undefined) {
    ledger = newLedger(settings)
    decisions = undefined
  }
  for (let i = ledger.history.length; i < history.length; i++) append(ledger, history[i] as M)
  const length = history.length
  const decided = decisions ?? decideWindow(ledger, windowEnd, settings.minAgeTurns)
  return { analysis: view(ledger, length, windowEnd, decided), ledger, length, minAgeTurns: settings.minAgeTurns }
}

/**
 * The analyses handed to callers (`GovernResult.analysis`), by the opaque value they hold. A weak map, so a
 * session that drops its value frees the ledger; the map never changes a result, only how fast it comes.
 */
const kept = new WeakMap<object, unknown>()

/** The opaque value a caller keeps for the next request. */
export const keep = <M>(state: AnalysisState<M>): GovernorAnalysis<M> => {
  const token: GovernorAnalysis<M> = Object.freeze({ messages: state.length })
  kept.set(token, state)
  return token
}

/** The analysis behind a value from {@link keep}; `undefined` for anything else (then the history is read anew). */
export const stateOf = <M>(token: unknown): AnalysisState<M> | undefined =>
  // The message type is only a type parameter: a value kept for another format fails the format check in analyze.
  typeof token === "object" && token !== null ? kept.get(token) as AnalysisState<M> | undefined : undefined
