import { approximateCounter, available, conversationCost, reserve } from "@ctxkit/budget"
import { formats } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import { main, MAX_TOKENS, WINDOW } from "../examples/ai-sdk.ts"
import { promptPairProblems } from "../packages/ai-sdk/test/checks.ts"

describe("the AI SDK example (examples/ai-sdk.ts, docs/integrations.md)", () => {
  it("fits every step into the window, runs the approved tool, and refuses the oversized prompt", async () => {
    const printed: Array<string> = []
    const report = await main((line) => printed.push(line))
    assert.deepStrictEqual(printed, [...report.lines])
    const budget = available(WINDOW, MAX_TOKENS)

    // Three steps: two in the first call (reads, then the removal that asks for approval), one after approval.
    assert.strictEqual(report.fits.length, 3)
    for (const fit of report.fits) {
      assert.isTrue(fit.fits)
      assert.strictEqual(fit.budget, budget)
      assert.isAtMost(fit.tokens, budget)
      assert.strictEqual(fit.maxOutputTokens, reserve(WINDOW, MAX_TOKENS))
      assert.isAbove(fit.fit.excluded.length, 0, "the long history did not fit as it was")
    }
    assert.match(
      printed.find((line) => line.startsWith("step 0:")) ?? "",
      /^step 0: ctx \d+\/7168 \(\d+%\), \d+ messages sent/
    )

    // What the model received, step by step: within the budget, pairs whole, the system prompt first.
    const [first, second, third] = report.models
    const prompts = [...first!.doGenerateCalls, ...second!.doGenerateCalls]
    assert.strictEqual(prompts.length, 3)
    for (const sent of prompts) {
      const cost = conversationCost(sent.prompt, { counter: approximateCounter, format: formats.aiSdk }).total
      assert.isAtMost(cost, budget)
      assert.deepStrictEqual(promptPairProblems(sent.prompt), [])
      assert.strictEqual(sent.prompt[0]?.role, "system")
      assert.strictEqual(sent.maxOutputTokens, MAX_TOKENS)
    }

    assert.isTrue(report.approvalAsked)
    assert.deepStrictEqual(report.removed, ["dist/parser.js"])
    assert.strictEqual(report.answer, "Removed dist/parser.js; the parser splits lines.")
    assert.match(report.refusal, /^TokenBudgetExceeded: Protected prompt context exceeds the configured token budget/)
    assert.strictEqual(third!.doGenerateCalls.length, 0, "the refused prompt never reached the model")
  })
})
