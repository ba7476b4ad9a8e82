/** Text helpers that never split a surrogate pair. */

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** The first `end` UTF-16 code units of `text`, one fewer when the cut would fall inside a surrogate pair. */
export const safeHead = (text: string, end: number): string => {
  let e = Math.max(0, Math.min(Math.floor(end), text.length))
  if (e > 0 && e < text.length && isHigh(text.charCodeAt(e - 1)) && isLow(text.charCodeAt(e))) e--
  return text.slice(0, e)
}

/** The last `count` UTF-16 code units of `text`, one fewer when the cut would fall inside a surrogate pair. */
export const safeTail = (text: string, count: number): string => {
  let s = Math.max(0, text.length - Math.max(0, Math.floor(count)))
  if (s > 0 && s < text.length && isLow(text.charCodeAt(s)) && isHigh(text.charCodeAt(s - 1))) s++
  return text.slice(s)
}

/** Runs of whitespace as one space, trimmed. */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/g, " ").trim()
