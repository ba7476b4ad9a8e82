/** Where a summarizer's reply may hold its JSON: linear scans, no backtracking regular expressions. */

const FENCE = "```"
/** A fence's language tag (`json`, `JSON`, `jsonc`…), when one follows the opening fence. */
const TAG = /^[A-Za-z][\w+.-]*/

/** The content of the first fenced code block, without its language tag; undefined when no block is closed. */
const fencedBlock = (text: string): string | undefined => {
  const open = text.indexOf(FENCE)
  if (open < 0) return undefined
  const start = open + FENCE.length
  const close = text.indexOf(FENCE, start)
  if (close < 0) return undefined
  const body = text.slice(start, close)
  const tag = TAG.exec(body.slice(0, 32))
  return tag === null ? body : body.slice(tag[0].length)
}

/** The text from the first `{` to the last `}`, when there is such a span. */
const braceSpan = (text: string): string | undefined => {
  const first = text.indexOf("{")
  const last = text.lastIndexOf("}")
  return first >= 0 && last > first ? text.slice(first, last + 1) : undefined
}

/** The texts to try as the reply's JSON, in order: the first fenced block, then the `{`…`}` span. */
export const findJsonCandidates = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  const fenced = fencedBlock(text)
  if (fenced !== undefined) out.push(fenced)
  const span = braceSpan(text)
  if (span !== undefined && span !== fenced) out.push(span)
  return out
}
