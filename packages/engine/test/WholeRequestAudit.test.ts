import { approximateCounter, makeCostCache } from "@ctxkit/budget"
import { startAudit } from "@ctxkit/engine"
import type { StrategyRun } from "@ctxkit/engine/RunStrategy"
import { conversation, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { PositionalMemo } from "../src/internal/positional.ts"
import { wholeRequestAudit } from "../src/internal/wholeRequestAudit.ts"

// The engine's steady-state audit must be exactly what the general audit says for a request that keeps all.
describe("wholeRequestAudit", () => {
  for (const name of formatNames) {
    const format = formatOf(name)
    it(`equals startAudit on a request that keeps every message (${name})`, () => {
      let compared = 0
      fc.assert(
        fc.property(conversation(name, { maxTurns: 40 }), fc.integer({ min: 1, max: 30 }), (rendered, repeat) => {
          // Repeated conversations reach past the 500-block cap.
          const messages = repeat > 20 ? Array.from({ length: 12 }, () => rendered.messages).flat() : rendered.messages
          const cache = makeCostCache()
          const mine = wholeRequestAudit({
            messages,
            format,
            counter: approximateCounter,
            cache,
            flags: new PositionalMemo(),
            generationId: "g",
            provider: "p",
            model: "m",
            strategy: "truncate",
            contextLimit: 1e9,
            reservedForReply: 100,
            budget: 1e9 - 100,
            startedAt: 5
          })
          if (mine === undefined) return true
          const total = mine.promptTokens
          const result = {
            kept: messages,
            excluded: [],
            truncated: [],
            inserted: [],
            tokens: total,
            budget: 1e9 - 100,
            fits: true,
            diagnostics: []
          }
          const run: StrategyRun<unknown> = {
            result,
            requested: "truncate",
            ran: "truncate",
            fallback: false,
            refitted: false,
            dropped: [],
            diagnostics: []
          }
          const theirs = startAudit({
            generationId: "g",
            provider: "p",
            model: "m",
            contextLimit: 1e9,
            reservedForReply: 100,
            messages,
            strategy: run,
            countTokens: approximateCounter,
            options: { format, cache },
            startedAt: 5
          })
          assert.deepStrictEqual(JSON.parse(JSON.stringify(mine)), JSON.parse(JSON.stringify(theirs)))
          compared++
          return true
        }),
        { numRuns: runs.few }
      )
      assert.isAbove(compared, 0)
    })
  }
})
