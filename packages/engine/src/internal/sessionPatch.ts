/**
 * The rules of a `SessionPatch`, shared by every store layer: what makes a patch unappliable, and the state
 * after applying it.
 *
 * @internal
 */
import type { SessionMeta, SessionPatch, SessionState, TranscriptEntry } from "../SessionStore.ts"

/** A patch's problem, or undefined when it applies. */
export const patchProblem = (current: SessionState | undefined, patch: SessionPatch): string | undefined => {
  if (typeof patch !== "object" || patch === null) return "the patch is not an object"
  if (current === undefined && patch.meta === undefined) return "a new session needs its meta"
  const transcript = (current?.transcript.length ?? 0) + (patch.append?.length ?? 0)
  const checkpoints = (current?.checkpoints.length ?? 0) + (patch.checkpoints?.length ?? 0)
  const active = patch.active
  if (active !== undefined) {
    const length = current?.active.length ?? 0
    if (!Number.isInteger(active.from) || active.from < 0 || active.from > length) {
      return `active.from ${active.from} is outside 0–${length}`
    }
    for (const entry of active.entries) {
      const ok = entry.origin >= 0 ? entry.origin < transcript : -entry.origin - 1 < checkpoints
      if (!Number.isInteger(entry.origin) || !ok) return `active origin ${entry.origin} names nothing stored`
    }
  }
  for (const mark of patch.compacted ?? []) {
    if (!(mark.entry >= 0 && mark.entry < transcript) || !(mark.checkpoint >= 0 && mark.checkpoint < checkpoints)) {
      return `compacted mark ${mark.entry} → ${mark.checkpoint} names nothing stored`
    }
  }
  return undefined
}

/** The state after `patch` (checked first by `patchProblem`). */
export const applied = (id: string, current: SessionState | undefined, patch: SessionPatch): SessionState => {
  const appended = patch.append ?? []
  const marks = patch.compacted ?? []
  // Untouched parts are shared with the previous state (states are never mutated once made).
  let transcript: ReadonlyArray<TranscriptEntry> = current?.transcript ?? []
  if (appended.length > 0 || marks.length > 0) {
    const next = transcript.slice()
    for (const message of appended) next.push({ message })
    for (const mark of marks) {
      const entry = next[mark.entry] as TranscriptEntry
      next[mark.entry] = { message: entry.message, compactedBy: mark.checkpoint }
    }
    transcript = next
  }
  const active = patch.active === undefined
    ? current?.active ?? []
    : [...(current?.active ?? []).slice(0, patch.active.from), ...patch.active.entries]
  const checkpoints = patch.checkpoints === undefined || patch.checkpoints.length === 0
    ? current?.checkpoints ?? []
    : [...(current?.checkpoints ?? []), ...patch.checkpoints]
  const meta = { ...current?.meta, ...patch.meta } as SessionMeta
  return {
    id,
    revision: (current?.revision ?? 0) + 1,
    format: current?.format ?? patch.format ?? "auto",
    transcript,
    active,
    checkpoints,
    meta
  }
}
