import type { Message } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import {
  calibrate,
  clearUsageLedger,
  conversationCost,
  ledgerUsed,
  makeUsageLedger,
  recordUsage,
  uncalibrated,
  UsageLedger
} from "./all.ts"
import { nonFiniteNumbers } from "./helpers.ts"

const turn = (i: number): ReadonlyArray<Message> => [
  { role: "user", content: `question ${i} `.repeat(10) },
  { role: "assistant", content: `answer ${i} `.repeat(20) }
]
const conversation = (turns: number): ReadonlyArray<Message> =>
  deepFreeze(Array.from({ length: turns }, (_, i) => turn(i)).flat())

const openai = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion })

describe("recordUsage", () => {
  it("remembers { tokens: input + output, count: messages at request + 1 }", () => {
    const ledger = makeUsageLedger()
    const update = recordUsage(ledger, {
      usage: openai(3_725, 8),
      messagesAtRequest: 27,
      epoch: ledger.epoch,
      truncated: false
    })
    assert.strictEqual(update.reason, "recorded")
    assert.isTrue(update.recorded)
    assert.deepStrictEqual(
      update.ledger,
      new UsageLedger({ epoch: 0, sample: { tokens: 3_733, count: 28 } })
    )
  })

  it("counts cached input reported separately as prompt (Anthropic), and not twice when included (OpenAI)", () => {
    const anthropic = recordUsage(makeUsageLedger(), {
      usage: { input_tokens: 20, cache_read_input_tokens: 3_000, cache_creation_input_tokens: 500, output_tokens: 90 },
      messagesAtRequest: 3,
      truncated: false
    })
    assert.strictEqual(anthropic.ledger.sample?.tokens, 3_610)
    const openaiCached = recordUsage(makeUsageLedger(), {
      usage: { prompt_tokens: 3_520, completion_tokens: 90, prompt_tokens_details: { cached_tokens: 3_000 } },
      messagesAtRequest: 3,
      truncated: false
    })
    assert.strictEqual(openaiCached.ledger.sample?.tokens, 3_610)
  })

  it("no usage (0) leaves the ledger unchanged", () => {
    const ledger = makeUsageLedger()
    for (const usage of [openai(0, 0), undefined, {}, { prompt_tokens: Number.NaN }]) {
      const update = recordUsage(ledger, { usage, messagesAtRequest: 3, truncated: false })
      assert.strictEqual(update.reason, "no-usage")
      assert.strictEqual(update.ledger, ledger)
    }
  })

  it("a truncated request is never recorded", () => {
    const ledger = makeUsageLedger()
    const update = recordUsage(ledger, { usage: openai(3_725, 8), messagesAtRequest: 27, truncated: true })
    assert.strictEqual(update.reason, "truncated")
    assert.strictEqual(update.ledger, ledger)
  })

  it("stale usage after a compaction is rejected: the request was prepared in an older epoch", () => {
    const before = makeUsageLedger()
    const epochAtRequest = before.epoch
    const compacted = clearUsageLedger(before, "compaction")
    const late = recordUsage(compacted, {
      usage: openai(170_000, 500),
      messagesAtRequest: 400,
      epoch: epochAtRequest,
      truncated: false
    })
    assert.strictEqual(late.reason, "stale")
    assert.strictEqual(late.ledger, compacted)
    assert.isUndefined(late.ledger.sample)
  })

  it("the same usage recorded twice is not counted twice", () => {
    const report = { usage: openai(1_000, 50), messagesAtRequest: 4, truncated: false, responseId: "r1" }
    const once = recordUsage(makeUsageLedger(), report)
    const twice = recordUsage(once.ledger, report)
    assert.strictEqual(twice.reason, "duplicate")
    assert.deepStrictEqual(twice.ledger, once.ledger)
    // Without an id, recording replaces and never adds: the same report gives the same ledger.
    const { responseId: _, ...anonymous } = report
    const a = recordUsage(makeUsageLedger(), anonymous).ledger
    assert.deepStrictEqual(recordUsage(a, anonymous).ledger, a)
  })

  it("a report from another model clears the ledger (new epoch) before recording", () => {
    const first = recordUsage(makeUsageLedger({ model: "a" }), {
      usage: openai(1_000, 50),
      messagesAtRequest: 4,
      truncated: false,
      model: "a"
    }).ledger
    const switched = recordUsage(first, {
      usage: openai(900, 10),
      messagesAtRequest: 6,
      truncated: false,
      model: "b"
    })
    assert.strictEqual(switched.reason, "recorded")
    assert.strictEqual(switched.ledger.epoch, 1)
    assert.strictEqual(switched.ledger.model, "b")
    assert.strictEqual(switched.ledger.cleared, "model-change")
    assert.strictEqual(switched.ledger.sample?.tokens, 910)
  })

  it("rejects a messagesAtRequest that is not a whole number >= 0", () => {
    for (const at of [-1, 1.5, Number.NaN, Infinity]) {
      assert.strictEqual(
        recordUsage(makeUsageLedger(), { usage: openai(1, 1), messagesAtRequest: at, truncated: false }).reason,
        "invalid"
      )
    }
  })

  it("is data-last too", () => {
    const report = { usage: openai(10, 1), messagesAtRequest: 0, truncated: false }
    assert.deepStrictEqual(pipe(makeUsageLedger(), recordUsage(report)), recordUsage(makeUsageLedger(), report))
    assert.deepStrictEqual(
      pipe(makeUsageLedger(), clearUsageLedger("clearing")),
      clearUsageLedger(makeUsageLedger(), "clearing")
    )
  })
})

describe("clearUsageLedger", () => {
  it("drops the sample and moves to a new epoch, on compaction, clearing and model change", () => {
    const recorded =
      recordUsage(makeUsageLedger({ model: "m" }), { usage: openai(10, 1), messagesAtRequest: 0, truncated: false })
        .ledger
    for (const reason of ["compaction", "clearing", "model-change"] as const) {
      const cleared = clearUsageLedger(recorded, reason)
      assert.deepStrictEqual(cleared, new UsageLedger({ epoch: 1, model: "m", cleared: reason }))
    }
  })
})

describe("ledgerUsed", () => {
  const messages = conversation(5)

  it("without a sample: the full estimate plus the fixed parts", () => {
    const used = ledgerUsed(makeUsageLedger(), { messages, fixedTokens: 300 })
    assert.strictEqual(used.basis, "estimate")
    assert.strictEqual(used.tokens, conversationCost(messages).total + 300)
    assert.strictEqual(used.estimatedMessages, 10)
    assert.isTrue(used.approximate)
  })

  it("with a sample: reported tokens plus the estimate of the messages added since", () => {
    const { ledger } = recordUsage(makeUsageLedger(), {
      usage: openai(5_000, 120),
      messagesAtRequest: 5,
      truncated: false
    })
    const used = ledgerUsed(ledger, { messages, fixedTokens: 300 })
    assert.strictEqual(used.basis, "usage")
    assert.strictEqual(used.estimatedMessages, 4) // messages 6..9: the response is message 5
    assert.strictEqual(used.tokens, 5_120 + conversationCost(messages.slice(6)).total)
    // Right after the response, nothing is estimated: the count is exact.
    const exact = ledgerUsed(ledger, { messages: messages.slice(0, 6) })
    assert.strictEqual(exact.tokens, 5_120)
    assert.isFalse(exact.approximate)
  })

  it("a sample longer than the conversation (compacted without clearing) is ignored as stale", () => {
    const { ledger } = recordUsage(makeUsageLedger(), {
      usage: openai(50_000, 100),
      messagesAtRequest: 9,
      truncated: false
    })
    const shorter = messages.slice(0, 4)
    const used = ledgerUsed(ledger, { messages: shorter })
    assert.strictEqual(used.basis, "estimate")
    assert.isTrue(used.stale)
    assert.strictEqual(used.tokens, conversationCost(shorter).total)
  })

  it("after clearing, the full estimate again", () => {
    const { ledger } = recordUsage(makeUsageLedger(), {
      usage: openai(5_000, 120),
      messagesAtRequest: 5,
      truncated: false
    })
    const used = ledgerUsed(clearUsageLedger(ledger, "compaction"), { messages })
    assert.strictEqual(used.basis, "estimate")
    assert.strictEqual(used.tokens, conversationCost(messages).total)
  })

  it("scales estimated parts by the calibration, never the reported part", () => {
    const { calibration } = calibrate(uncalibrated, { tokens: 2_000, estimate: 1_000, truncated: false })
    const { ledger } = recordUsage(makeUsageLedger(), {
      usage: openai(5_000, 120),
      messagesAtRequest: 5,
      truncated: false
    })
    const used = ledgerUsed(ledger, { messages, calibration })
    assert.strictEqual(used.tokens, 5_120 + 2 * conversationCost(messages.slice(6)).total)
    const full = ledgerUsed(makeUsageLedger(), { messages, calibration, fixedTokens: 100 })
    assert.strictEqual(full.tokens, 2 * (conversationCost(messages).total + 100))
  })

  it("survives a Schema round trip (persistable state)", () => {
    const { ledger } = recordUsage(makeUsageLedger({ model: "m" }), {
      usage: openai(10, 1),
      messagesAtRequest: 0,
      truncated: false
    })
    const json = Schema.encodeSync(UsageLedger)(ledger)
    assert.deepStrictEqual(Schema.decodeUnknownSync(UsageLedger)(JSON.parse(JSON.stringify(json))), ledger)
  })
})

describe("ledger laws", () => {
  const report = fc.record({
    prompt: fc.oneof(fc.nat(200_000), fc.constant(0), fc.double()),
    output: fc.nat(5_000),
    at: fc.nat(60),
    truncated: fc.boolean(),
    epoch: fc.option(fc.nat(3), { nil: undefined })
  })

  it("guards: no usage, truncated and stale reports never record; used is finite and grows with the conversation", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(report, fc.constantFrom("compaction" as const, "clearing" as const))),
        fc.nat(60),
        (steps, length) => {
          let ledger = makeUsageLedger()
          for (const step of steps) {
            if (typeof step === "string") {
              ledger = clearUsageLedger(ledger, step)
              continue
            }
            const update = recordUsage(ledger, {
              usage: openai(step.prompt, step.output),
              messagesAtRequest: step.at,
              epoch: step.epoch,
              truncated: step.truncated
            })
            const stale = step.epoch !== undefined && step.epoch !== ledger.epoch
            // Usage counts are numbers up to 2^53 − 1; anything else is no usage.
            const noUsage = !(step.prompt > 0 && step.prompt <= Number.MAX_SAFE_INTEGER)
            if (step.truncated || stale || noUsage) {
              assert.isFalse(update.recorded)
              assert.strictEqual(update.ledger, ledger)
            } else {
              assert.isTrue(update.recorded)
              assert.deepStrictEqual(update.ledger.sample?.count, step.at + 1)
              assert.deepStrictEqual(update.ledger.sample?.tokens, step.prompt + step.output)
            }
            ledger = update.ledger
          }
          const all = conversation(31)
          const shorter = all.slice(0, length)
          const longer = all.slice(0, length + 1)
          const a = ledgerUsed(ledger, { messages: shorter })
          const b = ledgerUsed(ledger, { messages: longer })
          assert.deepStrictEqual(nonFiniteNumbers([a, b]), [])
          if (a.basis === b.basis) assert.isTrue(b.tokens >= a.tokens)
        }
      )
    )
  })
})
