import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import type { SummaryFinishReason } from "../src/Summarizer.ts"
import {
  acceptSummaryReply,
  CUT_EMPTY_MESSAGE,
  EMPTY_SUMMARY_MESSAGE,
  type PartialSummaries,
  SummaryRejected
} from "../src/SummaryReplyPolicy.ts"

const CUT_8000 =
  "The compaction summary is incomplete: the summarizer stopped with \"length\" at its output limit of " +
  "8000 tokens, and a cut summary would lose constraints and pending work, so the conversation was left as it " +
  "was. Raise compaction.maxOutputTokens (or use a model with a larger context window) so the whole summary fits."

const refused = (limit: number) =>
  `The summarizer declined to write the compaction summary (stop reason "refusal", output limit ${limit} tokens); ` +
  "a refusal is not a summary, so the conversation was left as it was. Try again, with a focus, or compact with " +
  "another model."

const errored = (limit: number) =>
  "The summarizer reported an error before finishing the compaction summary (stop reason \"error\", output limit " +
  `${limit} tokens), so the conversation was left as it was. Try the compaction again.`

/** Deep equality does not look into errors' fields: compare them one by one. */
const assertRejected = (
  result: Result.Result<unknown, SummaryRejected>,
  kind: SummaryRejected["kind"],
  message: string
): void => {
  assert.isTrue(Result.isFailure(result), "rejected")
  if (Result.isFailure(result)) {
    assert.instanceOf(result.failure, SummaryRejected)
    assert.strictEqual(result.failure._tag, "SummaryRejected")
    assert.strictEqual(result.failure.kind, kind)
    assert.strictEqual(result.failure.message, message)
  }
}

const policies: ReadonlyArray<PartialSummaries | undefined> = [undefined, "keep", "reject"]

describe("acceptSummaryReply", () => {
  it("the messages are the seed's", () => {
    assert.strictEqual(
      CUT_EMPTY_MESSAGE,
      "Compaction summary was cut off before any usable text was produced; raise compaction.maxOutputTokens"
    )
    assert.strictEqual(EMPTY_SUMMARY_MESSAGE, "Summarizer returned an empty summary")
  })

  for (const partialSummaries of policies) {
    const label = partialSummaries ?? "default (keep)"

    it(`${label}: a finished reply is accepted, trimmed, not partial`, () => {
      for (const finishReason of ["stop", "other"] as const) {
        assert.deepStrictEqual(
          acceptSummaryReply({ text: "  {\"checkpoint\":{\"goal\":\"x\"}}\n", finishReason }, { partialSummaries }),
          Result.succeed({ text: "{\"checkpoint\":{\"goal\":\"x\"}}", partial: false })
        )
      }
    })

    it(`${label}: a finished blank reply is empty`, () => {
      for (const text of ["", "  \n\t "]) {
        assertRejected(
          acceptSummaryReply({ text, finishReason: "stop" }, { partialSummaries }),
          "empty",
          EMPTY_SUMMARY_MESSAGE
        )
      }
    })

    it(`${label}: a cut reply with nothing usable fails with the raise-maxOutputTokens message`, () => {
      for (const text of ["", "   "]) {
        assertRejected(
          acceptSummaryReply({ text, finishReason: "length" }, { partialSummaries }),
          "cut-empty",
          CUT_EMPTY_MESSAGE
        )
      }
    })

    it(`${label}: a refusal is never a summary, even with text`, () => {
      for (const text of ["", "I can't help with that."]) {
        assertRejected(
          acceptSummaryReply({ text, finishReason: "refusal" }, { partialSummaries, maxOutputTokens: 8_000 }),
          "refused",
          refused(8_000)
        )
      }
      assertRejected(
        acceptSummaryReply({ text: "No.", finishReason: "refusal" }, { partialSummaries }),
        "refused",
        refused(16_000)
      )
    })

    it(`${label}: an errored reply is rejected, whatever came before the error`, () => {
      assertRejected(
        acceptSummaryReply({ text: "{\"checkpoint\":{\"goal\":\"x\"}}", finishReason: "error" }, {
          partialSummaries,
          maxOutputTokens: 4_096
        }),
        "errored",
        errored(4_096)
      )
    })
  }

  it("keep (default): a cut reply with usable text is accepted as partial", () => {
    const reply = { text: " {\"checkpoint\":{\"goal\":\"Fix the build\"", finishReason: "length" } as const
    const partial = Result.succeed({ text: "{\"checkpoint\":{\"goal\":\"Fix the build\"", partial: true })
    assert.deepStrictEqual(acceptSummaryReply(reply), partial)
    assert.deepStrictEqual(acceptSummaryReply(reply, { partialSummaries: "keep" }), partial)
  })

  it("reject: a cut reply with usable text is rejected, naming the stop reason and the output limit", () => {
    const reply = { text: "{\"checkpoint\":{\"goal\":\"Fix the build\"", finishReason: "length" } as const
    assertRejected(acceptSummaryReply(reply, { partialSummaries: "reject", maxOutputTokens: 8_000 }), "cut", CUT_8000)
    assertRejected(
      acceptSummaryReply(reply, { partialSummaries: "reject", maxOutputTokens: Number.NaN }),
      "cut",
      CUT_8000.replace("8000", "16000")
    )
  })

  it("is total: every reply gets an accepted text that is the trimmed reply, or a rejection", () => {
    const reasons: ReadonlyArray<SummaryFinishReason> = ["stop", "length", "refusal", "error", "other"]
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...reasons),
        fc.constantFrom(...policies),
        (text, finishReason, partialSummaries) => {
          const result = acceptSummaryReply({ text, finishReason }, { partialSummaries })
          if (Result.isSuccess(result)) {
            assert.strictEqual(result.success.text, text.trim())
            assert.isAbove(result.success.text.length, 0)
            assert.strictEqual(result.success.partial, finishReason === "length")
            assert.include(["stop", "length", "other"], finishReason)
          } else {
            assert.instanceOf(result.failure, SummaryRejected)
            assert.strictEqual(result.failure._tag, "SummaryRejected")
          }
        }
      ),
      { numRuns: runs.many }
    )
  })
})
