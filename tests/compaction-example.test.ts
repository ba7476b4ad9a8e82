import { BUDGET_TRUNCATION_MARKER, CLEARED_NOTE, CompactionEvent, defaultContextPolicy } from "@ctxkit/compaction"
import { formats, type OpenAiChatMessage, toolGroups } from "@ctxkit/core"
import { checkpointHeader } from "@ctxkit/core/InsertedText"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { HARD_LIMIT_CHARS, main, MAX_TOKENS, WINDOW } from "../examples/compaction.ts"

const format = formats.openaiChat
const textOf = (message: OpenAiChatMessage | undefined): string => message === undefined ? "" : format.ownText(message)

describe("the compaction example (examples/compaction.ts)", () => {
  const printed: Array<string> = []
  const report = main((line) => printed.push(line))
  const { budget, cleared, compaction, conversation, final } = report

  it("prints what it returns, step by step", () => {
    assert.deepStrictEqual(printed, [...report.lines])
    for (
      const heading of ["Step 1 — cap", "Step 2 — clear", "Step 3 — compact", "The hard limit — ensureWithinBudget"]
    ) {
      assert.isTrue(printed.some((line) => line.startsWith(heading)), heading)
    }
    assert.isTrue(printed.includes("  | ## Goal"))
    assert.strictEqual(
      printed.find((line) => line.startsWith("Events: ")),
      "Events: compaction_started, compaction_completed, context_reduced"
    )
  })

  it("measures against available for a 16k window with the reply reserved", () => {
    assert.strictEqual(report.window, 16_384)
    assert.strictEqual(report.reserve, MAX_TOKENS)
    assert.strictEqual(report.available, WINDOW - MAX_TOKENS)
    assert.isTrue(report.tokens.before > report.available, "the conversation must not fit as it is")
  })

  it("caps the build log when it is produced: head and tail kept, within 20% of available", () => {
    assert.strictEqual(report.caps.length, 1)
    const [cap] = report.caps
    assert.strictEqual(cap?.callId, "call_build")
    const limit = Math.floor(0.2 * report.available)
    assert.strictEqual(cap?.result.limitTokens, limit)
    assert.isTrue((cap?.result.tokensBefore ?? 0) > limit)
    assert.isTrue((cap?.result.tokensAfter ?? Infinity) <= limit)
    assert.isTrue(cap?.result.text.startsWith("> app@1.0.0 build\n"))
    assert.isTrue(cap?.result.text.endsWith("Found 1 error in src/loader.ts:14"))
    assert.match(
      cap?.result.text ?? "",
      /\[… [\d,]+ characters \([\d,]+ lines\) left out: tool result capped at [\d,]+ tokens …\]/
    )
  })

  it("runs the decision loop: clear first, then compact", () => {
    assert.deepStrictEqual(report.decisions.map((d) => d._tag), ["Clear", "Compact"])
    const [first, second] = report.decisions
    assert.isTrue((first?.used ?? 0) > (first?.clearAtTokens ?? Infinity))
    assert.strictEqual(second?._tag === "Compact" && second.clearFirst, false)
    assert.isTrue((second?.used ?? 0) > (second?.compactAtTokens ?? Infinity))
    assert.strictEqual(first?.clearAtTokens, 7_372.8) // 0.6 × 12,288
    assert.strictEqual(second?.compactAtTokens, 10_444.8) // 0.85 × 12,288
  })

  it("clears every result but the six most recent, calls kept", () => {
    assert.deepStrictEqual(cleared.cleared.map((c) => c.callId), ["call_build", "call_read_1"])
    const results = cleared.messages.filter((m) => m.role === "tool")
    assert.strictEqual(results.length, 8)
    assert.deepStrictEqual(results.map((m) => m.content === CLEARED_NOTE), [
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false
    ])
    assert.strictEqual(cleared.messages.length, conversation.length)
    assert.isTrue(report.tokens.afterClearing < report.tokens.before)
  })

  it("compacts the first turn into a checkpoint, in OpenAI Chat shape, keeping the last two turns", () => {
    assert.strictEqual(compaction._tag, "Compacted")
    assert.isTrue(compaction.parsed.structured)
    assert.strictEqual(compaction.attempt, "full")
    assert.isFalse(compaction.partial)
    const checkpoint = compaction.checkpoint
    assert.isTrue(format.isSummary(checkpoint))
    assert.strictEqual(checkpoint.role, "user")
    assert.isTrue(textOf(checkpoint).startsWith(`${checkpointHeader(compaction.replaced.length)}\n\n## Goal\n`))
    assert.strictEqual(compaction.parsed.checkpoint?.goal, "npm run build fails. Find out why and fix it.")
    assert.deepStrictEqual(compaction.parsed.checkpoint?.instructions, [
      "Do not change the public API of src/index.ts."
    ])
    assert.deepStrictEqual(compaction.parsed.checkpoint?.nextSteps, ["run the tests."])
    assert.deepStrictEqual(compaction.plan.retained, [0])
    // The kept part is the two last turns, word for word: the same objects.
    const lastTurn = cleared.messages.findIndex((m) =>
      m.role === "user" && m.content === "Good. Which test files cover the loader? Read them."
    )
    assert.isTrue(lastTurn > 2)
    assert.strictEqual(compaction.plan.cut, lastTurn)
    assert.deepStrictEqual(compaction.messages.slice(2), cleared.messages.slice(lastTurn))
    for (const [i, m] of compaction.plan.kept.entries()) assert.strictEqual(compaction.messages[i + 2], m)
    assert.isTrue(compaction.after < compaction.before)
  })

  it("clips the largest retained results to the hard limit, with the marker", () => {
    assert.strictEqual(budget.lastChance, false)
    assert.strictEqual(budget.reduced, 2)
    assert.isTrue(budget.chars <= HARD_LIMIT_CHARS)
    const clipped = budget.messages.filter((m, i) => m !== compaction.messages[i])
    assert.deepStrictEqual(clipped.map((m) => m.tool_call_id), ["call_read_6", "call_read_7"])
    for (const m of clipped) assert.isTrue(textOf(m).endsWith(`\n${BUDGET_TRUNCATION_MARKER}`))
  })

  it("sends the system prompt, the checkpoint and the kept turns; every call still has its result", () => {
    assert.strictEqual(final[0], conversation[0])
    assert.strictEqual(final[0]?.role, "system")
    assert.isTrue(format.isSummary(final[1] as OpenAiChatMessage))
    assert.strictEqual(final.filter((m) => format.isSummary(m)).length, 1)
    assert.strictEqual(final[final.length - 1], conversation[conversation.length - 1])
    assert.deepStrictEqual(toolGroups(final, format).diagnostics, [])
    const calls = final.flatMap((m) => format.toolCalls(m).map((c) => c.id))
    const results = final.flatMap((m) => format.toolResults(m).map((r) => r.callId))
    assert.deepStrictEqual(calls, ["call_read_6", "call_read_7"])
    assert.deepStrictEqual(results, calls)
  })

  it("brings the tokens down at every step", () => {
    const { afterClearing, afterCompaction, before } = report.tokens
    assert.isTrue(before > afterClearing && afterClearing > afterCompaction && afterCompaction > report.tokens.final)
    assert.isTrue(report.tokens.final < defaultContextPolicy.clearAt * report.available)
  })

  it("emits valid events in order", () => {
    assert.deepStrictEqual(report.events.map((e) => e.type), [
      "compaction_started",
      "compaction_completed",
      "context_reduced"
    ])
    for (const event of report.events) assert.isTrue(Schema.is(CompactionEvent)(event), event.type)
    const [started, completed, reduced] = report.events
    assert.deepStrictEqual(started?.data, {
      reason: "auto",
      before: compaction.before,
      messages: cleared.messages.length
    })
    assert.strictEqual(
      completed?.type === "compaction_completed" && completed.data.replaced,
      compaction.replaced.length
    )
    assert.strictEqual(completed?.type === "compaction_completed" && completed.data.structured, true)
    assert.strictEqual(completed?.type === "compaction_completed" && "partial" in completed.data, false)
    assert.strictEqual(reduced?.type === "context_reduced" && reduced.data.messages, 2)
    assert.strictEqual(reduced?.type === "context_reduced" && reduced.data.reason, "hard-limit")
  })
})
