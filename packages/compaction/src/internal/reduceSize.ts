/**
 * Sizes and clips for `reduceToBudget`: the serialized size of one message, what of it may be clipped, and the
 * clip itself, always computed from the original message.
 */
import type { MessageFormat } from "@ctxkit/core"
import { safeHead } from "@ctxkit/core/TextCut"

/** The marker every budget cut ends with (31 UTF-16 code units, the first one U+2026). */
export const MARKER = "… [truncated by context budget]"

const SUFFIX = "\n" + MARKER

/**
 * What the reduction may clip in a message: nothing (a checkpoint, a protected message, a system message),
 * its own text (a user or assistant message), or the texts of the tool results it carries.
 */
export type Clippable = "none" | "text" | "results"

/**
 * Length of `JSON.stringify(message)`, as it counts inside `JSON.stringify(messages)`: `null` (4) for what
 * JSON has no text for; the text's length + 2 for what JSON.stringify cannot handle (cycles, BigInt, a throwing
 * `toJSON`). Never throws.
 */
export const messageChars = <M>(message: M, format: MessageFormat<M>): number => {
  try {
    const json: string | undefined = JSON.stringify(message)
    return json === undefined ? 4 : json.length
  } catch {
    try {
      return format.text(message).length + 2
    } catch {
      return 2
    }
  }
}

/** Size of the serialized array whose elements have `sum` characters in all: brackets and commas added. */
export const arrayChars = (count: number, sum: number): number => sum + 2 + Math.max(0, count - 1)

const NONE: { readonly kind: Clippable; readonly length: number } = { kind: "none", length: 0 }

/** What a message offers to clip: its kind, and the length of the clippable content in the original. */
export const clippableOf = <M>(
  message: M,
  format: MessageFormat<M>
): { readonly kind: Clippable; readonly length: number } => {
  if (format.isSummary(message) || format.isProtected(message)) return NONE
  const results = format.toolResults(message)
  if (results.length > 0) {
    let length = 0
    for (const result of results) length += result.text.length
    return { kind: "results", length }
  }
  const role = format.role(message)
  if (role !== "user" && role !== "assistant") return NONE
  return { kind: "text", length: format.ownText(message).length }
}

/** `text` cut to `cap` characters with the marker on its own line; `text` itself when it fits. */
export const clipText = (text: string, cap: number): string =>
  text.length <= cap ? text : cap <= 0 ? MARKER : safeHead(text, cap) + SUFFIX

/**
 * The original message clipped at `cap`: its own text (kind `text`), or its results (kind `results`): they keep
 * their text in order while the total fits; the first that does not fit is cut to the room left (the marker
 * alone when there is none) and every later result longer than the marker becomes the marker (shorter ones
 * stay: replacing them would save nothing).
 */
export const clipMessage = <M>(original: M, kind: Clippable, cap: number, format: MessageFormat<M>): M => {
  if (kind === "text") return format.withText(original, clipText(format.ownText(original), cap))
  if (kind !== "results") return original
  let message = original
  let room = cap
  let cut = false
  for (const result of format.toolResults(original)) {
    const length = result.text.length
    if (!cut) {
      if (length <= room) {
        room -= length
        continue
      }
      message = format.withResultText(message, result.callId, clipText(result.text, room))
      cut = true
    } else if (length > MARKER.length) {
      message = format.withResultText(message, result.callId, MARKER)
    }
  }
  return message
}
