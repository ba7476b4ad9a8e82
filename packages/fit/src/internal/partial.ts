/**
 * LangChain's `allowPartial`: the message at the cut — the newest one that does not fit whole (the oldest one with
 * `strategy: "first"`) — keeps the part of its text that fits, cut at the pieces the text splitter gives: its
 * newest pieces (its first ones with `strategy: "first"`). Only a group of one plain text message is cut: never a
 * message that issues or answers a tool call, a summary, or one that travels with the next message; and a cut never
 * leaves half of a surrogate pair.
 */
import { sameShape } from "./compress.ts"
import { costAt, fits, type Fitting, keep, replace } from "./fitting.ts"

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** `text` without a lone half of a surrogate pair at its start or its end (a splitter may cut inside one). */
const wholeCharacters = (text: string): string => {
  let start = 0
  let end = text.length
  if (end > 0 && isLow(text.charCodeAt(0))) start = 1
  if (end > start && isHigh(text.charCodeAt(end - 1))) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

/**
 * Keeps group `g` with a part of its message's text, when one fits in the room left; false (nothing changed) when
 * the group cannot be cut or no part fits.
 */
export const keepPart = <M>(f: Fitting<M>, g: number, split: (text: string) => ReadonlyArray<string>): boolean => {
  const members = f.grouping.groups[g] ?? []
  if (members.length !== 1 || f.locked[g] === 1 || !f.settings.budgetUsable) return false
  const i = members[0] as number
  const format = f.settings.format
  const m = f.input[i] as M
  if (format.toolCalls(m).length > 0 || format.toolResults(m).length > 0) return false
  if (format.isSummary(m) || format.attachesToNext(m)) return false
  const room = f.settings.budget - f.total
  if (room <= 0) return false
  let pieces: ReadonlyArray<unknown>
  try {
    pieces = split(format.text(m))
  } catch {
    return false
  }
  if (!Array.isArray(pieces) || !pieces.every((p) => typeof p === "string")) return false
  const parts = pieces as ReadonlyArray<string>
  const newest = f.settings.keep === "last"
  // The copy keeping `k` pieces, and its price; priced at most log2(pieces) times (a binary search on `k`).
  const copyWith = (k: number): { readonly message: M; readonly cost: number } | undefined => {
    const text = wholeCharacters((newest ? parts.slice(parts.length - k) : parts.slice(0, k)).join(""))
    if (text.length === 0) return undefined
    const message = format.withText(m, text)
    if (message === m || !sameShape(format, m, message)) return undefined
    return { message, cost: f.price(message) }
  }
  let best: { readonly message: M; readonly cost: number } | undefined
  let low = 1
  let high = parts.length - 1
  while (low <= high) {
    const k = Math.floor((low + high) / 2)
    const copy = copyWith(k)
    if (copy !== undefined && copy.cost <= room && copy.cost < costAt(f, i)) {
      best = copy
      low = k + 1
    } else high = k - 1
  }
  if (best === undefined) return false
  replace(f, i, best)
  keep(f, g)
  return fits(f)
}
