import { type AnthropicMessage, formats, type Message, type MessageFormat, toolGroups } from "@ctxkit/core"
import { conversation, deepEqual, deepFreeze, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import {
  checkpointShrinks,
  COMPACTION_ATTEMPT_STEPS,
  compactionAttempt,
  compactionRequestTruncated,
  compactionStalled,
  STALL_MIN_DROP,
  StallGuard,
  truncatedRequestMessage
} from "../src/Guards.ts"

describe("compactionRequestTruncated", () => {
  const lastGood = { tokens: 3_700, estimate: 3_750 }

  it("flags a compaction request whose estimate grew by 50+ tokens while the server saw almost nothing more", () => {
    assert.isTrue(compactionRequestTruncated(lastGood, { tokens: 3_705, estimate: 3_820 }))
    assert.isTrue(compactionRequestTruncated(lastGood, { tokens: 3_704, estimate: 3_800 }))
  })

  it("does not judge growth under 50 tokens, nor a request that grew with its estimate, nor missing usage", () => {
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 3_705, estimate: 3_790 }))
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 3_800, estimate: 3_820 }))
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 0, estimate: 9_000 }))
  })

  it("a compaction request smaller than the last good one is judged by the collapse rule", () => {
    // ctxkit sends only the replaced span: the growth rule has nothing to measure.
    assert.isTrue(compactionRequestTruncated(lastGood, { tokens: 63, estimate: 2_500 }))
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 2_400, estimate: 2_500 }))
    // The seed's lowest honest ratio (0.22) is never a collapse; under 500 estimated tokens nothing is decided.
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 550, estimate: 2_500 }))
    assert.isFalse(compactionRequestTruncated(lastGood, { tokens: 10, estimate: 480 }))
  })

  it("without a last good request, only a collapse is flagged", () => {
    assert.isTrue(compactionRequestTruncated(undefined, { tokens: 63, estimate: 3_975 }))
    assert.isFalse(compactionRequestTruncated(undefined, { tokens: 3_705, estimate: 3_820 }))
  })

  it("says what happened, with the numbers, and how to fix it", () => {
    assert.strictEqual(
      truncatedRequestMessage({ tokens: 3_705, estimate: 3_820 }),
      "The server dropped part of the compaction request (3705 prompt tokens reported for an estimated 3820), " +
        "so its summary would miss part of the conversation; the conversation was left as it was. " +
        "Set the model's real context window so that requests are not cut on the server."
    )
  })
})

describe("checkpointShrinks", () => {
  it("is after < before", () => {
    assert.isTrue(checkpointShrinks(12_000, 3_000))
    assert.isFalse(checkpointShrinks(3_000, 3_000))
    assert.isFalse(checkpointShrinks(1_200, 1_500))
    assert.isFalse(checkpointShrinks(Number.NaN, 1))
    assert.isFalse(checkpointShrinks(1, Number.NaN))
  })
})

describe("compactionStalled", () => {
  it("is a drop of under 5% of known usage", () => {
    assert.strictEqual(STALL_MIN_DROP, 0.05)
    assert.isTrue(compactionStalled(100_000, 97_000))
    assert.isTrue(compactionStalled(100_000, 95_001))
    assert.isTrue(compactionStalled(100_000, 120_000))
    assert.isFalse(compactionStalled(100_000, 95_000))
    assert.isFalse(compactionStalled(100_000, 60_000))
  })

  it("never decides on unknown usage", () => {
    for (const [before, after] of [[0, 97_000], [100_000, 0], [Number.NaN, 1], [1, Number.NaN], [-5, -5]] as const) {
      assert.isFalse(compactionStalled(before, after), `${before} → ${after}`)
    }
    assert.isFalse(compactionStalled(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY))
  })
})

describe("StallGuard", () => {
  it("allows auto-compaction until a compaction stalls", () => {
    assert.deepStrictEqual(StallGuard.initial, {})
    assert.isTrue(StallGuard.allowsAuto(StallGuard.initial, 1_000_000))
    assert.isTrue(StallGuard.allowsAuto(StallGuard.initial, Number.NaN))
  })

  it("after a stall, waits for 5% growth past the stalled level", () => {
    const stalled = StallGuard.afterCompaction(StallGuard.initial, 100_000, 97_000)
    assert.deepStrictEqual(stalled, { stalledAt: 97_000 })
    assert.isFalse(StallGuard.allowsAuto(stalled, 97_000))
    assert.isFalse(StallGuard.allowsAuto(stalled, 101_849))
    assert.isTrue(StallGuard.allowsAuto(stalled, 101_850))
    assert.isFalse(StallGuard.allowsAuto(stalled, Number.NaN))
  })

  it("a compaction that did not stall clears it; unknown usage leaves it", () => {
    const stalled = StallGuard.afterCompaction(StallGuard.initial, 100_000, 97_000)
    assert.deepStrictEqual(StallGuard.afterCompaction(stalled, 110_000, 40_000), {})
    assert.strictEqual(StallGuard.afterCompaction(stalled, 110_000, 0), stalled)
    assert.strictEqual(StallGuard.afterCompaction(stalled, Number.NaN, 40_000), stalled)
    // A second stall moves the level.
    assert.deepStrictEqual(StallGuard.afterCompaction(stalled, 102_000, 101_000), { stalledAt: 101_000 })
  })
})

describe("compactionAttempt", () => {
  const canonical = formats.canonical
  const long = "x".repeat(5_000)
  const span: ReadonlyArray<Message> = deepFreeze([
    { role: "user", content: "[Checkpoint of 9 earlier messages, generated by context compaction]", summary: true },
    { role: "user", content: "Read the log." },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", content: long },
    { role: "user", content: "Now the config." },
    { role: "assistant", content: "", toolCalls: [{ id: "c2", name: "read", arguments: "{}" }] },
    { role: "tool", toolCallId: "c2", content: "short" },
    { role: "user", content: "Fix it." }
  ])

  it("lists the ladder in order", () => {
    assert.deepStrictEqual(COMPACTION_ATTEMPT_STEPS, ["full", "reduced-tool-results", "last-user-turns"])
  })

  it("full: the same array", () => {
    assert.strictEqual(compactionAttempt(span, "full", { format: canonical }), span)
  })

  it("reduced-tool-results: cuts long result texts, keeps every message and every untouched object", () => {
    const reduced = compactionAttempt(span, "reduced-tool-results", { format: canonical })
    assert.strictEqual(reduced.length, span.length)
    assert.deepStrictEqual(reduced[3], { role: "tool", toolCallId: "c1", content: `${"x".repeat(1_024)}… [truncated]` })
    reduced.forEach((message, i) => {
      if (i !== 3) assert.strictEqual(message, span[i])
    })
    assert.deepStrictEqual(
      compactionAttempt(span, "reduced-tool-results", { format: canonical, toolResultChars: 10 })[6],
      span[6],
      "a text of 5 is not cut"
    )
    assert.strictEqual(
      compactionAttempt(span, "reduced-tool-results", { format: canonical, toolResultChars: 5_000 }),
      span
    )
  })

  it("reduced-tool-results: cuts only when it saves something, and never splits a surrogate pair", () => {
    const result = (content: string): Message => ({ role: "tool", toolCallId: "c", content })
    const call: Message = { role: "assistant", content: "", toolCalls: [{ id: "c", name: "t", arguments: "" }] }
    const justOver = [call, result("y".repeat(1_024 + 13))]
    assert.strictEqual(compactionAttempt(justOver, "reduced-tool-results", { format: canonical }), justOver)
    const pair = [call, result("z".repeat(1_023) + "🚀" + "z".repeat(100))]
    assert.strictEqual(
      canonical.ownText(compactionAttempt(pair, "reduced-tool-results", { format: canonical })[1]!),
      `${"z".repeat(1_023)}… [truncated]`
    )
  })

  it("reduced-tool-results: anthropic results inside a user message", () => {
    const messages: ReadonlyArray<AnthropicMessage> = [
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "cat", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "q".repeat(2_000) }] }
    ]
    const reduced = compactionAttempt(messages, "reduced-tool-results", { format: formats.anthropic })
    assert.strictEqual(reduced[0], messages[0])
    assert.deepStrictEqual(formats.anthropic.toolResults(reduced[1]!), [
      { callId: "t1", isError: false, text: `${"q".repeat(1_024)}… [truncated]` }
    ])
  })

  it("last-user-turns: from the N-th last user message, with the latest earlier checkpoint first", () => {
    const two = compactionAttempt(span, "last-user-turns", { format: canonical })
    assert.deepStrictEqual(two, [span[0], span[4], span[5], span[6], span[7]])
    assert.strictEqual(two[0], span[0])
    assert.strictEqual(two[1], span[4])
    const one = compactionAttempt(span, "last-user-turns", { format: canonical, lastUserTurns: 1 })
    assert.deepStrictEqual(one, [span[0], span[7]])
    const three = compactionAttempt(span, "last-user-turns", { format: canonical, lastUserTurns: 3 })
    assert.deepStrictEqual(three, [span[0], span[1], span[2], {
      ...span[3],
      content: `${"x".repeat(1_024)}… [truncated]`
    }, ...span.slice(4)])
    // Four user turns (the checkpoint counts): the whole span, results reduced.
    const all = compactionAttempt(span, "last-user-turns", { format: canonical, lastUserTurns: 4 })
    assert.deepStrictEqual(all, compactionAttempt(span, "reduced-tool-results", { format: canonical }))
    assert.deepStrictEqual(compactionAttempt(span, "last-user-turns", { format: canonical, lastUserTurns: 0 }), one)
    assert.deepStrictEqual(
      compactionAttempt(span, "last-user-turns", { format: canonical, lastUserTurns: Number.NaN }),
      two
    )
  })

  it("last-user-turns: a user message inside a tool-call group moves the start earlier", () => {
    // c1 is answered after the user speaks: starting at the user message would orphan its result.
    const messages: ReadonlyArray<Message> = [
      { role: "user", content: "Start." },
      { role: "assistant", content: "ok" },
      { role: "user", content: "Build it." },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "build", arguments: "{}" }] },
      { role: "user", content: "Also lint." },
      { role: "tool", toolCallId: "c1", content: "built" },
      { role: "assistant", content: "done" }
    ]
    assert.deepStrictEqual(
      compactionAttempt(messages, "last-user-turns", { format: canonical, lastUserTurns: 1 }),
      messages.slice(3)
    )
  })

  it("last-user-turns: moves later when earlier would keep everything", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "watch", arguments: "{}" }] },
      { role: "user", content: "Keep going." },
      { role: "assistant", content: "ok" },
      { role: "tool", toolCallId: "c1", content: "changed" },
      { role: "assistant", content: "seen" },
      { role: "user", content: "Stop." }
    ]
    assert.deepStrictEqual(
      compactionAttempt(messages, "last-user-turns", { format: canonical, lastUserTurns: 2 }),
      messages.slice(4)
    )
  })

  const closed = (messages: ReadonlyArray<unknown>, format: MessageFormat<unknown>): boolean =>
    !toolGroups(messages, format).diagnostics.some((d) => d._tag === "OrphanResult" || d._tag === "DanglingCall")

  for (const name of formatNames) {
    it(`${name}: every attempt is pair-closed, keeps ids and order, and never touches its input`, () => {
      const format = formatOf(name)
      fc.assert(
        fc.property(
          conversation(name, { maxTurns: 24, huge: false }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 200 }),
          (rendered, lastUserTurns, toolResultChars) => {
            const input = deepFreeze(rendered.messages)
            const snapshot = structuredClone(input)
            assert.isTrue(closed(input, format), "the generated span is pair-closed")
            for (const step of COMPACTION_ATTEMPT_STEPS) {
              const options = { format, lastUserTurns, toolResultChars }
              const attempt = compactionAttempt(input, step, options)
              assert.isTrue(closed(attempt, format), `${step} is pair-closed`)
              assert.isTrue(deepEqual(attempt, compactionAttempt(input, step, options)), `${step} is deterministic`)
              assert.isAtMost(attempt.length, input.length)
              // Call ids, in order, are a suffix of the input's (a prepended checkpoint carries none).
              const ids = (messages: ReadonlyArray<unknown>) =>
                messages.flatMap((m) => [
                  ...format.toolCalls(m).map((c) => c.id),
                  ...format.toolResults(m).map((r) => r.callId)
                ])
              const inputIds = ids(input)
              const attemptIds = ids(attempt)
              assert.deepStrictEqual(attemptIds, inputIds.slice(inputIds.length - attemptIds.length))
            }
            assert.isTrue(deepEqual(input, snapshot))
            const reduced = compactionAttempt(input, "reduced-tool-results", { format, toolResultChars })
            assert.strictEqual(reduced.length, input.length)
            reduced.forEach((message, i) => {
              if (message === input[i]) return
              assert.strictEqual(format.role(message), format.role(input[i]))
              assert.deepStrictEqual(format.toolCalls(message), format.toolCalls(input[i]))
              format.toolResults(message).forEach((r, k) => {
                assert.isAtMost(r.text.length, toolResultChars + "… [truncated]".length)
                assert.strictEqual(r.callId, format.toolResults(input[i])[k]?.callId)
              })
            })
          }
        ),
        { numRuns: runs.some }
      )
    })
  }
})
