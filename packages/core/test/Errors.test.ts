import {
  CompactionFailed,
  ContextBudgetExceeded,
  ConversationIssue,
  InvalidConversation,
  TokenBudgetExceeded,
  UnknownStrategy
} from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

describe("shared errors", () => {
  it("have stable tags, codes and messages that say what to do", () => {
    const budget = new TokenBudgetExceeded({ contextLimit: 8192, reservedForReply: 2048, promptTokens: 7000 })
    assert.strictEqual(budget._tag, "TokenBudgetExceeded")
    assert.strictEqual(budget.code, "TOKEN_BUDGET_EXCEEDED")
    assert.isTrue(budget.message.startsWith("Protected prompt context exceeds the configured token budget"))
    assert.include(budget.message, "7000 tokens; budget 6144")

    const context = new ContextBudgetExceeded({
      conversationChars: 912000,
      limit: 800000,
      what: "Automatic compaction ran but could not reduce it enough.",
      advice: "Run /compact."
    })
    assert.strictEqual(
      context.message,
      "Context budget exceeded (approximately 912000 characters of conversation; limit 800000). Automatic compaction ran but could not reduce it enough. Run /compact."
    )

    const unknown = new UnknownStrategy({ id: "smart", available: ["manual", "truncate"] })
    assert.isTrue(unknown.message.startsWith("Unknown context strategy \"smart\""))
    assert.strictEqual(unknown.code, "UNKNOWN_STRATEGY")

    const invalid = new InvalidConversation({
      format: "canonical",
      issues: Array.from({ length: 12 }, (_, i) => new ConversationIssue({ path: `messages[${i}]`, message: "bad" }))
    })
    assert.include(invalid.message, "(and 2 more)")
    assert.strictEqual(new CompactionFailed({ reason: "auto", error: "timeout" })._tag, "CompactionFailed")
  })

  it("are yieldable and caught by tag", async () => {
    const program = Effect.gen(function*() {
      return yield* new TokenBudgetExceeded({ contextLimit: 10, reservedForReply: 2, promptTokens: 20 })
    }).pipe(Effect.catchTag("TokenBudgetExceeded", (e) => Effect.succeed(e.code)))
    assert.strictEqual(await Effect.runPromise(program), "TOKEN_BUDGET_EXCEEDED")
  })
})
