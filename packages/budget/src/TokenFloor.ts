/**
 * A lower bound on the tokens a text costs under any tokenizer that splits on whitespace before merging:
 * the BPE tokenizers with a pre-tokenizer (o200k, cl100k, Llama 3, Qwen, DeepSeek) and SentencePiece trained
 * with whitespace splitting (Gemma). Unlike an estimate it never overshoots, so a server that reports fewer
 * prompt tokens than the floor of the text it was sent did not read all of it.
 *
 * @since 0.1.0
 */

// Whitespace for every tokenizer: the Unicode White_Space set, which the Rust and JavaScript regular expressions
// of the pre-tokenizers share. U+0085 (Unicode only) and U+FEFF, U+180E (JavaScript or older Unicode only)
// are whitespace for some and not others: they neither separate words nor make one.
const isSeparator = (c: number): boolean =>
  c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000

const isAmbiguous = (c: number): boolean => c === 0x85 || c === 0xfeff || c === 0x180e

const SLASH = 0x2f

/**
 * The fewest tokens `text` can cost wherever it sits in a prompt: its words (maximal runs of non-whitespace
 * characters) less one, never below 0.
 *
 * Why it holds: those tokenizers cut the text into pieces before merging, and no piece holds the last
 * characters of two words (a piece is letters with one leading character, up to three digits, a run of
 * punctuation with trailing newlines — and, in o200k, slashes — or whitespace), so every word ends in a token
 * of its own. Two exceptions are left out of the count: a word of slashes only (o200k folds `!\n/\n/` into one
 * piece), and a word of characters only some tokenizers call whitespace (U+0085, U+FEFF). The one subtracted
 * covers the text's first or last word merging with what the chat template or the next part puts right
 * against it. Measured on the corpus and on code, prose, JSON, CJK, base64, emoji and whitespace with every
 * exact counter shipped: never above the count (the tightest, `!\n/\n/…`, at exactly 1 token a word).
 *
 * Count each piece of text the server reads verbatim (a message's text, each tool result) on its own, once,
 * and sum: the sum is a floor for the request. Leave out what a template may re-serialize or drop (tool-call
 * arguments, reasoning). Linear in the text, no allocation.
 *
 * @example
 * ```ts
 * import { tokenFloor } from "@ctxkit/budget/TokenFloor"
 *
 * tokenFloor("Find which log line explains the outage.") // 6
 * tokenFloor(" ".repeat(4_000)) // 0
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const tokenFloor = (text: string): number => {
  let words = 0
  let inWord = false
  let counts = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isSeparator(c)) {
      if (inWord && counts) words++
      inWord = false
      counts = false
    } else {
      inWord = true
      if (!counts && c !== SLASH && !isAmbiguous(c)) counts = true
    }
  }
  if (inWord && counts) words++
  return Math.max(0, words - 1)
}
