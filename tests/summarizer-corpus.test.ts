/**
 * The extractive summarizer on the real corpus (`../shared/corpus/normalized/`): every conversation compacted with
 * `Summarizer.layerExtractive` (keepTurns 2). Each one is compacted with a structured checkpoint, or left as it
 * was for a stated reason (nothing to summarize, or a checkpoint that would not make it smaller); every quoted
 * instruction is a literal substring of one of its user messages; the same history gives the same checkpoint.
 */
import { compact } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { Summarizer } from "@ctxkit/engine"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { corpusAbsent, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()

const run = (messages: ReadonlyArray<Message>) =>
  Effect.runSyncExit(
    compact(messages, { reason: "manual", format: formats.canonical, keepTurns: 2 }).pipe(
      Effect.provide(Summarizer.layerExtractive)
    )
  )

describe.skipIf(corpusAbsent)("Summarizer.layerExtractive on the corpus", () => {
  it("every conversation: a structured checkpoint or a stated refusal; instructions quoted; deterministic", () => {
    let compacted = 0
    let quoted = 0
    for (const conversation of corpus) {
      const messages = conversation.messages as unknown as ReadonlyArray<Message>
      const exit = run(messages)
      if (Exit.isFailure(exit)) {
        const reason = exit.cause.reasons[0]
        const message = reason !== undefined && reason._tag === "Fail" ? reason.error.message : String(reason)
        assert.include(message, "The checkpoint would not make the context smaller", conversation.id)
        continue
      }
      const outcome = exit.value
      if (outcome._tag !== "Compacted") continue
      compacted++
      assert.isTrue(outcome.parsed.structured, conversation.id)
      assert.isBelow(outcome.after, outcome.before, conversation.id)
      const again = run(messages)
      assert.isTrue(
        Exit.isSuccess(again) && again.value._tag === "Compacted" && again.value.parsed.text === outcome.parsed.text
      )
      const userTexts = messages.filter((m) => m.role === "user").map((m) => formats.canonical.ownText(m))
      for (const quote of outcome.parsed.checkpoint?.instructions ?? []) {
        quoted++
        assert.isTrue(userTexts.some((t) => t.includes(quote)), `${conversation.id}: ${JSON.stringify(quote)}`)
      }
    }
    assert.isAbove(compacted, 0)
    assert.isAbove(quoted, 0)
  })
})
