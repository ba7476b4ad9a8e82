/**
 * The corpus replay of the detection benchmark and tests, shared: a server that counts with o200k and a chat
 * template per message, canonical messages rendered into OpenAI Chat and Anthropic, and adversarial honest
 * conversations (low-information and high-density tool results).
 */
import { o200kCounter } from "@ctxkit/budget/o200k"
import type { Message, Role } from "@ctxkit/core"

/** The simulated server's chat-template tokens per message (not the 4 the harness adds). */
export const TEMPLATE: Readonly<Record<Role, number>> = { system: 4, user: 5, assistant: 6, tool: 3 }
/** {@link TEMPLATE} as a function. */
export const template = (role: Role): number => TEMPLATE[role]
// Each text is counted once by o200k, however many replays count it again.
const counted = new Map<string, number>()
/** The server's tokenizer, o200k, memoized by text. */
export const serverTokenizer = (text: string): number => {
  const known = counted.get(text)
  if (known !== undefined) return known
  const n = o200kCounter.count(text)
  counted.set(text, n)
  return n
}
/** The exact counter of the harness: o200k, through the same memo. */
export const exactCounter = { ...o200kCounter, count: serverTokenizer }

const textOf = (content: Message["content"]): string =>
  typeof content === "string"
    ? content
    : content.map((part) => (part.type === "text" ? part.text : "")).join("\n")

const parseArguments = (json: string): unknown => {
  try {
    return JSON.parse(json)
  } catch {
    return { raw: json }
  }
}

/** Canonical messages as OpenAI Chat messages. */
export const toOpenAiChat = (messages: ReadonlyArray<Message>): ReadonlyArray<unknown> =>
  messages.map((m) => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: textOf(m.content) }
      case "assistant": {
        const calls = m.toolCalls ?? []
        return calls.length === 0
          ? { role: "assistant", content: textOf(m.content) }
          : {
            role: "assistant",
            content: textOf(m.content) || null,
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments }
            }))
          }
      }
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: textOf(m.content) }
    }
  })

/** Canonical messages as Anthropic messages (a turn's tool results in one user message). */
export const toAnthropic = (messages: ReadonlyArray<Message>): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  let results: Array<unknown> = []
  const flush = (): void => {
    if (results.length > 0) out.push({ role: "user", content: results })
    results = []
  }
  for (const m of messages) {
    if (m.role === "tool") {
      results.push({ type: "tool_result", tool_use_id: m.toolCallId, content: textOf(m.content) })
      continue
    }
    flush()
    const text = textOf(m.content)
    if (m.role === "assistant") {
      const blocks: Array<unknown> = text === "" ? [] : [{ type: "text", text }]
      for (const c of m.toolCalls ?? []) {
        blocks.push({ type: "tool_use", id: c.id, name: c.name, input: parseArguments(c.arguments) })
      }
      out.push({ role: "assistant", content: blocks.length === 0 ? [{ type: "text", text: "" }] : blocks })
    } else {
      out.push({ role: m.role, content: [{ type: "text", text }] })
    }
  }
  flush()
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Adversarial honest conversations: low-information and high-density tool results

const base64Of = (n: number): string =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 7_919 + 13) % 256)).toString("base64")

/** Honest tool results the characters / 4 estimate gets badly wrong, by name. */
export const ADVERSARIAL: Readonly<Record<string, (turn: number) => string>> = {
  whitespace: (turn) => " ".repeat(2_000 + 1_500 * (turn % 5)),
  "blank lines": (turn) => "\n".repeat(1_000 + 700 * (turn % 4)),
  "repeated lines": (turn) => "WARN retrying connection to 10.0.0.7:5432\n".repeat(40 + 25 * (turn % 3)),
  base64: (turn) => base64Of(1_500 + 600 * (turn % 4)),
  cjk: (turn) => "上下文工程是为语言模型准备输入的艺术，窗口有限。".repeat(30 + 10 * (turn % 3)),
  "minified JSON": (turn) =>
    JSON.stringify(Array.from({ length: 30 + 10 * (turn % 4) }, (_, i) => ({ id: i, ok: i % 2 === 0, v: [i, i * 2] }))),
  mixed: (turn) => [" ".repeat(3_000), base64Of(900), "\n".repeat(400), "ok"][turn % 4] ?? ""
}

/** A canonical conversation: a system prompt, a task, then `turns` tool calls whose results are `result(turn)`. */
export const adversarialConversation = (result: (turn: number) => string, turns = 24): ReadonlyArray<Message> => {
  const messages: Array<Message> = [
    { role: "system", content: "You are a coding agent. Use the tools to answer." },
    { role: "user", content: "Find which log line explains the outage and quote it." }
  ]
  for (let t = 0; t < turns; t++) {
    const id = `call_${t}`
    messages.push({
      role: "assistant",
      content: t % 3 === 0 ? "Let me look at the next file." : "",
      toolCalls: [{ id, name: "read_file", arguments: JSON.stringify({ path: `logs/part-${t}.log` }) }]
    })
    messages.push({ role: "tool", toolCallId: id, content: result(t) })
  }
  messages.push({ role: "assistant", content: "Done." })
  return messages
}
