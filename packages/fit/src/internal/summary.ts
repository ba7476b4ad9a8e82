/**
 * The local extractive summary of the `summarize` strategy, in NeoTavern's shape: a first line
 * `[Summary of earlier context]`, then one line per excluded message `role: text` (whitespace collapsed; a text
 * over 160 characters keeps its first 104 and last 40 around ` … `), the body shrunk to 72% until the whole
 * summary costs at most its cap.
 */
import type { MessageFormat } from "@ctxkit/core"
import { SUMMARY_HEADER } from "@ctxkit/core/InsertedText"
import { safeHead, safeTail } from "@ctxkit/core/TextCut"
import { collapseWhitespace } from "./text.ts"

/** The summary's token cap for a budget: `max(8, min(128, floor(budget × 0.35)))`. */
export const summaryCap = (budget: number): number => Math.max(8, Math.min(128, Math.floor(budget * 0.35)))

/** A collapsed text, clipped to its first 104 and last 40 characters when longer than 160. */
export const clipLine = (text: string): string => {
  const collapsed = collapseWhitespace(text)
  return collapsed.length > 160 ? `${safeHead(collapsed, 104)} … ${safeTail(collapsed, 40)}` : collapsed
}

/** One line per message, in the order given. */
export const summaryLines = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): Array<string> =>
  messages.map((m) => `${format.role(m)}: ${clipLine(format.text(m))}`)

/**
 * The summary text: header and body, the body cut to 72% of its length (never inside a surrogate pair) until
 * `count(summary) <= cap`; undefined when even the header alone costs more than the cap.
 */
export const buildSummary = (
  lines: ReadonlyArray<string>,
  cap: number,
  count: (text: string) => number
): string | undefined => {
  let body = lines.join("\n")
  for (;;) {
    const text = body.length === 0 ? SUMMARY_HEADER : `${SUMMARY_HEADER}\n${body}`
    if (count(text) <= cap) return text
    if (body.length === 0) return undefined
    body = safeHead(body, Math.floor(body.length * 0.72))
  }
}
