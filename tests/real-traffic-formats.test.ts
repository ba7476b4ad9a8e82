/**
 * Issue 11, defects 1 and 2, on the default path (`formats.auto`): Anthropic API response objects (how Claude
 * Code stores an assistant turn) and AI SDK messages whose only parts are reasoning and text.
 */
import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { detectFormat, formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import { shiftContext } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import { claudeCodeDir, loadClaudeCodeSessions } from "./claudeCode.ts"

const auto = formats.auto
const anthropic = formats.anthropic as MessageFormat<unknown>
const aiSdk = formats.aiSdk as MessageFormat<unknown>

describe("Anthropic API response objects read by formats.auto (defect 1)", () => {
  const messages = [
    { role: "user", content: "Run the test suite and tell me what fails." },
    {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-6",
      content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 12, output_tokens: 30 }
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "2 failed" }] },
    { role: "assistant", content: "Two fail." },
    { role: "user", content: "Fix them." }
  ]

  it("the minimal case: at budget 20 the tool_result never outlives its tool_use (main kept messages 2–4)", () => {
    const result = shiftContext(messages, approximateCounter, 20)
    const kept = result.kept.map((m) => messages.indexOf(m))
    assert.isFalse(kept.includes(2) && !kept.includes(1), `kept ${JSON.stringify(kept)}`)
    assert.deepStrictEqual(kept, [3, 4])
    assert.isTrue(result.fits)
  })

  it("the call and its result form one group, with no orphan, as formats.anthropic reads them", () => {
    const byAuto = toolGroups(messages, auto)
    assert.deepStrictEqual(byAuto.groups, [[0], [1, 2], [3], [4]])
    assert.deepStrictEqual(byAuto.diagnostics, [])
    assert.deepStrictEqual(byAuto.groups, toolGroups(messages, anthropic).groups)
    assert.strictEqual(detectFormat(messages).name, "anthropic")
  })

  it("a response object with only text is Anthropic by its fields; an OpenAI Responses message item stays Responses", () => {
    const textOnly = {
      id: "msg_2",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Done." }],
      stop_reason: "end_turn"
    }
    const responsesItem = {
      id: "msg_3",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Done." }]
    }
    assert.strictEqual(detectFormat([textOnly]).name, "anthropic")
    assert.strictEqual(detectFormat([responsesItem]).name, "openaiResponses")
  })
})

describe("AI SDK reasoning parts read by formats.auto (defect 2)", () => {
  const reasoning = "Let me weigh the options carefully before answering. ".repeat(84)
  const messages = [
    { role: "user", content: "Which queue should we use?" },
    {
      role: "assistant",
      content: [{ type: "reasoning", text: reasoning }, {
        type: "text",
        text: "Use the durable queue: it survives restarts."
      }]
    },
    { role: "user", content: "Write it down." }
  ]
  const costOf = (format: MessageFormat<unknown>) =>
    conversationCost([messages[1]], { format, counter: approximateCounter, perMessageOverhead: 0 }).total

  it("the reasoning is counted: auto agrees with formats.aiSdk (main: 11 tokens against 1,125)", () => {
    assert.strictEqual(detectFormat(messages).name, "aiSdk")
    assert.isAbove(costOf(aiSdk), 1_000)
    assert.strictEqual(costOf(auto), costOf(aiSdk))
  })

  it("fits is never true over budget by the true format's count (L5 on the default path; main: fits with 1,148)", () => {
    const result = shiftContext(messages, approximateCounter, 500)
    const trueTokens = conversationCost(result.kept, { format: aiSdk, counter: approximateCounter }).total
    assert.isTrue(!result.fits || trueTokens <= 500, `fits with ${trueTokens} tokens`)
    assert.strictEqual(result.tokens, trueTokens)
    assert.deepStrictEqual(result.kept, [messages[2]])
  })
})

describe.skipIf(claudeCodeDir === undefined)(
  "raw Claude Code sessions (../shared/corpus/raw/claude-code), stored as Anthropic API objects",
  () => {
    for (const session of loadClaudeCodeSessions()) {
      it(`${session.name}: detectFormat says anthropic and auto reads it exactly as formats.anthropic`, () => {
        const { messages } = session
        assert.strictEqual(detectFormat(messages).name, "anthropic")
        const byAuto = toolGroups(messages, auto)
        const byAnthropic = toolGroups(messages, anthropic)
        assert.deepStrictEqual(byAuto.groups, byAnthropic.groups)
        assert.deepStrictEqual(byAuto.diagnostics.map((d) => d._tag), byAnthropic.diagnostics.map((d) => d._tag))
        assert.strictEqual(byAuto.diagnostics.filter((d) => d._tag === "OrphanResult").length, 0)
        for (const m of messages) assert.strictEqual(auto.text(m), anthropic.text(m))
      })
    }
  }
)
