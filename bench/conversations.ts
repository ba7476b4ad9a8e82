/**
 * Deterministic generator of canonical conversations for benchmarks (seeded PRNG, no `Math.random`).
 *
 * Shape of a generated conversation, modelled on Claude Code transcripts:
 * - one system prompt, then user turns, each followed by an agentic run of 1–12 assistant steps;
 * - an assistant step issues 0–4 parallel tool calls (the last step of a run issues none);
 * - most results follow their call directly; about 1 in 10 arrives a few messages later (2–8 messages
 *   after the issuing message), past other messages;
 * - content lengths are heavy-tailed (log-normal per role, clamped): over all messages the median is
 *   about 250 characters, p90 about 3–4k and p99 about 25k;
 * - no orphans and no dangling calls: every deferred result is flushed before the conversation ends.
 *
 * Content strings are slices of one shared pseudo-text of {@link TEXT_LENGTH} characters, so generating
 * 100k messages is fast and the strings share memory. Ids are flat strings, like the ones `JSON.parse` makes.
 */
import type { Message, ToolCall } from "@ctxkit/core/Message"

/** The sizes every size-dependent benchmark uses. */
export const SIZES: ReadonlyArray<number> = [1_000, 10_000, 100_000]

/** A small, fast, seeded PRNG (mulberry32): uniform in [0, 1). */
export const prng = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A standard normal draw (Box–Muller) from a uniform PRNG. */
const normal = (random: () => number): number => {
  const u = 1 - random()
  const v = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** A log-normal length with the given median and shape, clamped to [min, max]. */
const logNormal = (random: () => number, medianChars: number, sigma: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, Math.round(medianChars * Math.exp(sigma * normal(random)))))

/** Length of the shared pseudo-text; the longest content is a slice of it. */
export const TEXT_LENGTH = 160_000

const MAX_CONTENT = 120_000

const WORDS = (
  "the a of to and in is it that for on with as this file test function const return import export from type " +
  "interface string number error message tool call result context budget token group effect schema layer " +
  "src/index.ts packages/core npm run build fix failing passes line column => { } ( ) ; // café naïve → ✓ 日本語"
).split(" ")

const makeText = (length: number, seed: number): string => {
  const random = prng(seed)
  const parts: Array<string> = []
  let total = 0
  while (total < length) {
    const r = random()
    const word = r < 0.04 ? "\n" : r < 0.05 ? "\n\n" : WORDS[Math.floor(random() * WORDS.length)] ?? "x"
    parts.push(word)
    total += word.length + 1
  }
  // A flat (sequential) string: slices of it are cheap V8 sliced strings.
  return parts.join(" ").slice(0, length)
}

const TEXT = makeText(TEXT_LENGTH, 0x5eed)

const slice = (random: () => number, length: number): string => {
  const len = Math.min(length, TEXT_LENGTH)
  const start = Math.floor(random() * (TEXT_LENGTH - len + 1))
  return TEXT.slice(start, start + len)
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** An Anthropic-style id (`toolu_01` + 22 base62 characters) as a flat string. */
const makeId = (random: () => number): string => {
  const codes = [116, 111, 111, 108, 117, 95, 48, 49] // "toolu_01"
  for (let i = 0; i < 22; i++) codes.push(BASE62.charCodeAt(Math.floor(random() * 62)))
  return String.fromCharCode(...codes)
}

const TOOLS: ReadonlyArray<{ readonly name: string; readonly key: string }> = [
  { name: "Read", key: "file_path" },
  { name: "Bash", key: "command" },
  { name: "Edit", key: "file_path" },
  { name: "Grep", key: "pattern" },
  { name: "Glob", key: "pattern" },
  { name: "Write", key: "file_path" },
  { name: "TodoWrite", key: "todos" },
  { name: "Task", key: "prompt" },
  { name: "WebFetch", key: "url" }
]

/** Number of parallel calls of a non-final assistant step: 1 (70%), 2 (15%), 3 (9%), 4 (6%). */
const parallelCalls = (random: () => number): number => {
  const r = random()
  return r < 0.7 ? 1 : r < 0.85 ? 2 : r < 0.94 ? 3 : 4
}

interface Pending {
  readonly due: number
  readonly message: Message
}

/**
 * A canonical conversation of exactly `size` messages, the same for the same `(size, seed)`.
 *
 * @example
 * ```ts
 * const messages = generateConversation(10_000)
 * ```
 */
export const generateConversation = (size: number, seed = 1): ReadonlyArray<Message> => {
  const random = prng(seed)
  const out: Array<Message> = []
  const pending: Array<Pending> = []
  const room = (): number => size - out.length

  const flushDue = (all: boolean): void => {
    if (pending.length === 0) return
    pending.sort((a, b) => a.due - b.due)
    while (pending.length > 0 && room() > 0) {
      const next = pending[0]
      if (next === undefined || (!all && next.due > out.length)) break
      pending.shift()
      out.push(next.message)
    }
  }

  /** Pushes a non-result message, flushing due results first and every result when space runs out. */
  const push = (message: Message): void => {
    flushDue(false)
    if (room() <= pending.length) flushDue(true)
    if (room() > pending.length) out.push(message)
  }

  if (size > 0) out.push({ role: "system", content: slice(random, 2_000 + Math.floor(random() * 6_000)) })

  while (out.length < size) {
    push({ role: "user", content: slice(random, logNormal(random, 120, 1.7, 1, MAX_CONTENT)) })
    const steps = 1 + Math.floor(random() * 12)
    for (let step = 0; step < steps && room() > pending.length; step++) {
      const last = step === steps - 1
      const content = random() < 0.45 ? "" : slice(random, logNormal(random, 260, 1.3, 8, 20_000))
      // Room for the assistant message, its calls' results and the results still pending.
      const wanted = last ? 0 : parallelCalls(random)
      const calls = Math.max(0, Math.min(wanted, room() - 1 - pending.length))
      if (calls === 0) {
        push({ role: "assistant", content })
        continue
      }
      const toolCalls: Array<ToolCall> = []
      const results: Array<Message> = []
      for (let c = 0; c < calls; c++) {
        const tool = TOOLS[Math.floor(random() * TOOLS.length)] ?? { name: "Read", key: "file_path" }
        const id = makeId(random)
        toolCalls.push({
          id,
          name: tool.name,
          arguments: `{"${tool.key}":"${slice(random, logNormal(random, 40, 1.0, 3, 4_000))}"}`
        })
        results.push({
          role: "tool",
          toolCallId: id,
          toolName: tool.name,
          content: slice(random, logNormal(random, 600, 1.85, 0, MAX_CONTENT))
        })
      }
      push({ role: "assistant", content, toolCalls })
      const issuedAt = out.length - 1
      for (const result of results) {
        if (random() < 0.1) pending.push({ due: issuedAt + 2 + Math.floor(random() * 7), message: result })
        else if (room() > pending.length) out.push(result)
        else pending.push({ due: issuedAt, message: result })
      }
      if (room() <= pending.length) flushDue(true)
    }
  }
  return out
}

/** Facts about a generated conversation, printed by the benchmarks so a reader knows what was measured. */
export interface ConversationStats {
  readonly messages: number
  readonly calls: number
  readonly results: number
  /** Results that are not in the block of results right after their issuing message. */
  readonly farResults: number
  readonly maxParallel: number
  readonly contentChars: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

const contentLength = (message: Message): number =>
  typeof message.content === "string" ? message.content.length : message.content.length

/** Counts calls, results, far results and the content-length percentiles of `messages`. */
export const conversationStats = (messages: ReadonlyArray<Message>): ConversationStats => {
  const lengths: Array<number> = []
  const issuedAt = new Map<string, number>()
  let calls = 0
  let results = 0
  let farResults = 0
  let maxParallel = 0
  let contentChars = 0
  let runStart = -1 // index of the last assistant message with calls, while only its results follow it
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    if (message === undefined) continue
    const length = contentLength(message)
    lengths.push(length)
    contentChars += length
    if (message.role === "assistant" && message.toolCalls !== undefined && message.toolCalls.length > 0) {
      calls += message.toolCalls.length
      maxParallel = Math.max(maxParallel, message.toolCalls.length)
      for (const call of message.toolCalls) issuedAt.set(call.id, i)
      runStart = i
    } else if (message.role === "tool") {
      results++
      if (issuedAt.get(message.toolCallId) !== runStart) farResults++
    } else {
      runStart = -1
    }
  }
  lengths.sort((a, b) => a - b)
  const at = (q: number): number => lengths[Math.min(lengths.length - 1, Math.floor(q * lengths.length))] ?? 0
  return {
    messages: messages.length,
    calls,
    results,
    farResults,
    maxParallel,
    contentChars,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: lengths[lengths.length - 1] ?? 0
  }
}

/** One line describing a conversation's statistics. */
export const describeStats = (s: ConversationStats): string =>
  `${s.messages.toLocaleString("en-US")} messages: ${s.calls} calls (max ${s.maxParallel} parallel), ` +
  `${s.results} results (${s.farResults} far from their call); content p50 ${s.p50}, p90 ${s.p90}, ` +
  `p99 ${s.p99}, max ${s.max} chars (${(s.contentChars / 1e6).toFixed(1)}M total, shared)`
