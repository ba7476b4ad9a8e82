import { approximateCounter, available, conversationCost, reserve } from "@ctxkit/budget"
import { formats, toolGroups } from "@ctxkit/core"
import { strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import { main, MAX_TOKENS, WINDOW } from "../examples/demo.ts"

describe("the strategies example (examples/demo.ts)", () => {
  const printed: Array<string> = []
  const report = main((line) => printed.push(line))

  it("prints what it returns, and ends with a one-line explanation", () => {
    assert.deepStrictEqual(printed, [...report.lines])
    assert.isTrue(printed.length > 20)
    assert.match(printed[printed.length - 1] ?? "", /^What you just saw: /)
  })

  it("fits into a 4,096-token window with the reply reserved", () => {
    assert.strictEqual(report.window, WINDOW)
    assert.strictEqual(report.reserve, reserve(WINDOW, MAX_TOKENS))
    assert.strictEqual(report.budget, available(WINDOW, MAX_TOKENS))
    assert.strictEqual(report.budget, WINDOW - report.reserve)
  })

  it("builds the eight-file task from this repository: parallel read_file calls answered by the real files", () => {
    const { files, messages } = report.conversation
    assert.strictEqual(files.length, 8)
    const calls = messages.flatMap((m) => m.role === "assistant" ? m.toolCalls ?? [] : [])
    const results = messages.filter((m) => m.role === "tool")
    assert.strictEqual(calls.length, 8)
    assert.strictEqual(results.length, 8)
    assert.isTrue(messages.some((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 1))
    assert.deepStrictEqual(toolGroups(messages, formats.canonical).diagnostics, [])
    for (const result of results) assert.isTrue(typeof result.content === "string" && result.content.length > 0)
    const total = conversationCost(messages, { format: formats.canonical, counter: approximateCounter }).total
    assert.isTrue(total > report.budget, "the conversation must need fitting")
  })

  it("runs every built-in strategy, and prints each run", () => {
    assert.deepStrictEqual(
      [...new Set(report.runs.map((run) => run.strategy))].sort(),
      Object.keys(strategies).sort()
    )
    for (const run of report.runs) {
      assert.isTrue(printed.some((line) => line.startsWith(`== ${run.label}: `)), run.label)
    }
    assert.isTrue(report.runs.some((run) => run.result.truncated.length > 0), "one run compresses")
    assert.isTrue(report.runs.some((run) => run.result.inserted.length > 0), "summarize inserts a summary")
    assert.isTrue(report.runs.some((run) => run.result.excluded.some((e) => e.reason === "manual")))
  })

  it("fits every run within the budget and always keeps the current request and the system prompt", () => {
    const system = report.conversation.messages[0]
    for (const run of report.runs) {
      assert.isTrue(run.result.fits, run.label)
      assert.isTrue(run.result.tokens <= report.budget, run.label)
      const recount = conversationCost(run.result.kept, { format: formats.canonical, counter: approximateCounter })
      assert.isTrue(recount.total <= report.budget, run.label)
      assert.isTrue(run.keptCurrentRequest, run.label)
      assert.isTrue(run.result.kept.includes(report.conversation.currentRequest), run.label)
      assert.isTrue(system !== undefined && run.result.kept.includes(system), run.label)
      assert.deepStrictEqual(toolGroups(run.result.kept, formats.canonical).diagnostics, [], run.label)
    }
  })
})
