/**
 * Where to cut a tool result that is over its cap: a head and a tail around a marker line, cut on line boundaries
 * where that costs little, never inside a surrogate pair, shrunk until the whole counts within the limit.
 *
 * @internal
 */
import { pairSafeEnd, pairSafeStart } from "@ctxkit/core/TextCut"
import type { Tally } from "./capCounting.ts"
import { formatNumber, plural } from "./capFormat.ts"

/** A cut: `text.slice(0, head)` and `text.slice(tail)` are kept; what lies between is left out. */
export interface Cut {
  readonly head: number
  readonly tail: number
}

/** A composed candidate: the text to send and what it leaves out. */
export interface Composed {
  readonly text: string
  readonly head: number
  readonly tail: number
  readonly omittedChars: number
  readonly omittedLines: number
  readonly marker: boolean
}

/** Share of the kept characters given to the head; the tail gets the rest. */
const HEAD_SHARE = 2 / 3
/** A line-boundary cut may give up at most this share of a side's characters. */
const LINE_SLACK = 0.2
/** Shrinking rounds before falling back; each round keeps at most 90% of the previous one, so the work is linear. */
const MAX_ROUNDS = 16
const MIN_SHRINK = 0.9
/** A little below the measured ratio, so that the next round usually fits. */
const SAFETY = 0.97

/** Line breaks in `text` between `from` and `to`. */
export const lineBreaks = (text: string, from = 0, to = text.length): number => {
  let n = 0
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** The marker line: how much was left out and why. */
export const markerLine = (omittedChars: number, omittedLines: number, limit: number): string =>
  `[… ${plural(omittedChars, "character")} (${plural(omittedLines, "line")}) left out: tool result capped at ${
    formatNumber(limit, 0)
  } tokens …]`

/** The cut that keeps about `keep` characters: two thirds at the head, the rest at the tail. */
export const cutFor = (text: string, keep: number): Cut => {
  const length = text.length
  const headWant = Math.min(length, Math.ceil(keep * HEAD_SHARE))
  const tailWant = Math.max(0, Math.min(length - headWant, keep - headWant))
  let head = headWant
  let tail = length - tailWant
  if (head > 0 && text.charCodeAt(head - 1) !== 10) {
    const newline = text.lastIndexOf("\n", head - 1)
    if (newline >= 0 && head - (newline + 1) <= LINE_SLACK * headWant) head = newline + 1
  }
  if (tail > 0 && tail < length && text.charCodeAt(tail - 1) !== 10) {
    const newline = text.indexOf("\n", tail)
    if (newline >= 0 && newline + 1 - tail <= LINE_SLACK * tailWant) tail = newline + 1
  }
  head = pairSafeEnd(text, head)
  tail = pairSafeStart(text, tail)
  return { head, tail: Math.max(head, tail) }
}

/** The text to send for `cut`: the head, the marker on its own line, the tail. */
export const compose = (text: string, cut: Cut, limit: number): Composed => {
  const head = text.slice(0, cut.head)
  const tail = text.slice(cut.tail)
  const omittedChars = cut.tail - cut.head
  const omittedLines = lineBreaks(text, cut.head, cut.tail)
  const before = head.length === 0 || head.endsWith("\n") ? "" : "\n"
  const after = tail.length === 0 ? "" : "\n"
  return {
    text: `${head}${before}${markerLine(omittedChars, omittedLines, limit)}${after}${tail}`,
    head: cut.head,
    tail: text.length - cut.tail,
    omittedChars,
    omittedLines,
    marker: true
  }
}

/** The next, smaller number of characters to keep after a candidate counted `counted` tokens. */
const shrink = (keep: number, counted: number, limit: number, fixed: number): number => {
  const room = limit - fixed
  const spent = counted - fixed
  const ratio = room > 0 && spent > 0 ? (room / spent) * SAFETY : 0
  return Math.max(0, Math.min(Math.floor(keep * ratio), Math.floor(keep * MIN_SHRINK)))
}

/**
 * One try at a larger cut when the first guess fits with more than a tenth of the limit unused (the input's own
 * characters per token can undersell the kept parts): kept only when it fits too.
 */
const grow = (text: string, keep: number, fitted: Fitted, limit: number, fixed: number, tally: Tally): Fitted => {
  const room = limit - fixed
  const spent = fitted.tokens - fixed
  if (fitted.tokens >= limit * 0.9 || room <= 0 || spent <= 0) return fitted
  const larger = Math.min(text.length - 1, Math.floor(keep * (room / spent) * SAFETY))
  if (larger <= keep) return fitted
  const composed = compose(text, cutFor(text, larger), limit)
  const tokens = tally.count(composed.text)
  return tokens <= limit ? { composed, tokens } : fitted
}

/** The outcome of fitting: the composed text and its count, or the marker alone when nothing else fits. */
export interface Fitted {
  readonly composed: Composed
  readonly tokens: number
  /** Tokens of the marker alone, when even that does not fit (the caller then keeps a bare head). */
  readonly markerTooBig?: number | undefined
}

/**
 * Head, marker and tail of `text` within `limit` tokens: a first guess from the text's own characters per token,
 * then rounds of shrinking (each keeps at most 90% of the previous one) re-counting the whole candidate; the
 * marker alone when no round fits; and, when the marker alone is over the limit, the longest head that fits with
 * no marker (`markerTooBig` set).
 */
export const fitWithin = (text: string, tokensBefore: number, limit: number, tally: Tally): Fitted => {
  const length = text.length
  const allLines = lineBreaks(text)
  const markerTokens = tally.count(`\n${markerLine(length, allLines, limit)}\n`)
  const perToken = tokensBefore > 0 ? length / tokensBefore : 4
  let keep = Math.max(0, Math.min(length - 1, Math.floor((limit - markerTokens) * perToken)))
  for (let round = 0; round < MAX_ROUNDS && keep > 0; round++) {
    const composed = compose(text, cutFor(text, keep), limit)
    const tokens = tally.count(composed.text)
    if (tokens <= limit) {
      return round === 0
        ? grow(text, keep, { composed, tokens }, limit, markerTokens, tally)
        : { composed, tokens }
    }
    keep = shrink(keep, tokens, limit, markerTokens)
  }
  const alone = compose(text, { head: 0, tail: length }, limit)
  const aloneTokens = tally.count(alone.text)
  if (aloneTokens <= limit) return { composed: alone, tokens: aloneTokens }
  return { ...headWithin(text, tokensBefore, limit, tally), markerTooBig: aloneTokens }
}

/** The longest head of `text` (found in bounded shrinking rounds) that counts within `limit`, without a marker. */
const headWithin = (text: string, tokensBefore: number, limit: number, tally: Tally): Fitted => {
  const length = text.length
  const perToken = tokensBefore > 0 ? length / tokensBefore : 4
  let keep = Math.max(0, Math.min(length - 1, Math.floor(limit * perToken)))
  for (let round = 0; round < MAX_ROUNDS && keep > 0; round++) {
    const end = pairSafeEnd(text, keep)
    const head = text.slice(0, end)
    const tokens = tally.count(head)
    if (tokens <= limit) return { composed: bare(text, end), tokens }
    keep = shrink(end, tokens, limit, 0)
  }
  return { composed: bare(text, 0), tokens: tally.count("") }
}

const bare = (text: string, end: number): Composed => ({
  text: text.slice(0, end),
  head: end,
  tail: 0,
  omittedChars: text.length - end,
  omittedLines: lineBreaks(text, end),
  marker: false
})
