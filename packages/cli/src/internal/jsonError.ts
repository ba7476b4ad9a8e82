/**
 * Where JSON text is malformed, as a line and column: V8's `JSON.parse` names a position for some errors and only a
 * snippet for others ("Unexpected token"), so the failing offset is found by a small scanner of its own. It runs only
 * after `JSON.parse` has failed.
 *
 * @internal
 */

/** The problem and its place (1-based line and column, in UTF-16 units as editors count them). */
export interface JsonErrorPlace {
  readonly line: number
  readonly column: number
  readonly problem: string
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** The offset of the first syntax error in `text` and what was expected there, or undefined when it is valid. */
const firstError = (text: string): { readonly offset: number; readonly problem: string } | undefined => {
  let i = 0
  const n = text.length
  const skip = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++
  }
  const fail = (problem: string) => ({ offset: i, problem })
  const describe = (): string => (i >= n ? "the end of the text" : JSON.stringify(text[i]))
  const literal = (word: string) => {
    if (text.startsWith(word, i)) {
      i += word.length
      return undefined
    }
    return fail(`unexpected ${describe()}`)
  }
  const string = () => {
    i++ // the opening quote
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return undefined
      }
      if (c < 0x20) return fail("a control character inside a string (escape it, e.g. \\n)")
      if (c === 0x5c) {
        const e = text[i + 1]
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail("a bad \\u escape")
          i += 6
          continue
        }
        if (e === undefined || !"\"\\/bfnrt".includes(e)) return fail("a bad escape sequence")
        i += 2
        continue
      }
      i++
    }
    return fail("a string that is never closed")
  }
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (match === null) return fail(`unexpected ${describe()}`)
    i += match[0].length
    return undefined
  }
  const scalar = () => {
    const c = text[i]
    if (c === "\"") return string()
    if (c === "t") return literal("true")
    if (c === "f") return literal("false")
    if (c === "n") return literal("null")
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number()
    return fail(
      i >= n ? "the text ends where a value was expected" : `unexpected ${describe()} where a value was expected`
    )
  }
  const key = () => {
    skip()
    if (text[i] !== "\"") return fail(`expected a double-quoted property name, found ${describe()}`)
    const bad = string()
    if (bad !== undefined) return bad
    skip()
    if (text[i] !== ":") return fail(`expected ':' after a property name, found ${describe()}`)
    i++
    return undefined
  }
  // An explicit stack of open containers, so that deep nesting cannot overflow the call stack.
  const stack: Array<"]" | "}"> = []
  let bad: { readonly offset: number; readonly problem: string } | undefined
  let needValue = true
  while (bad === undefined) {
    skip()
    if (needValue) {
      const c = text[i]
      if (c === "{" || c === "[") {
        i++
        skip()
        const close = c === "{" ? "}" : "]"
        if (text[i] === close) {
          i++
          needValue = false
          continue
        }
        stack.push(close)
        if (close === "}") bad = key()
        continue
      }
      bad = scalar()
      needValue = false
      continue
    }
    const close = stack[stack.length - 1]
    if (close === undefined) break
    if (text[i] === close) {
      i++
      stack.pop()
      continue
    }
    if (text[i] !== ",") {
      bad = fail(`expected ',' or '${close}', found ${describe()}`)
      continue
    }
    i++
    skip()
    if (text[i] === close) {
      bad = fail(`a trailing comma before '${close}' (remove it)`)
      continue
    }
    if (close === "}") bad = key()
    needValue = true
  }
  if (bad !== undefined) return bad
  skip()
  return i < n ? fail(`unexpected ${describe()} after the end of the JSON value`) : undefined
}

/** Line and column of `offset` in `text`, both 1-based. */
export const placeOf = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  let line = 1
  let lineStart = 0
  for (let k = text.indexOf("\n"); k !== -1 && k < offset; k = text.indexOf("\n", k + 1)) {
    line++
    lineStart = k + 1
  }
  return { line, column: offset - lineStart + 1 }
}

/** Where and why `text` is not JSON (it must be text that `JSON.parse` rejected). */
export const jsonErrorPlace = (text: string): JsonErrorPlace => {
  const found = firstError(text) ?? { offset: 0, problem: "not valid JSON" }
  return { ...placeOf(text, found.offset), problem: found.problem }
}
