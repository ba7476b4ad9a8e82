/**
 * The real bin on real agent transcripts (the shared corpus, read at test time; skipped when absent): `fit --json`
 * and `report --json` agree with the library on the largest conversations.
 */
import { approximateCounter, conversationCost, makeCostCache } from "@ctxkit/budget"
import { detectFormat } from "@ctxkit/core"
import { strategies } from "@ctxkit/fit"
import { canonicalToolKinds, contextReport } from "@ctxkit/governor"
import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { corpusAbsent, loadCorpus } from "../../../tests/corpus.ts"
import { ctxkit, jsonOf, SLOW_TEST_TIMEOUT } from "./bin.ts"

// Each test starts real processes; on a shared machine under load one start can take tens of seconds.
vi.setConfig({ testTimeout: SLOW_TEST_TIMEOUT })

const largest = loadCorpus().slice().sort((a, b) => b.messages.length - a.messages.length).slice(0, 3)

describe.skipIf(corpusAbsent)("the corpus through the bin", () => {
  for (const conversation of largest) {
    it(`${conversation.id}: fit at 10%, 50% and 200% of its cost matches the library`, async () => {
      const messages = conversation.messages
      const format = detectFormat(messages)
      const total = conversationCost(messages, { counter: approximateCounter, format }).total
      for (const share of [0.1, 0.5, 2]) {
        const budget = Math.max(1, Math.floor(total * share))
        const run = await ctxkit(["fit", conversation.file, "--budget", String(budget), "--json"])
        const cache = makeCostCache()
        const result = strategies.truncate.fit(messages, approximateCounter, budget, {
          format,
          cache,
          countExcluded: true
        })
        assert.strictEqual(run.code, result.fits ? 0 : 1, run.stderr)
        const json = jsonOf(run) as {
          fits: boolean
          tokensBefore: number
          tokens: number
          kept: ReadonlyArray<number>
          excluded: ReadonlyArray<{ index: number; reason: string }>
          messages: ReadonlyArray<unknown>
        }
        assert.strictEqual(json.fits, result.fits)
        assert.strictEqual(json.tokensBefore, total)
        assert.strictEqual(json.tokens, result.tokens)
        assert.deepStrictEqual(
          json.excluded.map((e) => [e.index, e.reason]),
          result.excluded.map((e) => [e.index, e.reason])
        )
        assert.deepStrictEqual(json.messages, JSON.parse(JSON.stringify(result.kept)))
        assert.strictEqual(json.kept.length + json.excluded.length, messages.length)
        if (share === 2) assert.strictEqual(json.excluded.length, 0)
        else assert.isAbove(json.excluded.length, 0)
      }
    })

    it(`${conversation.id}: report --json with the corpus tool names is the library's report`, async () => {
      const run = await ctxkit(["report", conversation.file, "--window", "2000000", "--tools", "canonical", "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      const format = detectFormat(conversation.messages)
      assert.deepStrictEqual(
        jsonOf(run),
        contextReport(conversation.messages, {
          mode: "shadow",
          format,
          counter: approximateCounter,
          toolKinds: canonicalToolKinds
        })
      )
    })
  }
})
