/**
 * The facts `planCompaction` needs, read in one pass through the lens: where a history may be cut, where its
 * turns start, which protected messages can stay outside the summary, and which calls are still open.
 */
import { type MessageFormat, toolGroups } from "@ctxkit/core"

/** The boundaries of a history, as `planCompaction` reads them. */
export interface Boundaries {
  /** `safe[i]` (for `0 < i < n`): the history may be cut right before message `i`. Index 0 is never safe. */
  readonly safe: Uint8Array
  /** Indices of the turn starts, ascending. */
  readonly turnStarts: ReadonlyArray<number>
  /** `retainedBefore[i]`: how many retainable messages come before index `i` (length `n + 1`). */
  readonly retainedBefore: Int32Array
  /** `retainable[i]`: message `i` is protected and linked to nothing, so it can stay before the checkpoint. */
  readonly retainable: Uint8Array
  /** The ids of the calls no message answers, in issuer order, without repeats. */
  readonly openCalls: ReadonlyArray<string>
}

/**
 * Reads the boundaries of `messages`. Linear: `toolGroups` once, then one pass reading each message's role,
 * results, protection and attachment through the lens.
 */
export const planBoundaries = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): Boundaries => {
  const n = messages.length
  const { diagnostics, groups } = toolGroups(messages, format)
  const openCalls: Array<string> = []
  const seen = new Set<string>()
  for (const d of diagnostics) {
    // A call awaiting execution (approval answered, no result yet) is open too.
    if ((d._tag === "DanglingCall" || d._tag === "AwaitingExecution") && !seen.has(d.callId)) {
      seen.add(d.callId)
      openCalls.push(d.callId)
    }
  }

  // `covered[i] > 0` when some group has members both before `i` and at or after it (a difference array over
  // the span (first, last] of every multi-member group).
  const covered = new Int32Array(n + 1)
  for (const group of groups) {
    const first = group[0]
    const last = group[group.length - 1]
    if (first === undefined || last === undefined || last === first) continue
    covered[first + 1] += 1
    covered[last + 1] -= 1
  }
  const singleton = new Uint8Array(n)
  for (const group of groups) if (group.length === 1 && group[0] !== undefined) singleton[group[0]] = 1

  const safe = new Uint8Array(n)
  const retainable = new Uint8Array(n)
  const retainedBefore = new Int32Array(n + 1)
  const turnStarts: Array<number> = []
  let depth = 0
  let previousAttaches = false
  for (let i = 0; i < n; i++) {
    depth += covered[i]
    const message = messages[i]
    const role = format.role(message)
    const carriesResult = role === "tool" || format.toolResults(message).length > 0
    const isSafe = i > 0 && !carriesResult && !previousAttaches && depth === 0
    if (isSafe) safe[i] = 1
    if (role === "user" && !carriesResult && (i === 0 || isSafe)) turnStarts.push(i)
    if (singleton[i] === 1 && format.isProtected(message) && !hasLinks(message, format)) retainable[i] = 1
    retainedBefore[i + 1] = retainedBefore[i] + retainable[i]
    previousAttaches = format.attachesToNext(message)
  }
  return { safe, turnStarts, retainedBefore, retainable, openCalls }
}

const hasLinks = <M>(message: M, format: MessageFormat<M>): boolean => {
  let any = false
  format.forEachLink(message, () => {
    any = true
  })
  return any
}
