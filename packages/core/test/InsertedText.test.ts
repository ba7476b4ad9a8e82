import { checkpointHeader, isInvariantsText, isSummaryText, SUMMARY_HEADER } from "@ctxkit/core/InsertedText"
import { assert, describe, it } from "@effect/vitest"

describe("inserted texts: one writer, one reader", () => {
  it("the summary and checkpoint headers are read back exactly as written", () => {
    assert.strictEqual(SUMMARY_HEADER, "[Summary of earlier context]")
    assert.isTrue(isSummaryText(`${SUMMARY_HEADER}\nuser: hi`))
    assert.isTrue(isSummaryText(`${checkpointHeader(3)}\n\n## Goal`))
    assert.isFalse(isSummaryText(`${SUMMARY_HEADER} and more`))
  })

  it("the invariants block: its tag after optional whitespace, not another tag or a mention", () => {
    assert.isTrue(isInvariantsText("<invariants policy=\"v1\">\n</invariants>"))
    assert.isTrue(isInvariantsText("\n  <invariants>"))
    assert.isFalse(isInvariantsText("<invariantsList>"))
    assert.isFalse(isInvariantsText("see <invariants> below"))
    assert.isFalse(isInvariantsText(""))
  })
})
