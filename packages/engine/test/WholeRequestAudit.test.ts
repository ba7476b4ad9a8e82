import { approximateCounter, makeCostCache } from "@ctxkit/budget"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { startAudit } from "@ctxkit/engine"
import type { StrategyRun } from "@ctxkit/engine/RunStrategy"
import { conversation, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { PositionalMemo } from "../src/internal/positional.ts"
import { wholeRequestAudit } from "../src/internal/wholeRequestAudit.ts"

/** The steady-state audit and the general one of a request that keeps every message, as plain data. */
const both = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): readonly [unknown, unknown] => {
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
  return [JSON.parse(JSON.stringify(mine)), JSON.parse(JSON.stringify(theirs))]
}

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
          const [mine, theirs] = both(messages, format)
          assert.deepStrictEqual(mine, theirs)
          compared++
          return true
        }),
        { numRuns: runs.few }
      )
      assert.isAbove(compared, 0)
    })
  }

  it("marks every member of a protected message's tool group protected, as the general audit does", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "List the files." },
      // A pinned call: its result is protected with it, wherever it sits.
      { role: "assistant", content: "", pinned: true, toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
      { role: "user", content: "And meanwhile?" },
      { role: "tool", toolCallId: "c1", toolName: "ls", content: "a.ts\nb.ts" },
      { role: "user", content: "Now read b.ts." }
    ]
    const [mine, theirs] = both(messages, formats.canonical)
    assert.deepStrictEqual(mine, theirs)
    const reasons = (mine as { readonly blocks: ReadonlyArray<{ readonly reason: string }> }).blocks.map((b) =>
      b.reason
    )
    assert.deepStrictEqual(reasons, ["protected", "fits", "pinned", "fits", "protected", "protected"])
  })
})
