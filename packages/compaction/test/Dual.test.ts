import {
  capToolResults,
  clearOldToolResults,
  planCompaction,
  recoverUncertainResults,
  reduceToBudget,
  serializeForSummary
} from "@ctxkit/compaction"
import { summaryRequest } from "@ctxkit/compaction/CheckpointInstructions"
import { compactionAttempt } from "@ctxkit/compaction/Guards"
import { transcriptChars } from "@ctxkit/compaction/ReduceToBudget"
import { conversation, deepFreeze, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

// The one rule (docs/architecture.md): every pure function whose first parameter is the conversation is `dual`.
describe("every conversation-first function is dual: both forms give equal results", () => {
  const format = formatOf("openaiChat")
  it("on generated conversations (property)", () => {
    fc.assert(
      fc.property(conversation("openaiChat", { maxTurns: 10 }), fc.integer({ min: 10, max: 5_000 }), (rendered, n) => {
        const m = deepFreeze(rendered.messages)
        assert.deepStrictEqual(
          pipe(m, planCompaction({ format, keepTurns: 1 })),
          planCompaction(m, { format, keepTurns: 1 })
        )
        assert.deepStrictEqual(
          pipe(m, clearOldToolResults({ format, keepToolResults: 1 })),
          clearOldToolResults(m, { format, keepToolResults: 1 })
        )
        assert.deepStrictEqual(
          pipe(m, capToolResults({ format, available: n })),
          capToolResults(m, { format, available: n })
        )
        assert.deepStrictEqual(pipe(m, reduceToBudget(n, { format })), reduceToBudget(m, n, { format }))
        assert.deepStrictEqual(pipe(m, recoverUncertainResults({ format })), recoverUncertainResults(m, { format }))
        assert.strictEqual(pipe(m, serializeForSummary({ format })), serializeForSummary(m, { format }))
        assert.deepStrictEqual(
          pipe(m, summaryRequest({ format, focus: "tests" })),
          summaryRequest(m, { format, focus: "tests" })
        )
        assert.strictEqual(pipe(m, transcriptChars(format)), transcriptChars(m, format))
        assert.deepStrictEqual(
          pipe(m, compactionAttempt("last-user-turns", { format })),
          compactionAttempt(m, "last-user-turns", { format })
        )
      }),
      { numRuns: runs.some }
    )
  })

  it("data-first with the options left out, and a conversation of the wrong type still gets its answer", () => {
    const m = [{ role: "user", content: "hi" }]
    assert.strictEqual(transcriptChars(m), pipe(m, transcriptChars()))
    assert.deepStrictEqual(planCompaction(m), pipe(m, planCompaction()))
    assert.deepStrictEqual(clearOldToolResults(m), pipe(m, clearOldToolResults()))
    // A wrong value where the conversation goes is the data-first call, not a function.
    const wrong = undefined as unknown as ReadonlyArray<unknown>
    assert.strictEqual(planCompaction(wrong)._tag, "NoPlan")
    assert.strictEqual(transcriptChars(wrong), 0)
    assert.deepStrictEqual(recoverUncertainResults(wrong).messages, [])
    assert.strictEqual(reduceToBudget(wrong, 10).truncated, 0)
  })
})
