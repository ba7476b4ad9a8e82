/** Characters a JSON string may hold raw that must not reach the block: tag brackets and line breaks. */
const UNSAFE = /[<>\u0085\u2028\u2029]/g

const unicodeEscape = (char: string): string => "\\u" + char.charCodeAt(0).toString(16).padStart(4, "0")

/**
 * One item line: `- ` and the text as a JSON string. `JSON.stringify` already escapes quotes, backslashes,
 * control characters (so `\n` cannot start a new line) and lone surrogates; `<` and `>` are escaped too, so
 * no item can open or close a tag, and U+0085/U+2028/U+2029, which some readers take for line breaks. None of
 * these characters is ever part of an escape sequence `JSON.stringify` writes, so replacing them is safe.
 */
export const itemLine = (text: string): string => "- " + JSON.stringify(text).replace(UNSAFE, unicodeEscape)
