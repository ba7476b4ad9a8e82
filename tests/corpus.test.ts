import { decodeConversation, formats, repairPairs, toolGroups } from "@ctxkit/core"
import { deepFreeze, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { corpusAbsent, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()

// Conversations of the corpus that reuse tool-call ids after the earlier call was answered (counted with a
// separate script over the JSON files: ids issued again by a later assistant turn).
const EXPECTED_REUSE: Readonly<Record<string, number>> = {
  "replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1__marshmallow-code__marshmallow-1867":
    5,
  "replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source__marshmallow-code__marshmallow-1867":
    4
}

describe.skipIf(corpusAbsent)("real transcripts (../shared/corpus/normalized)", () => {
  it("has the conversations the corpus README describes", () => {
    assert.strictEqual(corpus.length, 37)
    assert.strictEqual(corpus.reduce((n, c) => n + c.messages.length, 0), 2489)
  })

  for (const conversation of corpus) {
    it(`${conversation.source}/${conversation.id}: decodes as canonical; every call grouped with its results; no orphan`, () => {
      const decoded = decodeConversation(deepFreeze(conversation.messages), { format: formats.canonical })
      if (Result.isFailure(decoded)) return assert.fail(decoded.failure.message)
      const messages = decoded.success
      assert.strictEqual(messages, conversation.messages)
      const { diagnostics, groupOf, groups } = toolGroups(messages, formats.canonical)
      // The normalizer guarantees every tool message answers a call of the preceding assistant turn and
      // no call is left open: so no orphan and no dangling call. Replayed SWE-agent trajectories do reuse
      // ids turn after turn; each reuse is reported and paired with its latest call.
      assert.deepStrictEqual(diagnostics.filter((d) => d._tag !== "ReusedCallId").map((d) => d.message), [])
      const reused = diagnostics.filter((d) => d._tag === "ReusedCallId").length
      assert.strictEqual(reused, EXPECTED_REUSE[conversation.id] ?? 0)
      // Independent check: each tool message is in its issuer's group, and a group holds exactly one
      // assistant message with its results (the corpus has no cross-turn links).
      const issuer = new Map<string, number>()
      messages.forEach((m, i) => {
        if (m.role === "assistant") { for (const call of m.toolCalls ?? []) issuer.set(call.id, i) }
        if (m.role === "tool") assert.strictEqual(groupOf[i], groupOf[issuer.get(m.toolCallId) ?? -1])
      })
      for (const group of groups) {
        assert.isAtMost(group.filter((i) => messages[i]?.role === "assistant").length, 1)
      }
      // auto-detection reads the corpus the same way, and repair has nothing to do.
      assert.deepStrictEqual(toolGroups(messages, formats.auto).groups, groups)
      assert.strictEqual(repairPairs(messages).messages, messages)
      assert.deepStrictEqual(purityViolations((ms) => toolGroups(ms, formats.canonical), messages), [])
    })
  }
})
