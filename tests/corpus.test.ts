import { decodeConversation, formats, repairPairs, toolGroups } from "@ctxkit/core"
import { deepFreeze, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { corpusDir, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()

describe.runIf(corpusDir !== undefined)("real transcripts (../shared/corpus/normalized)", () => {
  it("has the conversations the corpus README describes", () => {
    assert.strictEqual(corpus.length, 37)
    assert.strictEqual(corpus.reduce((n, c) => n + c.messages.length, 0), 2489)
  })

  for (const conversation of corpus) {
    it(`${conversation.source}/${conversation.id}: decodes as canonical; every call grouped with its results; no orphan`, () => {
      const messages = deepFreeze(conversation.messages)
      assert.isTrue(Result.isSuccess(decodeConversation(messages, { format: formats.canonical })))
      const { diagnostics, groupOf, groups } = toolGroups(messages, formats.canonical)
      // The normalizer guarantees every tool message answers a call of the preceding assistant turn and
      // no call is left open: so no orphan, no dangling call, no reused id.
      assert.deepStrictEqual(diagnostics.map((d) => d.message), [])
      // Independent check: each tool message is in its issuer's group, and a group holds exactly one
      // assistant message with its results (the corpus has no cross-turn links).
      const issuer = new Map<string, number>()
      messages.forEach((m, i) => {
        for (const call of (m["toolCalls"] as ReadonlyArray<{ id: string }> | undefined) ?? []) issuer.set(call.id, i)
        if (m["role"] === "tool") assert.strictEqual(groupOf[i], groupOf[issuer.get(m["toolCallId"] as string)!])
      })
      for (const group of groups) {
        assert.isAtMost(group.filter((i) => messages[i]!["role"] === "assistant").length, 1)
      }
      // auto-detection reads the corpus the same way, and repair has nothing to do.
      assert.deepStrictEqual(toolGroups(messages, formats.auto).groups, groups)
      assert.strictEqual(repairPairs(messages).messages, messages)
      assert.deepStrictEqual(purityViolations((ms) => toolGroups(ms, formats.canonical), messages), [])
    })
  }
})

describe.runIf(corpusDir === undefined)("real transcripts", () => {
  it("are absent on this machine: corpus tests skipped (set CTXKIT_CORPUS to the normalized folder)", () => {
    assert.isUndefined(corpusDir)
  })
})
