/**
 * The usage heuristic over an analysed history: which results a later call named.
 *
 * @internal
 */
import type { UsageSummary } from "../UsageSummary.ts"
import type { Analysis, ResultFact } from "./analysis.ts"
import { commandWords } from "./shell.ts"

/** What the usage figures are, said in every summary. */
export const HEURISTIC_NOTE =
  "Heuristic, not a measure of what the model needed: a result counts as used when a later call names one of its paths; re-reading the same path is counted apart; answers given in text, facts reused elsewhere and symbols are not seen."

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160
/** Characters trimmed from the ends of a candidate path: quotes and brackets, `ls -F` markers, punctuation. */
const isLeadTrim = (c: number): boolean => c === 40 || c === 34 || c === 39 || c === 96
const isTailTrim = (c: number): boolean =>
  c === 41 || c === 34 || c === 39 || c === 96 || c === 47 || c === 42 || c === 64 || c === 61 || c === 124 ||
  c === 58 || c === 44 || c === 59

/**
 * The path-like word in `text[start, end)`, trimmed: it has a `/` or a `.`, is not an option, and is at most 4096
 * characters; `undefined` otherwise.
 */
const pathLike = (text: string, start: number, end: number): string | undefined => {
  while (start < end && isLeadTrim(text.charCodeAt(start))) start++
  while (end > start && isTailTrim(text.charCodeAt(end - 1))) end--
  if (end <= start || end - start > 4096 || text.charCodeAt(start) === 45 /* - */) return undefined
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === 47 || c === 46) return text.slice(start, end)
  }
  return undefined
}

/** Paths a listing shows: every path-like word of its output (one pass, no regular expression). */
const listedPaths = (text: string): Array<string> => {
  const out: Array<string> = []
  let start = -1
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isSpace(text.charCodeAt(i))
    if (!space) {
      if (start < 0) start = i
      continue
    }
    if (start >= 0) {
      const p = pathLike(text, start, i)
      if (p !== undefined) out.push(p)
      start = -1
    }
  }
  return out
}

/** Files a search matched: per line, the first word of the text before the first `:` (`path:line:match`). */
const matchedPaths = (text: string): Array<string> => {
  const out: Array<string> = []
  const seen = new Set<string>()
  let line = 0
  while (line <= text.length) {
    let next = text.indexOf("\n", line)
    if (next < 0) next = text.length
    let start = line
    while (start < next && isSpace(text.charCodeAt(start))) start++
    let end = start
    while (end < next) {
      const c = text.charCodeAt(end)
      if (c === 58 /* : */ || isSpace(c)) break
      end++
    }
    const p = pathLike(text, start, end)
    if (p !== undefined && !seen.has(p)) {
      seen.add(p)
      out.push(p)
    }
    line = next + 1
  }
  return out
}

const pathsOfResult = (fact: ResultFact): ReadonlyArray<string> => {
  const resolved = fact.call?.resolved
  switch (resolved?.kind) {
    case "read_file":
      return [resolved.path]
    case "list_files":
      return listedPaths(fact.text)
    case "search_text":
      return matchedPaths(fact.text)
    default:
      return []
  }
}

/** `P` and every suffix of `P` after a `/`: a named absolute path also names the relative entries it ends with. */
const keysOf = (path: string): Array<string> => {
  const keys = [path]
  for (let i = path.indexOf("/"); i >= 0 && i < path.length - 1; i = path.indexOf("/", i + 1)) {
    keys.push(path.slice(i + 1))
  }
  return keys
}

interface Pending {
  readonly facts: Array<number>
  /** Entries before this position were already marked re-read. */
  rereadUpTo: number
}

/** The usage summary of an analysed history; results whose call ids are in `elided` were not seen in full. */
export const summarizeUsage = (analysis: Analysis, elided: ReadonlySet<string>): UsageSummary => {
  const { calls, facts } = analysis
  // 0 = seen, pending; 1 = re-read only; 2 = used; -1 = not counted.
  const state = new Int8Array(facts.length)
  const pending = new Map<string, Pending>()
  const seenBy = new Map<string, number>()
  const unattributable = new Map<string, number>()
  let c = 0
  let f = 0

  const mark = (key: string, to: 1 | 2): void => {
    const entry = pending.get(key)
    if (entry === undefined) return
    if (to === 1) {
      // Only entries added since the last re-read need marking: repeated re-reads stay linear.
      for (let k = entry.rereadUpTo; k < entry.facts.length; k++) {
        const id = entry.facts[k] ?? 0
        if (state[id] === 0) state[id] = 1
      }
      entry.rereadUpTo = entry.facts.length
      return
    }
    for (const id of entry.facts) if (state[id] === 0 || state[id] === 1) state[id] = 2
    pending.delete(key)
  }

  /** A later call names `path`: earlier results showing it are used — except earlier reads, when it reads it again. */
  const use = (path: string, readsAgain: boolean): void => {
    for (const key of keysOf(path)) {
      mark("o" + key, 2)
      mark("r" + key, readsAgain ? 1 : 2)
    }
  }

  while (c < calls.length || f < facts.length) {
    const callIndex = calls[c]?.index ?? Infinity
    const factIndex = facts[f]?.index ?? Infinity
    if (callIndex <= factIndex) {
      // A call uses the results of earlier messages only (its own message's results come after it).
      const call = calls[c++]
      const resolved = call?.resolved
      if (call === undefined) continue
      if (call.pathArgument !== undefined) use(call.pathArgument, false)
      switch (resolved?.kind) {
        case "read_file":
          use(resolved.path, true)
          break
        case "write_file":
        case "edit_file":
          use(resolved.path, false)
          break
        case "list_files":
          for (const p of resolved.paths) use(p, false)
          break
        case "shell":
          for (const word of commandWords(resolved.command)) use(word, false)
          break
        default:
          break
      }
      continue
    }
    const id = f
    const fact = facts[f++]
    if (fact === undefined) continue
    if (elided.has(fact.callId)) {
      state[id] = -1
      continue
    }
    const paths = fact.isError ? [] : pathsOfResult(fact)
    if (paths.length === 0) {
      state[id] = -1
      unattributable.set(fact.tool, (unattributable.get(fact.tool) ?? 0) + 1)
      continue
    }
    seenBy.set(fact.tool, (seenBy.get(fact.tool) ?? 0) + 1)
    const prefix = fact.call?.resolved?.kind === "read_file" ? "r" : "o"
    for (const path of paths) {
      const key = prefix + path
      const entry = pending.get(key)
      if (entry === undefined) pending.set(key, { facts: [id], rereadUpTo: 0 })
      else entry.facts.push(id)
    }
  }

  const usedBy = new Map<string, number>()
  const rereadBy = new Map<string, number>()
  facts.forEach((fact, id) => {
    if (state[id] === 2) usedBy.set(fact.tool, (usedBy.get(fact.tool) ?? 0) + 1)
    else if (state[id] === 1) rereadBy.set(fact.tool, (rereadBy.get(fact.tool) ?? 0) + 1)
  })
  const tools = [...seenBy.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([tool, seen]) => {
    const used = usedBy.get(tool) ?? 0
    return { tool, seen, used, reread: rereadBy.get(tool) ?? 0, ratio: `${tool} ${used}/${seen}` }
  })
  const rest = [...unattributable.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([tool, results]) => ({ tool, results }))
  const sum = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0)
  return {
    heuristic: true,
    note: HEURISTIC_NOTE,
    tools,
    unattributable: rest,
    seen: sum(tools.map((t) => t.seen)),
    used: sum(tools.map((t) => t.used)),
    reread: sum(tools.map((t) => t.reread)),
    unattributableResults: sum(rest.map((r) => r.results))
  }
}
