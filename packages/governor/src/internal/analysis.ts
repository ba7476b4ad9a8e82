/**
 * The governor's single analysis of a history: every call resolved to a tool kind, every result with what the
 * rules need, the last turn, and — over the epoch window — which results a later result made redundant. One
 * forward pass and one backward pass: linear in the history.
 *
 * @internal
 */
import type { MessageFormat, ToolCallInfo, ToolResultInfo } from "@ctxkit/core"
import { type ElidedCall, type ElisionReason, elisionStub } from "../ElisionStub.ts"
import type {
  BgOutputKind,
  ReadFileKind,
  SearchTextKind,
  ToolArguments,
  ToolContext,
  ToolKind,
  ToolKindRule,
  ToolKinds
} from "../ToolKinds.ts"
import { argumentsKey, parseArguments, stringArg } from "./args.ts"
import type { Settings } from "./settings.ts"
import { sha256Hex, utf8Length } from "./sha256.ts"
import { lineNumber } from "./text.ts"

/** Reads over this many UTF-8 bytes are never hashed by the governor (the seed's tools report no sha256 there). */
export const MAX_HASHED_BYTES = 1024 * 1024

/** A call resolved through the tool mapping. */
export type Resolved =
  | {
    readonly kind: "read_file"
    readonly path: string
    readonly startLine: number | undefined
    readonly limit: number | undefined
    readonly partial: boolean
    readonly spec: ReadFileKind
    readonly opensFile: boolean
  }
  | { readonly kind: "write_file" | "edit_file"; readonly path: string; readonly opensFile: boolean }
  | {
    readonly kind: "bg_output"
    readonly taskId: string
    readonly offset: number
    readonly key: string
    readonly spec: BgOutputKind
  }
  | { readonly kind: "search_text"; readonly pattern: string; readonly key: string; readonly spec: SearchTextKind }
  | { readonly kind: "list_files"; readonly paths: ReadonlyArray<string> }
  | { readonly kind: "shell"; readonly command: string }

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
  readonly call: CallRecord | undefined
  readonly isError: boolean
  readonly text: string
  /** The result sits in a pinned message or a checkpoint: never elided. */
  readonly protectedMessage: boolean
  /** A bg_output query that continues from an earlier `next_offset`: never elided. */
  readonly continuation: boolean
}

/** One result the policy replaces by a stub (in `on`) or would (in `shadow`). */
export interface Decision {
  readonly fact: ResultFact
  readonly reason: ElisionReason
  readonly supersededBy: string
  readonly stub: string
  readonly call: ElidedCall
}

/** Per message: what the report and the last-turn rule need. */
export interface MessageFacts {
  readonly role: "system" | "user" | "assistant" | "tool"
  /** A user message that is neither a checkpoint nor the invariants block. */
  readonly normalUser: boolean
  readonly summary: boolean
  readonly pinned: boolean
  readonly invariants: boolean
}

/** The whole analysis. */
export interface Analysis {
  readonly messages: ReadonlyArray<MessageFacts>
  readonly calls: ReadonlyArray<CallRecord>
  readonly facts: ReadonlyArray<ResultFact>
  /** Index of the first message of the last turn of the whole history (its length when there is no user message). */
  readonly lastTurnStart: number
  /** The epoch window: messages `[0, windowEnd)` are eligible. */
  readonly windowEnd: number
  readonly decisions: ReadonlyArray<Decision>
}

const INVARIANTS_OPEN = "<invariants"

const ruleOf = (kinds: ToolKinds, name: string): ToolKindRule | undefined =>
  Object.hasOwn(kinds, name) ? kinds[name] : Object.hasOwn(kinds, "*") ? kinds["*"] : undefined

/** Calls a user accessor; a throwing accessor reads as "no value" (a harness mapping must not crash a request). */
const attempt = <A>(f: (() => A | undefined) | undefined): A | undefined => {
  if (f === undefined) return undefined
  try {
    return f()
  } catch {
    return undefined
  }
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined

const resolveKind = (kind: ToolKind, args: ToolArguments, context: ToolContext, raw: string): Resolved | undefined => {
  switch (kind.kind) {
    case "read_file": {
      const path = nonEmpty(attempt(() => kind.path(args, context)))
      if (path === undefined) return undefined
      const startLine = lineNumber(attempt(() => kind.startLine?.(args, context)))
      const limit = lineNumber(attempt(() => kind.limit?.(args, context)))
      return {
        kind: "read_file",
        path,
        startLine,
        limit,
        partial: startLine !== undefined || limit !== undefined ||
          attempt(() => kind.partial?.(args, context)) === true,
        spec: kind,
        opensFile: kind.opensFile === true
      }
    }
    case "write_file":
    case "edit_file": {
      const path = nonEmpty(attempt(() => kind.path(args, context)))
      return path === undefined ? undefined : { kind: kind.kind, path, opensFile: kind.opensFile === true }
    }
    case "bg_output": {
      const taskId = nonEmpty(attempt(() => kind.taskId(args, context)))
      if (taskId === undefined) return undefined
      const offset = lineNumber(attempt(() => kind.offset?.(args, context))) ?? 0
      const limit = lineNumber(attempt(() => kind.limit?.(args, context))) ?? lineNumber(kind.defaultLimit)
      return {
        kind: "bg_output",
        taskId,
        offset,
        key: `${taskId}\u0000${offset}\u0000${limit ?? "default"}`,
        spec: kind
      }
    }
    case "search_text": {
      const pattern = nonEmpty(attempt(() => kind.pattern(args, context)))
      if (pattern === undefined) return undefined
      return { kind: "search_text", pattern, key: `${context.tool}\u0000${argumentsKey(raw)}`, spec: kind }
    }
    case "list_files": {
      const paths = attempt(() => kind.paths?.(args, context))
      return { kind: "list_files", paths: Array.isArray(paths) ? paths.filter((p) => typeof p === "string") : [] }
    }
    case "shell": {
      const command = attempt(() => kind.command(args, context))
      return typeof command === "string" ? { kind: "shell", command } : undefined
    }
    default:
      return undefined
  }
}

const resolveCall = (
  kinds: ToolKinds,
  call: ToolCallInfo,
  currentFile: string | undefined
): { readonly resolved: Resolved | undefined; readonly pathArgument: string | undefined } => {
  const name = typeof call.name === "string" ? call.name : ""
  const raw = typeof call.arguments === "string" ? call.arguments : ""
  const rule = ruleOf(kinds, name)
  if (rule === undefined || rule === null) {
    // Unmapped: parse only when it may name a path, for the usage summary.
    const pathArgument = raw.includes("path") ? stringArg(parseArguments(raw), "path", "file_path") : undefined
    return { resolved: undefined, pathArgument }
  }
  const args = parseArguments(raw)
  const context: ToolContext = { tool: name, raw, currentFile }
  const kind = typeof rule === "function" ? attempt(() => rule(args, context)) : rule
  if (typeof kind !== "object" || kind === null) return { resolved: undefined, pathArgument: undefined }
  return { resolved: resolveKind(kind, args, context, raw), pathArgument: undefined }
}

/** The default `next_offset` reader: a `next_offset` number in the text. */
const defaultNextOffset = (text: string): number | undefined => {
  const m = /"?next_?offset"?\s*[:=]\s*(\d{1,15})/i.exec(text)
  return m === null ? undefined : Number(m[1])
}

const ELAPSED =
  /"?(?:elapsed|elapsed_?ms|elapsedMs|duration_?ms|durationMs|took|time_?ms)"?\s*[:=]\s*"?\d+(?:\.\d+)?\s*(?:ms|s)?"?\s*,?/gi

const MAYBE_ELAPSED = /elapsed|duration|took|time_?ms/i

/** The default `matches` of a search: its text without elapsed-time figures. */
const defaultMatches = (text: string): string => MAYBE_ELAPSED.test(text) ? text.replace(ELAPSED, "") : text

/** The digest a read reported: the mapping's accessor, else a `sha256` on a single-result message or its meta. */
const reportedSha = <M>(
  spec: ReadFileKind,
  result: ToolResultInfo,
  message: M,
  results: number,
  format: MessageFormat<M>
): string | undefined => {
  let value: unknown
  if (spec.sha256 !== undefined) value = attempt(() => spec.sha256?.(result, message))
  else if (results === 1) {
    value = typeof message === "object" && message !== null && Object.hasOwn(message, "sha256")
      ? (message as Readonly<Record<string, unknown>>)["sha256"]
      : undefined
    if (value === undefined) value = attempt(() => format.meta(message))?.["sha256"]
  }
  return typeof value === "string" && /^[0-9a-fA-F]{8,}$/.test(value) ? value.toLowerCase() : undefined
}

interface ReadSha {
  readonly sha: string
  /** `r` reported by the tool, `c` computed here: digests are only compared within one origin. */
  readonly origin: "r" | "c"
}

interface Later {
  readonly callId: string
  readonly index: number
  readonly sha: string
}

const nearest = (a: Later | undefined, b: Later | undefined): Later | undefined =>
  a === undefined ? b : b === undefined ? a : a.index <= b.index ? a : b

/**
 * Analyses `history`. The elision decisions look only at the epoch window `[0, windowEnd)`, so they are a
 * function of that prefix alone: that is what keeps the request append-only between epochs.
 */
export const analyze = <M>(history: ReadonlyArray<M>, settings: Settings<M>): Analysis => {
  const { format, toolKinds } = settings
  const n = history.length
  const windowEnd = settings.epochMessages > 0 ? Math.floor(n / settings.epochMessages) * settings.epochMessages : n
  const messages: Array<MessageFacts> = []
  const calls: Array<CallRecord> = []
  const facts: Array<ResultFact> = []
  const byCallId = new Map<string, CallRecord>()
  // Assistant messages strictly before each index (assistantsBefore[n] = all).
  const assistantsBefore = new Int32Array(n + 1)
  // Read digests by result (reported or computed), for the backward pass.
  const shas = new Map<ResultFact, ReadSha>()
  const nextOffsets = new Map<string, Set<number>>()
  let currentFile: string | undefined
  let lastUser = -1
  let lastUserInWindow = -1
  let assistants = 0

  for (let i = 0; i < n; i++) {
    const message = history[i] as M
    assistantsBefore[i] = assistants
    const role = format.role(message)
    const summary = format.isSummary(message)
    const pinned = format.isPinned(message)
    let invariants = false
    if (role === "user" && !summary) invariants = format.text(message).trimStart().startsWith(INVARIANTS_OPEN)
    const normalUser = role === "user" && !summary && !invariants
    messages.push({ role, normalUser, summary, pinned, invariants })
    if (normalUser) {
      lastUser = i
      if (i < windowEnd) lastUserInWindow = i
    }
    if (role === "assistant") assistants++
    for (const call of format.toolCalls(message)) {
      const { pathArgument, resolved } = resolveCall(toolKinds, call, currentFile)
      const record: CallRecord = { index: i, id: call.id, name: call.name, resolved, pathArgument }
      calls.push(record)
      // A reused id answers its latest call (as toolGroups pairs it).
      byCallId.set(call.id, record)
    }
    const results = format.toolResults(message)
    for (const result of results) {
      const record = byCallId.get(result.callId)
      const resolved = record?.resolved
      const isError = result.isError === true
      const text = typeof result.text === "string" ? result.text : ""
      let continuation = false
      if (resolved?.kind === "bg_output") {
        continuation = nextOffsets.get(resolved.taskId)?.has(resolved.offset) === true
        if (!isError) {
          const next = attempt(() => (resolved.spec.nextOffset ?? defaultNextOffset)(text))
          const offset = lineNumber(next)
          if (offset !== undefined) {
            let set = nextOffsets.get(resolved.taskId)
            if (set === undefined) nextOffsets.set(resolved.taskId, set = new Set())
            set.add(offset)
          }
        }
      }
      const fact: ResultFact = {
        index: i,
        callId: result.callId,
        tool: record?.name ?? (typeof result.name === "string" && result.name !== "" ? result.name : "unknown"),
        call: record,
        isError,
        text,
        protectedMessage: summary || pinned,
        continuation
      }
      facts.push(fact)
      if (resolved?.kind === "read_file" && !isError && i < windowEnd) {
        const reported = reportedSha(resolved.spec, result, message, results.length, format)
        if (reported !== undefined) shas.set(fact, { sha: reported, origin: "r" })
        else if (settings.hashReads && !resolved.partial && utf8Length(text) <= MAX_HASHED_BYTES) {
          shas.set(fact, { sha: sha256Hex(text), origin: "c" })
        }
      }
      if (!isError && resolved !== undefined && "opensFile" in resolved && resolved.opensFile) {
        currentFile = resolved.path
      }
    }
  }
  assistantsBefore[n] = assistants

  const decisions = decide(facts, shas, {
    windowEnd,
    lastTurnStart: lastUserInWindow,
    minAgeTurns: settings.minAgeTurns,
    // index < windowEnd <= n and the array has n + 1 slots: both reads are in range.
    assistantsAfter: (index) => assistantsBefore[windowEnd]! - assistantsBefore[index + 1]!
  })
  return {
    messages,
    calls,
    facts,
    lastTurnStart: lastUser < 0 ? 0 : lastUser,
    windowEnd,
    decisions
  }
}

interface Window {
  readonly windowEnd: number
  /** The last turn of the window begins here; -1 when the window has no normal user message (all of it is). */
  readonly lastTurnStart: number
  readonly minAgeTurns: number
  readonly assistantsAfter: (index: number) => number
}

/** The backward pass: for each result of the window, the nearest later result that makes it redundant. */
const decide = (
  facts: ReadonlyArray<ResultFact>,
  shas: ReadonlyMap<ResultFact, ReadSha>,
  w: Window
): Array<Decision> => {
  const out: Array<Decision> = []
  const pathSeen = new Set<string>()
  const laterChange = new Map<string, Later>()
  const laterRead = new Map<string, { nearest: Later; other: Later | undefined }>()
  const laterBg = new Map<string, Later>()
  const laterBgTask = new Map<string, Later>()
  const laterSearch = new Map<string, Later>()

  const searchKey = (fact: ResultFact, resolved: { readonly key: string; readonly spec: SearchTextKind }): string => {
    const matches = attempt(() => (resolved.spec.matches ?? defaultMatches)(fact.text))
    return resolved.key + "\u0000" + (typeof matches === "string" ? matches : fact.text)
  }

  for (let k = facts.length - 1; k >= 0; k--) {
    const fact = facts[k]
    if (fact === undefined || fact.index >= w.windowEnd) continue
    const resolved = fact.call?.resolved
    if (resolved === undefined) continue
    const eligible = !fact.isError && !fact.protectedMessage && fact.index < w.lastTurnStart &&
      w.assistantsAfter(fact.index) >= w.minAgeTurns
    const self: Later = { callId: fact.callId, index: fact.index, sha: "" }

    switch (resolved.kind) {
      case "read_file": {
        const digest = shas.get(fact)
        const key = digest === undefined ? "" : digest.origin + "\u0000" + resolved.path
        // The last result for a path (read, write or edit) is never elided.
        if (eligible && pathSeen.has(resolved.path)) {
          let by = laterChange.get(resolved.path)
          if (digest !== undefined) {
            const reads = laterRead.get(key)
            const changed = reads === undefined
              ? undefined
              : reads.nearest.sha !== digest.sha
              ? reads.nearest
              : reads.other
            by = nearest(by, changed)
          }
          if (by !== undefined) {
            const call: ElidedCall = {
              kind: "read_file",
              path: resolved.path,
              ...(digest === undefined ? {} : { sha256: digest.sha }),
              ...(resolved.startLine === undefined ? {} : { startLine: resolved.startLine }),
              ...(resolved.limit === undefined ? {} : { limit: resolved.limit })
            }
            push(out, fact, "superseded_read", by.callId, call)
          }
        }
        pathSeen.add(resolved.path)
        if (digest !== undefined && !fact.isError) {
          const entry: Later = { ...self, sha: digest.sha }
          const reads = laterRead.get(key)
          if (reads === undefined) laterRead.set(key, { nearest: entry, other: undefined })
          else if (reads.nearest.sha !== entry.sha) laterRead.set(key, { nearest: entry, other: reads.nearest })
          else laterRead.set(key, { nearest: entry, other: reads.other })
        }
        break
      }
      case "write_file":
      case "edit_file":
        pathSeen.add(resolved.path)
        if (!fact.isError) laterChange.set(resolved.path, self)
        break
      case "bg_output": {
        if (eligible && !fact.continuation) {
          let by = laterBg.get(resolved.key)
          if (by === undefined) {
            const empty = attempt(() => (resolved.spec.isEmpty ?? ((t: string) => t.trim() === ""))(fact.text))
            if (empty === true) by = laterBgTask.get(resolved.taskId)
          }
          if (by !== undefined) {
            push(out, fact, "stale_bg_output", by.callId, {
              kind: "bg_output",
              taskId: resolved.taskId,
              offset: resolved.offset
            })
          }
        }
        if (!fact.isError) {
          laterBg.set(resolved.key, self)
          laterBgTask.set(resolved.taskId, self)
        }
        break
      }
      case "search_text": {
        if (fact.isError) break
        const key = searchKey(fact, resolved)
        if (eligible) {
          const by = laterSearch.get(key)
          if (by !== undefined) {
            push(out, fact, "duplicate_search", by.callId, { kind: "search_text", pattern: resolved.pattern })
          }
        }
        laterSearch.set(key, self)
        break
      }
      default:
        break
    }
  }
  out.reverse()
  return out
}

/** Records a decision when the stub is shorter than the text it replaces. */
const push = (
  out: Array<Decision>,
  fact: ResultFact,
  reason: ElisionReason,
  supersededBy: string,
  call: ElidedCall
): void => {
  const stub = elisionStub(call)
  if (stub.length < fact.text.length) out.push({ fact, reason, supersededBy, stub, call })
}
