/**
 * L18 on real traffic: every normalized corpus conversation, rendered into each wire format with the testing
 * package's renderer, is read by `formats.auto` exactly as by that format (groups, diagnostics, texts, flags,
 * costs), and `detectFormat` names the format. The raw Claude Code sessions are covered in
 * `real-traffic-formats.test.ts`.
 */
import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { fidelityViolations, formatNames, formatOf, render, type Scenario } from "@ctxkit/testing"
import type { ScenarioResult, ScenarioTurn } from "@ctxkit/testing/Scenario"
import { assert, describe, it } from "@effect/vitest"
import { corpusDir, loadCorpus } from "./corpus.ts"

/** A canonical conversation as a scenario: one turn per message, consecutive tool messages as one results turn. */
const scenarioOf = (messages: ReadonlyArray<Message>): Scenario => {
  const turns: Array<ScenarioTurn> = []
  const textOf = (content: Message["content"]): string =>
    typeof content === "string"
      ? content
      : content.map((part) => part.type === "text" && typeof part["text"] === "string" ? part["text"] : "").join("\n")
  let pending: Array<ScenarioResult> = []
  const flush = () => {
    if (pending.length > 0) turns.push({ kind: "results", results: pending })
    pending = []
  }
  for (const m of messages) {
    if (m.role === "tool") {
      pending.push({
        callId: m.toolCallId,
        name: m.toolName ?? "tool",
        text: textOf(m.content),
        isError: m.isError === true
      })
      continue
    }
    flush()
    if (m.role === "system") {
      const source = m.source === "memory" || m.source === "lorebook" ? m.source : "system"
      turns.push({ kind: "system", text: textOf(m.content), source, pinned: m.pinned === true })
    } else if (m.role === "user") {
      turns.push({ kind: "user", text: textOf(m.content), pinned: m.pinned === true, summary: m.summary === true })
    } else {
      turns.push({ kind: "assistant", text: textOf(m.content), reasoning: undefined, calls: m.toolCalls ?? [] })
    }
  }
  flush()
  return { turns }
}

const corpus = loadCorpus()
const costs = (messages: ReadonlyArray<unknown>, format: MessageFormat<unknown>) =>
  conversationCost(messages, { format, counter: approximateCounter }).costs

describe.skipIf(corpusDir === undefined)(
  "format fidelity on the corpus (../shared/corpus/normalized), rendered into every wire format",
  () => {
    for (const entry of corpus) {
      it(`${entry.source}/${entry.id}: auto agrees with the true format`, () => {
        const scenario = scenarioOf(entry.messages as ReadonlyArray<Message>)
        for (const name of formatNames) {
          const { messages } = render(name, scenario)
          assert.deepStrictEqual(fidelityViolations(messages, formatOf(name)), [], name)
          assert.deepStrictEqual(costs(messages, formats.auto), costs(messages, formatOf(name)), name)
        }
      })
    }
  }
)
