/**
 * `@ctxkit/compaction` end to end, offline: a coding agent's conversation in OpenAI Chat format goes through
 * the three steps before the model call that answers the user's new prompt.
 *
 * 1. Each tool result is capped when it is produced (`capToolResult`): a build log of some 59,000 characters keeps
 *    its head and its tail around a marker.
 * 2. Before the call, `decideContextAction` compares the request with a 16,384-token window (4,096 reserved for
 *    the reply): over 60% of what is left it says "clear", so `clearOldToolResults` clears the oldest results;
 *    still over 85%, it says "compact".
 * 3. `compact` plans the cut, asks a scripted summarizer (no network: it builds a valid checkpoint from the
 *    transcript it is sent) and replaces the older turn with the checkpoint.
 *
 * Then `ensureWithinBudget` applies a character hard limit to what is left, clipping the largest retained tool
 * results. Every step prints the token figures, and the events are listed at the end.
 *
 * Run: `npx node --conditions=@ctxkit/source examples/compaction.ts`
 * (or `npm exec -- node --conditions=@ctxkit/source examples/compaction.ts`).
 */
import {
  approximateCounter,
  available,
  conversationCost,
  estimateTokens,
  reserve,
  toolCatalogCost
} from "@ctxkit/budget"
import {
  capToolResult,
  clearOldToolResults,
  compact,
  type CompactionEvent,
  type ContextAction,
  decideContextAction,
  defaultContextPolicy,
  ensureWithinBudget,
  type SummarizeFn
} from "@ctxkit/compaction"
import type { CappedResult } from "@ctxkit/compaction/CapToolResult"
import type { ClearResult } from "@ctxkit/compaction/ClearOldToolResults"
import type { Compacted } from "@ctxkit/compaction/Compact"
import type { WithinBudget } from "@ctxkit/compaction/EnsureWithinBudget"
import { formats, type OpenAiChatMessage } from "@ctxkit/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { resolve } from "node:path"

/** The model's context window, in tokens. */
export const WINDOW = 16_384
/** The reply's `max_tokens`. */
export const MAX_TOKENS = 4_096
/**
 * The hard limit of instructions + transcript, in characters, after compaction. Set low on purpose so that the
 * last step has something to do; the compaction seed's default is 800,000.
 */
export const HARD_LIMIT_CHARS = 12_000

const format = formats.openaiChat
const counter = approximateCounter
const policy = defaultContextPolicy

/** The tools the agent has: sent with every request, so counted in `used` (never in the hard limit). */
const TOOLS = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file of the workspace.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
    }
  },
  {
    type: "function",
    function: {
      name: "run_command",
      description: "Run a shell command in the workspace and return its output.",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }
    }
  }
]

// ---------------------------------------------------------------------------------------------------------------
// The conversation, generated (deterministic)

/** A TypeScript source file of `lines` lines, about 90 characters each. */
const sourceFile = (path: string, lines: number): string => {
  const name = path.replace(/^.*\//, "").replace(/\.ts$/, "")
  const out = [`// ${path}`, `import { settings } from "./config.ts"`, ""]
  for (let i = 1; out.length < lines; i++) {
    out.push(`export const ${name}Step${i} = (input: string): string => input.trim() + settings.suffix${i % 7}`)
  }
  return out.join("\n")
}

/** `npm run build`: 900 warnings about generated files, then the one error that matters, at the end. */
const buildLog = (): string => {
  const out = ["> app@1.0.0 build", "> tsc -p tsconfig.json", ""]
  for (let i = 1; i <= 900; i++) {
    out.push(`src/generated/model${i}.ts(3,1): warning: unused export 'Model${i}'`)
  }
  out.push("src/loader.ts(14,23): error TS2307: Cannot find module './paths' or its corresponding type declarations.")
  out.push("", "Found 1 error in src/loader.ts:14")
  return out.join("\n")
}

/** Lines of each file the agent reads. */
const LINES = 80

const call = (id: string, name: string, args: Record<string, string>) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) }
})

/** What the example reports about step 1. */
export interface CapStep {
  readonly callId: string
  readonly result: CappedResult
}

/**
 * Builds the conversation as an agent loop would store it: each tool result is capped when it is produced
 * (20% of `available`, and at most `maxToolResultTokens`).
 */
export const buildConversation = (
  room: number
): { readonly messages: ReadonlyArray<OpenAiChatMessage>; readonly caps: ReadonlyArray<CapStep> } => {
  const messages: Array<OpenAiChatMessage> = []
  const caps: Array<CapStep> = []
  const toolResult = (id: string, output: string): void => {
    const result = capToolResult(output, { available: room, maxToolResultTokens: policy.maxToolResultTokens, counter })
    if (result.capped) caps.push({ callId: id, result })
    messages.push({ role: "tool", tool_call_id: id, content: result.text })
  }
  const read = (ids: ReadonlyArray<string>, paths: ReadonlyArray<string>, lines: number, text = ""): void => {
    messages.push({
      role: "assistant",
      content: text === "" ? null : text,
      tool_calls: paths.map((path, k) => call(ids[k] ?? "", "read_file", { path }))
    })
    paths.forEach((path, k) => toolResult(ids[k] ?? "", sourceFile(path, lines)))
  }

  messages.push({
    role: "system",
    content: "You are a coding agent working in a TypeScript repository. Use read_file and run_command; " +
      "quote file paths exactly; keep changes minimal."
  })
  messages.push({
    role: "user",
    content: "npm run build fails. Find out why and fix it. Do not change the public API of src/index.ts."
  })
  messages.push({
    role: "assistant",
    content: null,
    tool_calls: [call("call_build", "run_command", { command: "npm run build" })]
  })
  toolResult("call_build", buildLog())
  read(
    ["call_read_1", "call_read_2"],
    ["src/loader.ts", "src/index.ts"],
    LINES,
    "One error, in src/loader.ts. Reading it."
  )
  read(
    ["call_read_3", "call_read_4", "call_read_5"],
    ["src/config.ts", "src/resolve-paths.ts", "src/cache.ts"],
    LINES,
    "And the modules it depends on."
  )
  messages.push({
    role: "assistant",
    content: "src/loader.ts imports './paths', which was renamed to src/resolve-paths.ts. I changed the import on " +
      "line 14 of src/loader.ts, and the build passes. Next: run the tests."
  })
  messages.push({ role: "user", content: "Good. Which test files cover the loader? Read them." })
  read(["call_read_6", "call_read_7"], ["test/loader.test.ts", "test/resolve-paths.test.ts"], LINES)
  messages.push({
    role: "assistant",
    content: "Both cover the loader: test/loader.test.ts its public API, test/resolve-paths.test.ts the path " +
      "resolution it imports. Next: add a test for the renamed import."
  })
  messages.push({ role: "user", content: "Add that test, then write a short summary of every change for the PR." })
  return { messages, caps }
}

// ---------------------------------------------------------------------------------------------------------------
// The scripted summarizer: a deterministic stand-in for a model

const LABEL =
  /^(USER|ASSISTANT|PREVIOUS SUMMARY|SYSTEM|ATTACHMENT|TOOL CALL (\S+) (\S+)|TOOL RESULT (\S+)(?: \(error\))?): /

interface Item {
  readonly label: string
  readonly tool: string | undefined
  readonly text: string
}

/** The transcript's items: a line that starts with a label opens one; other lines continue the last. */
const transcriptItems = (prompt: string): ReadonlyArray<Item> => {
  const start = prompt.indexOf("<transcript>\n")
  const end = prompt.lastIndexOf("\n</transcript>")
  const items: Array<{ label: string; tool: string | undefined; text: string }> = []
  for (const line of prompt.slice(start + "<transcript>\n".length, end).split("\n")) {
    const match = LABEL.exec(line)
    const last = items[items.length - 1]
    if (match !== null) {
      items.push({
        label: match[1]?.split(" ").slice(0, 2).join(" ") ?? "",
        tool: match[3],
        text: line.slice(match[0].length)
      })
    } else if (last !== undefined) last.text += `\n${line}`
  }
  return items
}

/** "I changed the import." → "Changed the import." */
const impersonal = (sentence: string): string => sentence.replace(/^I (\w)/, (_, first: string) => first.toUpperCase())

const sentences = (text: string): ReadonlyArray<string> => text.split(/(?<=\.)\s+/).map((s) => s.trim())

/**
 * Reads the transcript it is sent and answers with the checkpoint JSON the instructions ask for, in a fenced
 * block as models often do. Its rules stand in for a model's judgement: the first user message is the goal and
 * its "Do not…" sentences the constraints; in assistant texts, "I …" sentences are work done, "Next: …" ones the
 * next steps, and other sentences that name a file are discoveries; the last thing the assistant did is the
 * current state; the files read are the relevant files. Like an honest server, it reports the prompt tokens it read.
 */
export const scriptedSummarizer: SummarizeFn = (request) => {
  const items = transcriptItems(request.prompt)
  const said = (label: string) => items.filter((item) => item.label === label).flatMap((item) => sentences(item.text))
  const assistant = said("ASSISTANT")
  const lastAssistant = [...items].reverse().find((item) => item.label === "ASSISTANT")?.text ?? ""
  const task = items.find((item) => item.label === "USER")?.text ?? "Continue the session."
  const checkpoint = {
    goal: sentences(task).filter((s) => !s.startsWith("Do not")).join(" "),
    instructions: said("USER").filter((s) => s.startsWith("Do not")),
    discoveries: assistant.filter((s) => !s.startsWith("I ") && !s.startsWith("Next:") && /\w\/\w/.test(s)),
    accomplished: assistant.filter((s) => s.startsWith("I ")).map(impersonal),
    currentState: impersonal(sentences(lastAssistant).filter((s) => !s.startsWith("Next:")).at(-1) ?? ""),
    nextSteps: assistant.filter((s) => s.startsWith("Next:")).map((s) => s.slice("Next: ".length)),
    relevantFiles: items
      .filter((item) => item.label === "TOOL CALL" && item.tool === "read_file")
      .map((item) => (JSON.parse(item.text) as { readonly path: string }).path)
  }
  const promptTokens = estimateTokens(request.system, counter).tokens + estimateTokens(request.prompt, counter).tokens
  return Effect.succeed({
    text: "```json\n" + JSON.stringify({ checkpoint }, null, 2) + "\n```",
    finishReason: "stop",
    promptTokens
  })
}

// ---------------------------------------------------------------------------------------------------------------
// The run

/** What the example did, step by step, and the lines it printed. */
export interface CompactionExampleReport {
  readonly window: number
  readonly reserve: number
  readonly available: number
  readonly toolTokens: number
  /** The conversation as stored before the call (results already capped). */
  readonly conversation: ReadonlyArray<OpenAiChatMessage>
  /** Step 1: the results capped when produced. */
  readonly caps: ReadonlyArray<CapStep>
  /** Every decision of the loop, in order. */
  readonly decisions: ReadonlyArray<ContextAction>
  /** Step 2: what clearing did. */
  readonly cleared: ClearResult<OpenAiChatMessage>
  /** Step 3: the compaction. */
  readonly compaction: Compacted<OpenAiChatMessage>
  /** The hard limit. */
  readonly budget: WithinBudget<OpenAiChatMessage>
  /** What is sent. */
  readonly final: ReadonlyArray<OpenAiChatMessage>
  /** Tokens of the request (transcript and tool catalog) after each step. */
  readonly tokens: {
    readonly before: number
    readonly afterClearing: number
    readonly afterCompaction: number
    readonly final: number
  }
  /** Every compaction event, in order. */
  readonly events: ReadonlyArray<CompactionEvent>
  readonly lines: ReadonlyArray<string>
}

const CHECKPOINT_LINES_SHOWN = 16

const number = (n: number): string => n.toLocaleString("en-US")

const decide = (used: number, room: number, clearable?: number): ContextAction => {
  const decision = decideContextAction(
    { used, available: room, ...(clearable === undefined ? {} : { clearable }) },
    policy
  )
  // The policy is the default one and the figures are measured: an invalid policy cannot happen here.
  if (Result.isFailure(decision)) throw new Error(decision.failure.message)
  return decision.success
}

/**
 * Runs the example and prints each line through `print` (default: standard output). Returns what it did and the
 * lines it printed.
 */
export const main = (print: (line: string) => void = (line) => console.log(line)): CompactionExampleReport => {
  const lines: Array<string> = []
  const out = (line = ""): void => {
    lines.push(line)
    print(line)
  }
  const reserved = reserve(WINDOW, MAX_TOKENS)
  const room = available(WINDOW, MAX_TOKENS)
  const toolTokens = toolCatalogCost(TOOLS, counter).tokens
  // What the next request costs: the transcript plus the tool catalog, sent every time.
  const used = (messages: ReadonlyArray<OpenAiChatMessage>): number =>
    conversationCost(messages, { format, counter }).total + toolTokens

  out("@ctxkit/compaction — cap, clear, compact, then the hard limit (offline)")
  out()
  out(
    `Window ${number(WINDOW)} − reply reserve ${number(reserved)} = ${number(room)} tokens available for the ` +
      `request; clearAt ${policy.clearAt} = ${number(policy.clearAt * room)}, compactAt ${policy.compactAt} = ` +
      `${number(policy.compactAt * room)}.`
  )

  // Step 1: cap each result when it is produced.
  const { caps, messages: conversation } = buildConversation(room)
  out()
  out(`Step 1 — cap each tool result when it is produced (limit: 20% of ${number(room)} tokens)`)
  for (const { callId, result } of caps) {
    out(
      `  ${callId}: ${number(result.tokensBefore ?? 0)} → ${number(result.tokensAfter ?? 0)} tokens (limit ` +
        `${number(result.limitTokens ?? 0)}); ${number(result.omittedChars)} characters ` +
        `(${number(result.omittedLines)} lines) left out; kept ${number(result.keptHead)} from the start and ` +
        `${number(result.keptTail)} from the end`
    )
    const marker = result.text.split("\n").find((line) => line.startsWith("[…"))
    if (marker !== undefined) out(`  marker: ${marker}`)
  }

  // Steps 2 and 3: the loop the harness runs before the model call.
  const before = used(conversation)
  out()
  out(
    `Before the call: ${conversation.length} messages, ${number(before)} tokens (${number(toolTokens)} of them the ` +
      `tool catalog).`
  )
  const decisions: Array<ContextAction> = []
  let history = conversation
  let cleared: ClearResult<OpenAiChatMessage> | undefined
  let compaction: Compacted<OpenAiChatMessage> | undefined
  // The previous model call's request, as the server reported it (offline: exactly what was estimated).
  const previous = used(conversation.slice(0, -2))
  let clearable: number | undefined
  let afterClearing = before
  for (let round = 0; round < 3 && compaction === undefined; round++) {
    const action = decide(used(history), room, clearable)
    decisions.push(action)
    out()
    out(`decideContextAction → ${action._tag}: ${action.reason}`)
    if (action._tag === "Nothing") break
    if (action._tag === "Clear" || action.clearFirst) {
      out(`Step 2 — clear old tool results (the ${policy.keepToolResults} most recent stay whole)`)
      cleared = clearOldToolResults(history, { keepToolResults: policy.keepToolResults, format, counter })
      const next = used(cleared.messages)
      afterClearing = next
      out(
        `  cleared ${cleared.count} (${cleared.cleared.map((c) => c.callId).join(", ")}): ${number(used(history))} → ` +
          `${number(next)} tokens`
      )
      history = cleared.messages
      clearable = 0
      if (action._tag === "Clear") continue
    }
    out("Step 3 — compact: the older turns become one checkpoint")
    const outcome = Effect.runSync(compact(history, {
      reason: "auto",
      summarize: scriptedSummarizer,
      format,
      keepTurns: 2,
      partialSummaries: "reject",
      // The last request that did not look truncated: the truncated-request guard compares this one with it.
      lastGoodSample: { tokens: previous, estimate: previous }
    }))
    if (outcome._tag === "Skipped") throw new Error(`compaction skipped: ${outcome.detail}`)
    compaction = outcome
    const { plan } = outcome
    out(
      `  cut at message ${plan.cut}: ${outcome.replaced.length} messages summarized, ${plan.retained.length} ` +
        `retained before the checkpoint (the system prompt), ${plan.kept.length} kept word for word`
    )
    out(`  ${number(used(history))} → ${number(used(outcome.messages))} tokens; the checkpoint begins:`)
    const checkpointLines = format.ownText(outcome.checkpoint).split("\n")
    for (const line of checkpointLines.slice(0, CHECKPOINT_LINES_SHOWN)) out(`  | ${line}`)
    out(`  | … ${checkpointLines.length - CHECKPOINT_LINES_SHOWN} more lines`)
    history = outcome.messages
  }
  if (cleared === undefined || compaction === undefined) {
    throw new Error("the example's conversation is built to need clearing and compaction")
  }
  const afterCompaction = used(history)

  // The hard limit: instructions + transcript, in characters, never the tool catalog.
  out()
  out(`The hard limit — ensureWithinBudget, ${number(HARD_LIMIT_CHARS)} characters of instructions + transcript`)
  const budget = Effect.runSync(ensureWithinBudget(history, {
    maxContextChars: HARD_LIMIT_CHARS,
    format,
    compact: (messages) => compact(messages, { reason: "budget", summarize: scriptedSummarizer, format })
  }))
  const clipped = budget.messages.flatMap((m, i) =>
    m === history[i] ? [] : [format.toolResults(m)[0]?.callId ?? `#${i}`]
  )
  out(
    `  ${budget.reduced} messages clipped (${clipped.join(", ")}), last chance ${
      budget.lastChance ? "used" : "not needed"
    }; ` +
      `now ${number(budget.chars)} characters; ${number(afterCompaction)} → ${number(used(budget.messages))} tokens`
  )

  const events = [...compaction.events, ...budget.events]
  out()
  out(`Events: ${events.map((event) => event.type).join(", ")}`)
  const final = budget.messages
  out(
    `Sent: ${final.length} messages (${final.map((m) => format.isSummary(m) ? "checkpoint" : m.role).join(", ")}), ` +
      `${number(used(final))} of ${number(room)} available tokens.`
  )
  return {
    window: WINDOW,
    reserve: reserved,
    available: room,
    toolTokens,
    conversation,
    caps,
    decisions,
    cleared,
    compaction,
    budget,
    final,
    tokens: { before, afterClearing, afterCompaction, final: used(final) },
    events,
    lines
  }
}

// `import.meta.main` is Node ≥ 24.2; the path comparison covers older Nodes that run TypeScript (22.18+).
if (import.meta.main || resolve(process.argv[1] ?? "") === import.meta.filename) main()
