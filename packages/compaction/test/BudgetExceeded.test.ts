/**
 * The hard limit's failure message: the four exact WHAT sentences of the seed, the layout of the message, and the
 * core error it builds.
 */
import { budgetExceededMessage } from "@ctxkit/compaction/BudgetExceeded"
import { ContextBudgetExceeded } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import {
  budgetExceeded,
  COMPACTION_DISABLED,
  COMPACTION_RAN_NOT_ENOUGH,
  COMPACTION_SKIPPED_NO_BOUNDARY,
  compactionFailedSentence,
  DEFAULT_BUDGET_ADVICE,
  lastChanceSentence
} from "../src/BudgetExceeded.ts"

describe("budget exceeded", () => {
  it("the four WHAT sentences are the seed's, exactly", () => {
    assert.strictEqual(COMPACTION_RAN_NOT_ENOUGH, "Automatic compaction ran but could not reduce it enough.")
    assert.strictEqual(
      COMPACTION_SKIPPED_NO_BOUNDARY,
      "Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short)."
    )
    assert.strictEqual(
      compactionFailedSentence("the summarizer timed out"),
      "Automatic compaction failed (the summarizer timed out)."
    )
    assert.strictEqual(COMPACTION_DISABLED, "Automatic compaction is disabled (compaction.auto is false).")
  })

  it("each outcome maps to its sentence", () => {
    assert.strictEqual(lastChanceSentence({ _tag: "Ran" }), COMPACTION_RAN_NOT_ENOUGH)
    assert.strictEqual(lastChanceSentence({ _tag: "NoBoundary" }), COMPACTION_SKIPPED_NO_BOUNDARY)
    assert.strictEqual(lastChanceSentence({ _tag: "Failed", error: "boom" }), "Automatic compaction failed (boom).")
    assert.strictEqual(lastChanceSentence({ _tag: "Disabled" }), COMPACTION_DISABLED)
  })

  it("the message: size, limit, WHAT, ADVICE", () => {
    assert.strictEqual(
      budgetExceededMessage({
        conversationChars: 912_345,
        limit: 800_000,
        outcome: { _tag: "Ran" },
        advice: "Run /compact."
      }),
      "Context budget exceeded (approximately 912345 characters of conversation; limit 800000). Automatic compaction ran but could not reduce it enough. Run /compact."
    )
    assert.strictEqual(
      budgetExceededMessage({ conversationChars: 5_000, limit: 4_000, outcome: { _tag: "NoBoundary" } }),
      "Context budget exceeded (approximately 5000 characters of conversation; limit 4000). Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short). Run /compact (optionally with a focus), trim or avoid very large tool outputs, start a new session, or disable MCP servers you do not need to free room."
    )
    assert.strictEqual(
      budgetExceededMessage({ conversationChars: 9_000, limit: 8_000, outcome: { _tag: "Failed", error: "HTTP 503" } }),
      `Context budget exceeded (approximately 9000 characters of conversation; limit 8000). Automatic compaction failed (HTTP 503). ${DEFAULT_BUDGET_ADVICE}`
    )
    assert.strictEqual(
      budgetExceededMessage({
        conversationChars: 9_000,
        limit: 8_000,
        outcome: { _tag: "Disabled" },
        advice: "Ask an admin."
      }),
      "Context budget exceeded (approximately 9000 characters of conversation; limit 8000). Automatic compaction is disabled (compaction.auto is false). Ask an admin."
    )
  })

  it("the default advice names /compact, large tool outputs, a new session and MCP servers", () => {
    assert.strictEqual(
      DEFAULT_BUDGET_ADVICE,
      "Run /compact (optionally with a focus), trim or avoid very large tool outputs, start a new session, or disable MCP servers you do not need to free room."
    )
  })

  it("builds the core ContextBudgetExceeded with the same message; sizes are whole characters", () => {
    const error = budgetExceeded({ conversationChars: 1_000.6, limit: 900, outcome: { _tag: "Disabled" }, advice: "x" })
    assert.instanceOf(error, ContextBudgetExceeded)
    assert.strictEqual(error._tag, "ContextBudgetExceeded")
    assert.strictEqual(error.code, "CONTEXT_BUDGET_EXCEEDED")
    assert.strictEqual(error.conversationChars, 1_001)
    assert.strictEqual(error.limit, 900)
    assert.strictEqual(error.what, COMPACTION_DISABLED)
    assert.strictEqual(error.advice, "x")
    assert.strictEqual(
      error.message,
      "Context budget exceeded (approximately 1001 characters of conversation; limit 900). Automatic compaction is disabled (compaction.auto is false). x"
    )
    assert.strictEqual(
      budgetExceeded({ conversationChars: Number.NaN, limit: -3, outcome: { _tag: "Ran" } }).conversationChars,
      0
    )
  })
})
