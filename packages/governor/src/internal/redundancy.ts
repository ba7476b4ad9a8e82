/**
 * Step 3 of the analysis: which results of the epoch window a LATER result made redundant (policy version 1).
 *
 * The walk goes from the newest result of the window to the oldest. When it reaches a result, everything later
 * has been seen, so `Later` remembers, per key, the nearest later result that could supersede it: the nearest
 * successful write or edit of each path, the nearest reads of each path, the nearest identical background
 * query, the nearest identical search. Each result is then one lookup, and the whole walk is linear.
 *
 * @internal
 */
import { type ElidedCall, type ElisionReason, elisionStub } from "../ElisionStub.ts"
import type { Decision, ResultFact } from "./analysis.ts"

/** The window the rules look at, and the age rule. */
export interface Window {
  readonly windowEnd: number
  /** The last turn of the window begins here; -1 when the window has no normal user message (all of it is). */
  readonly lastTurnStart: number
  readonly minAgeTurns: number
  /** Assistant messages after message `index`, within the window. */
  readonly assistantsAfter: (index: number) => number
}

/** A later result: its call id (the stub's "superseded by"), where it is, and a read's digest. */
interface Later {
  readonly callId: string
  readonly index: number
  readonly sha: string
}

/**
 * The nearest later reads of one path (per digest origin): the nearest one, and the nearest one whose digest
 * differs from the nearest's. Whatever the digest of an earlier read, one of the two is the nearest later read
 * with ANOTHER digest — which is what supersedes it.
 */
interface LaterReads {
  readonly nearest: Later
  readonly nearestOther: Later | undefined
}

/** The nearer (smaller index) of two later results; a tie goes to `a`. */
const nearer = (a: Later | undefined, b: Later | undefined): Later | undefined =>
  a === undefined ? b : b === undefined || a.index <= b.index ? a : b

/** The nearest later read whose digest differs from `sha`. */
const readWithOtherDigest = (reads: LaterReads | undefined, sha: string): Later | undefined =>
  reads === undefined ? undefined : reads.nearest.sha !== sha ? reads.nearest : reads.nearestOther

/** `reads` once `entry`, an earlier read, becomes the nearest. */
const withNearestRead = (reads: LaterReads | undefined, entry: Later): LaterReads => {
  if (reads === undefined) return { nearest: entry, nearestOther: undefined }
  // The old nearest differs from the new one: it is now the nearest "other".
  return { nearest: entry, nearestOther: reads.nearest.sha !== entry.sha ? reads.nearest : reads.nearestOther }
}

/** Whether the never-elide rules leave a result eligible: success, not protected, old enough, before the last turn. */
const isEligible = (fact: ResultFact, w: Window): boolean =>
  !fact.isError && !fact.protectedMessage && fact.index < w.lastTurnStart &&
  w.assistantsAfter(fact.index) >= w.minAgeTurns

/** The backward pass: for each result of the window, the nearest later result that makes it redundant. */
export const decide = (facts: ReadonlyArray<ResultFact>, w: Window): Array<Decision> => {
  const out: Array<Decision> = []
  /** Paths with a later result of any kind (read, write or edit, even failed): the last result is never elided. */
  const pathsSeen = new Set<string>()
  const changes = new Map<string, Later>()
  const reads = new Map<string, LaterReads>()
  const queries = new Map<string, Later>()
  const queriesOfTask = new Map<string, Later>()
  const searches = new Map<string, Later>()

  /** Records a decision, unless the stub would not be shorter than the text it replaces. */
  const elide = (fact: ResultFact, reason: ElisionReason, by: Later, call: ElidedCall): void => {
    const stub = elisionStub(call)
    if (stub.length < fact.text.length) out.push({ fact, reason, supersededBy: by.callId, stub, call })
  }

  for (let k = facts.length - 1; k >= 0; k--) {
    const fact = facts[k]
    if (fact === undefined || fact.index >= w.windowEnd) continue
    const resolved = fact.call?.resolved
    if (resolved === undefined) continue
    const eligible = isEligible(fact, w)
    const self: Later = { callId: fact.callId, index: fact.index, sha: fact.digest?.sha ?? "" }

    switch (resolved.kind) {
      case "read_file": {
        const { digest } = fact
        // Digests of one origin are compared, per path.
        const readKey = digest === undefined ? "" : digest.origin + "\u0000" + resolved.path
        if (eligible && pathsSeen.has(resolved.path)) {
          // Superseded by the nearer of: a later change of the path, a later read with another digest.
          const changed = digest === undefined ? undefined : readWithOtherDigest(reads.get(readKey), digest.sha)
          const by = nearer(changes.get(resolved.path), changed)
          if (by !== undefined) {
            elide(fact, "superseded_read", by, {
              kind: "read_file",
              path: resolved.path,
              ...(digest === undefined ? {} : { sha256: digest.sha }),
              ...(resolved.startLine === undefined ? {} : { startLine: resolved.startLine }),
              ...(resolved.limit === undefined ? {} : { limit: resolved.limit })
            })
          }
        }
        pathsSeen.add(resolved.path)
        if (digest !== undefined) reads.set(readKey, withNearestRead(reads.get(readKey), self))
        break
      }
      case "write_file":
      case "edit_file":
        pathsSeen.add(resolved.path)
        if (!fact.isError) changes.set(resolved.path, self)
        break
      case "bg_output": {
        if (eligible && !fact.continuation) {
          // The same query later, or — when this one came back empty — any later query of the task.
          const by = queries.get(resolved.key) ?? (fact.empty ? queriesOfTask.get(resolved.taskId) : undefined)
          if (by !== undefined) {
            elide(fact, "stale_bg_output", by, { kind: "bg_output", taskId: resolved.taskId, offset: resolved.offset })
          }
        }
        if (!fact.isError) {
          queries.set(resolved.key, self)
          queriesOfTask.set(resolved.taskId, self)
        }
        break
      }
      case "search_text": {
        if (fact.searchKey === undefined) break // a failed search: neither elided nor superseding
        const by = eligible ? searches.get(fact.searchKey) : undefined
        if (by !== undefined) elide(fact, "duplicate_search", by, { kind: "search_text", pattern: resolved.pattern })
        searches.set(fact.searchKey, self)
        break
      }
      default:
        // Listings and shell commands are never elided and supersede nothing.
        break
    }
  }
  return out.reverse()
}
