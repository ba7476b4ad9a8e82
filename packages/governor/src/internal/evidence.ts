/**
 * Step 2 of the analysis: what one successful tool result says that the redundancy rules compare — the digest
 * of a read, the matches of a search, whether a background query came back empty, the offset it says to
 * continue from. Each is computed once, when the result is first seen.
 *
 * @internal
 */
import type { MessageFormat } from "@ctxkit/core"
import type { ToolResultInfo } from "@ctxkit/core/MessageFormat"
import type { BgOutputKind, ReadFileKind } from "../ToolKinds.ts"
import { attempt, type Resolved } from "./resolve.ts"
import { sha256Hex, utf8Length } from "./sha256.ts"
import { lineNumber } from "./text.ts"

/** Reads over this many UTF-8 bytes are never hashed: the spec's tools report no sha256 for them either. */
export const MAX_HASHED_BYTES = 1024 * 1024

/**
 * The content digest of a read. `reported` came from the tool, `computed` was hashed here: the two are only
 * compared within one origin, since a tool may hash something else than the text it returned.
 */
export interface ReadDigest {
  readonly sha: string
  readonly origin: "reported" | "computed"
}

/** The digest a read reported: the mapping's accessor, else a `sha256` on a single-result message or in its meta. */
const reportedDigest = <M>(
  spec: ReadFileKind,
  result: ToolResultInfo,
  message: M,
  resultsInMessage: number,
  format: MessageFormat<M>
): string | undefined => {
  let value: unknown
  if (spec.sha256 !== undefined) value = attempt(() => spec.sha256?.(result, message))
  else if (resultsInMessage === 1) {
    // With several results in one message, a message-level digest would not say whose it is.
    value = typeof message === "object" && message !== null && Object.hasOwn(message, "sha256")
      ? (message as Readonly<Record<string, unknown>>)["sha256"]
      : undefined
    if (value === undefined) value = attempt(() => format.meta(message))?.["sha256"]
  }
  return typeof value === "string" && /^[0-9a-fA-F]{8,}$/.test(value) ? value.toLowerCase() : undefined
}

/** The digest of a successful read: reported by the tool, else (with `hashReads`) hashed from a full read's text. */
export const readDigest = <M>(
  resolved: Extract<Resolved, { readonly kind: "read_file" }>,
  result: ToolResultInfo,
  text: string,
  message: M,
  resultsInMessage: number,
  format: MessageFormat<M>,
  hashReads: boolean
): ReadDigest | undefined => {
  const reported = reportedDigest(resolved.spec, result, message, resultsInMessage, format)
  if (reported !== undefined) return { sha: reported, origin: "reported" }
  // A partial read's text is not the file: its hash would claim a change that did not happen.
  if (hashReads && !resolved.partial && utf8Length(text) <= MAX_HASHED_BYTES) {
    return { sha: sha256Hex(text), origin: "computed" }
  }
  return undefined
}

const ELAPSED =
  /"?(?:elapsed|elapsed_?ms|elapsedMs|duration_?ms|durationMs|took|time_?ms)"?\s*[:=]\s*"?\d+(?:\.\d+)?\s*(?:ms|s)?"?\s*,?/gi

const MAYBE_ELAPSED = /elapsed|duration|took|time_?ms/i

/** The default `matches` of a search: its text without elapsed-time figures (which differ on every run). */
const withoutElapsedTimes = (text: string): string => MAYBE_ELAPSED.test(text) ? text.replace(ELAPSED, "") : text

/**
 * What two searches must share to be duplicates: the same call key (tool and arguments) and the same matches —
 * by the mapping's `matches` reader, else the text without its elapsed-time figures.
 */
export const searchKey = (
  resolved: Extract<Resolved, { readonly kind: "search_text" }>,
  text: string
): string => {
  const matches = attempt(() => (resolved.spec.matches ?? withoutElapsedTimes)(text))
  return resolved.key + "\u0000" + (typeof matches === "string" ? matches : text)
}

/** Whether a background query returned no output: the mapping's `isEmpty`, else blank text. */
export const isEmptyOutput = (spec: BgOutputKind, text: string): boolean =>
  attempt(() => (spec.isEmpty ?? isBlank)(text)) === true

const isBlank = (text: string): boolean => text.trim() === ""

/** The offset a background result says to continue from: the mapping's reader, else a `next_offset` number. */
export const nextOffsetOf = (spec: BgOutputKind, text: string): number | undefined => {
  return lineNumber(attempt(() => (spec.nextOffset ?? nextOffsetInText)(text)))
}

const nextOffsetInText = (text: string): number | undefined => {
  const m = /"?next_?offset"?\s*[:=]\s*(\d{1,15})/i.exec(text)
  return m === null ? undefined : Number(m[1])
}
