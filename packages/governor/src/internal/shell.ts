/**
 * A small shell-command reader: words with quotes resolved, whether the command is a single simple command,
 * and the classification the ready-made tool mappings use (`cat FILE` is a read, `grep …` a search, …).
 *
 * @internal
 */
import type { ToolKind } from "../ToolKinds.ts"
import { intWord } from "./args.ts"

/** The words of a command and whether it is one simple command (no pipe, list, redirection or substitution). */
export interface ShellWords {
  readonly words: ReadonlyArray<string>
  readonly simple: boolean
}

const SPACE = /\s/

/**
 * Splits a command into words, resolving single quotes, double quotes and backslashes. Operators (`|`, `;`,
 * `&`, `<`, `>`, backquote, `$(`, newline) outside quotes end a word and make the command not simple.
 */
export const shellWords = (command: string): ShellWords => {
  const words: Array<string> = []
  let simple = true
  let word = ""
  let inWord = false
  let quote: "'" | "\"" | undefined
  const end = (): void => {
    if (inWord) words.push(word)
    word = ""
    inWord = false
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? ""
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word += c
      continue
    }
    if (quote === "\"") {
      if (c === "\"") quote = undefined
      else if (c === "\\" && i + 1 < command.length && "\"\\$`".includes(command[i + 1] ?? "")) word += command[++i]
      else {
        if (c === "$" || c === "`") simple = false
        word += c
      }
      continue
    }
    if (c === "'" || c === "\"") {
      quote = c
      inWord = true
      continue
    }
    if (c === "\\" && i + 1 < command.length) {
      word += command[++i]
      inWord = true
      continue
    }
    if (c === "\n" || c === "|" || c === ";" || c === "&" || c === "<" || c === ">" || c === "`") {
      simple = false
      end()
      continue
    }
    if (c === "$" && command[i + 1] === "(") simple = false
    if (SPACE.test(c)) {
      end()
      continue
    }
    word += c
    inWord = true
  }
  if (quote !== undefined) simple = false
  end()
  return { words, simple }
}

const GREP: ReadonlySet<string> = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack"])
const LIST: ReadonlySet<string> = new Set(["ls", "find", "fd", "tree"])

/** The first operand of a grep-like command: the `-e` argument, else the first word not an option. */
const grepPattern = (words: ReadonlyArray<string>, from: number): string | undefined => {
  for (let i = from; i < words.length; i++) {
    const w = words[i] ?? ""
    if (w === "-e" || w === "--regexp") return words[i + 1]
    if (w.startsWith("--regexp=")) return w.slice("--regexp=".length)
    if (w === "--") return words[i + 1]
    if (!w.startsWith("-")) return w
  }
  return undefined
}

/** `sed -n 'A,Bp' FILE`, `sed -n 'Ap' FILE`: the range. */
const sedRange = (script: string): { readonly start: number; readonly limit: number } | undefined => {
  const m = /^(\d{1,9})(?:,(\d{1,9}))?p$/.exec(script)
  if (m === null) return undefined
  const start = Number(m[1])
  const last = m[2] === undefined ? start : Number(m[2])
  return last >= start ? { start, limit: last - start + 1 } : undefined
}

const constant = <A>(value: A) => (): A => value

/**
 * How a shell command reads for the governor:
 * - `cat FILE`, `nl [-ba] FILE` (one simple command, one file): a full read;
 * - `head [-n N|-N] FILE`: lines 1+N; `sed -n 'A,Bp' FILE`: lines A+(B-A+1);
 * - `rm FILE` (one file): an edit of FILE;
 * - a command starting with `grep`, `egrep`, `fgrep`, `rg`, `ag`, `ack` or `git grep`: a search, compared by its
 *   whole command text;
 * - `ls`, `find`, `fd`, `tree`: a file listing;
 * - anything else: a shell command (usage summary only).
 * Anything this cannot read with certainty is a plain shell command: a missed read or edit only loses a saving.
 */
export const classifyCommand = (command: string): ToolKind => {
  const { simple, words } = shellWords(command)
  const head = words[0] ?? ""
  const shell: ToolKind = { kind: "shell", command: constant(command) }
  if (GREP.has(head) || (head === "git" && words[1] === "grep")) {
    const pattern = grepPattern(words, head === "git" ? 2 : 1)
    return pattern === undefined ? shell : { kind: "search_text", pattern: constant(pattern) }
  }
  if (LIST.has(head)) return { kind: "list_files" }
  if (!simple) return shell
  const operands = words.slice(1).filter((w) => !w.startsWith("-"))
  switch (head) {
    case "cat":
      return words.length === 2 && operands.length === 1
        ? { kind: "read_file", path: constant(operands[0]) }
        : shell
    case "nl": {
      const options = words.slice(1, -1)
      return operands.length === 1 && words[words.length - 1] === operands[0] &&
          options.every((o) => o === "-ba" || o === "-b" || o === "a")
        ? { kind: "read_file", path: constant(operands[0]) }
        : shell
    }
    case "head": {
      let limit = 10
      let path: string | undefined
      for (let i = 1; i < words.length; i++) {
        const w = words[i] ?? ""
        if (w === "-n") {
          const n = intWord(words[++i])
          if (n === undefined) return shell
          limit = n
        } else if (/^-\d{1,9}$/.test(w)) limit = Number(w.slice(1))
        else if (/^-n\d{1,9}$/.test(w)) limit = Number(w.slice(2))
        else if (w.startsWith("-") || path !== undefined) return shell
        else path = w
      }
      return path === undefined ? shell : { kind: "read_file", path: constant(path), limit: constant(limit) }
    }
    case "sed": {
      if (words.length !== 4 || words[1] !== "-n") return shell
      const range = sedRange(words[2] ?? "")
      const path = words[3]
      return range === undefined || path === undefined || path.startsWith("-")
        ? shell
        : { kind: "read_file", path: constant(path), startLine: constant(range.start), limit: constant(range.limit) }
    }
    case "rm":
      return operands.length === 1 && words.length <= 3 ? { kind: "edit_file", path: constant(operands[0]) } : shell
    default:
      return shell
  }
}

const WORD_SPLIT = /[\s|;&<>()`'"=,]+/

/** Every whole word of a command, for the usage summary (quotes and operators split words). */
export const commandWords = (command: string): ReadonlyArray<string> =>
  command.split(WORD_SPLIT).filter((w) => w !== "")
