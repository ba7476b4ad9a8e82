/**
 * The hard limit: within it nothing happens; over it the tail is reduced, then the last-chance compaction runs
 * (at most once per turn), and only then the failure names exactly what compaction did.
 */
import {
  compact,
  type CompactionEvent,
  type CompactionOutcome,
  ensureWithinBudget,
  reduceToBudget,
  type SummarizeFn,
  SummarizerError
} from "@ctxkit/compaction"
import { type CompactionFailed, ContextBudgetExceeded, formats, type Message } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  COMPACTION_DISABLED,
  COMPACTION_RAN_NOT_ENOUGH,
  COMPACTION_SKIPPED_NO_BOUNDARY,
  DEFAULT_BUDGET_ADVICE
} from "../src/BudgetExceeded.ts"
import { hardLimitTarget, MIN_REDUCTION_TARGET_CHARS } from "../src/EnsureWithinBudget.ts"
import { transcriptChars } from "../src/ReduceToBudget.ts"

const format = formats.canonical

const summarizeOk: SummarizeFn = () =>
  Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"Keep working on the report\"}}", finishReason: "stop" })

/** A last-chance compaction that counts its calls. */
const lastChance = (summarize: SummarizeFn = summarizeOk) => {
  let calls = 0
  const run = (history: ReadonlyArray<Message>): Effect.Effect<CompactionOutcome<Message>, CompactionFailed> => {
    calls++
    return compact(history, { reason: "budget", format, keepTurns: 1, summarize })
  }
  return { run, calls: () => calls }
}

/** `turns` user/assistant turns whose texts are `size` characters each, then a short request. */
const chatty = (turns: number, size: number): ReadonlyArray<Message> => {
  const out: Array<Message> = []
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", content: `question ${i} ${"q".repeat(size)}` })
    out.push({ role: "assistant", content: `answer ${i} ${"a".repeat(size)}` })
  }
  out.push({ role: "user", content: "Summarize the report." })
  return deepFreeze(out)
}

const grep: ReadonlyArray<Message> = deepFreeze([
  { role: "user", content: "Grep everything." },
  { role: "assistant", content: "", toolCalls: [{ id: "g", name: "grep", arguments: "{}" }] },
  { role: "tool", toolCallId: "g", content: "match\n".repeat(5_000) },
  { role: "assistant", content: "Found 5000 matches." }
])

const failure = <A>(effect: Effect.Effect<A, ContextBudgetExceeded>) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    assert.instanceOf(error, ContextBudgetExceeded)
    return error
  })

describe("hardLimitTarget", () => {
  it("max(4,000, maxContextChars − instructions)", () => {
    assert.strictEqual(MIN_REDUCTION_TARGET_CHARS, 4_000)
    assert.strictEqual(hardLimitTarget(800_000, 12_000), 788_000)
    assert.strictEqual(hardLimitTarget(10_000, 9_000), 4_000)
    assert.strictEqual(hardLimitTarget(5_000, 20_000), 4_000)
  })
})

describe("ensureWithinBudget", () => {
  it.effect("within the limit: the same array, nothing emitted, no compaction", () =>
    Effect.gen(function*() {
      const compaction = lastChance()
      const emitted: Array<CompactionEvent> = []
      const result = yield* ensureWithinBudget(grep, {
        format,
        instructionsChars: 1_000,
        compact: compaction.run,
        emit: (e) => Effect.sync(() => emitted.push(e))
      })
      assert.strictEqual(result.messages, grep)
      assert.deepStrictEqual(
        { reduced: result.reduced, lastChance: result.lastChance, chars: result.chars, events: result.events },
        { reduced: 0, lastChance: false, chars: 1_000 + transcriptChars(grep, format), events: [] }
      )
      assert.deepStrictEqual(emitted, [])
      assert.strictEqual(compaction.calls(), 0)
    }))

  it.effect("the tool catalog is not counted: only instructions + transcript", () =>
    Effect.gen(function*() {
      const size = transcriptChars(grep, format)
      const exact = yield* ensureWithinBudget(grep, { format, maxContextChars: size + 500, instructionsChars: 500 })
      assert.strictEqual(exact.messages, grep)
      const over = yield* ensureWithinBudget(grep, { format, maxContextChars: size + 499, instructionsChars: 500 })
      assert.notStrictEqual(over.messages, grep)
    }))

  it.effect("over the limit: reduced only, context_reduced emitted, persisted; no compaction", () =>
    Effect.gen(function*() {
      const compaction = lastChance()
      const emitted: Array<CompactionEvent> = []
      const persisted: Array<ReadonlyArray<Message>> = []
      const result = yield* ensureWithinBudget(grep, {
        format,
        maxContextChars: 12_000,
        instructionsChars: 2_000,
        compact: compaction.run,
        emit: (e) => Effect.sync(() => emitted.push(e)),
        persist: (m) => Effect.sync(() => persisted.push(m))
      })
      const expected = reduceToBudget(grep, 10_000, { format })
      assert.deepStrictEqual(result.messages, expected.messages)
      assert.strictEqual(result.messages[0], grep[0])
      assert.strictEqual(result.reduced, 1)
      assert.isFalse(result.lastChance)
      assert.strictEqual(result.chars, 2_000 + expected.chars)
      assert.isAtMost(result.chars, 12_000)
      const event: CompactionEvent = {
        type: "context_reduced",
        data: {
          messages: 1,
          reason: "hard-limit",
          tokensSaved: Math.floor((expected.charsBefore - expected.chars) / 4)
        }
      }
      assert.deepStrictEqual(emitted, [event])
      assert.deepStrictEqual(result.events, [event])
      assert.deepStrictEqual(persisted, [expected.messages])
      assert.strictEqual(compaction.calls(), 0)
    }))

  it.effect("last chance: reduction is not enough, one compaction with reason budget, then it fits", () =>
    Effect.gen(function*() {
      const history = chatty(12, 2_000)
      const compaction = lastChance()
      const emitted: Array<CompactionEvent> = []
      const result = yield* ensureWithinBudget(history, {
        format,
        maxContextChars: 10_000,
        compact: compaction.run,
        emit: (e) => Effect.sync(() => emitted.push(e))
      })
      assert.strictEqual(compaction.calls(), 1)
      assert.isTrue(result.lastChance)
      assert.isAtMost(result.chars, 10_000)
      assert.strictEqual(result.compaction?._tag, "Compacted")
      assert.strictEqual(result.messages.length, 2)
      assert.deepStrictEqual(result.messages[1], history[history.length - 1])
      assert.deepStrictEqual(result.events.map((e) => e.type), [
        "context_reduced",
        "compaction_started",
        "compaction_completed"
      ])
      const started = result.events[1]
      assert.isTrue(started?.type === "compaction_started" && started.data.reason === "budget")
      // Only its own events go through `emit`: the compaction emits its own.
      assert.deepStrictEqual(emitted.map((e) => e.type), ["context_reduced"])
    }))

  it.effect("at most once per turn: lastChanceUsed → no compaction; WHAT = ran but not enough", () =>
    Effect.gen(function*() {
      const history = chatty(12, 2_000)
      const compaction = lastChance()
      const error = yield* failure(
        ensureWithinBudget(history, { format, maxContextChars: 10_000, lastChanceUsed: true, compact: compaction.run })
      )
      assert.strictEqual(compaction.calls(), 0)
      const reduced = reduceToBudget(history, 10_000, { format })
      assert.strictEqual(error.what, COMPACTION_RAN_NOT_ENOUGH)
      assert.strictEqual(error.conversationChars, reduced.chars)
      assert.strictEqual(
        error.message,
        `Context budget exceeded (approximately ${reduced.chars} characters of conversation; limit 10000). Automatic compaction ran but could not reduce it enough. ${DEFAULT_BUDGET_ADVICE}`
      )
    }))

  it.effect("WHAT = ran but not enough: the compaction ran and the instructions leave no room", () =>
    Effect.gen(function*() {
      const history = chatty(12, 2_000)
      const compaction = lastChance()
      const error = yield* failure(
        ensureWithinBudget(history, {
          format,
          maxContextChars: 10_000,
          instructionsChars: 9_950,
          compact: compaction.run,
          advice: "Shorten the system prompt."
        })
      )
      assert.strictEqual(compaction.calls(), 1)
      assert.strictEqual(error.what, COMPACTION_RAN_NOT_ENOUGH)
      assert.isAbove(error.conversationChars, 10_000)
      assert.strictEqual(
        error.message,
        `Context budget exceeded (approximately ${error.conversationChars} characters of conversation; limit 10000). Automatic compaction ran but could not reduce it enough. Shorten the system prompt.`
      )
    }))

  it.effect("WHAT = skipped, no safe boundary: a single long turn", () =>
    Effect.gen(function*() {
      const single: ReadonlyArray<Message> = deepFreeze([
        { role: "user", content: "x".repeat(20_000) },
        { role: "assistant", content: "y".repeat(20_000) }
      ])
      const compaction = lastChance()
      const error = yield* failure(
        ensureWithinBudget(single, {
          format,
          maxContextChars: 4_000,
          instructionsChars: 3_500,
          compact: compaction.run
        })
      )
      assert.strictEqual(compaction.calls(), 1)
      assert.strictEqual(error.what, COMPACTION_SKIPPED_NO_BOUNDARY)
      const reduced = reduceToBudget(single, 4_000, { format })
      assert.strictEqual(error.conversationChars, 3_500 + reduced.chars)
      assert.strictEqual(
        error.message,
        `Context budget exceeded (approximately ${
          3_500 + reduced.chars
        } characters of conversation; limit 4000). Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short). ${DEFAULT_BUDGET_ADVICE}`
      )
    }))

  it.effect("WHAT = failed (<error>): the compaction failed", () =>
    Effect.gen(function*() {
      const compaction = lastChance(() => Effect.fail(new SummarizerError({ message: "HTTP 503 from the provider" })))
      const error = yield* failure(
        ensureWithinBudget(chatty(12, 2_000), { format, maxContextChars: 10_000, compact: compaction.run })
      )
      assert.strictEqual(error.what, "Automatic compaction failed (HTTP 503 from the provider).")
      assert.include(error.message, "). Automatic compaction failed (HTTP 503 from the provider). Run /compact")
    }))

  it.effect("WHAT = failed, when no last-chance compaction was configured", () =>
    Effect.gen(function*() {
      const error = yield* failure(ensureWithinBudget(chatty(12, 2_000), { format, maxContextChars: 10_000 }))
      assert.strictEqual(error.what, "Automatic compaction failed (no last-chance compaction was configured).")
    }))

  it.effect("WHAT = disabled: auto false never compacts", () =>
    Effect.gen(function*() {
      const compaction = lastChance()
      const persisted: Array<ReadonlyArray<Message>> = []
      const history = chatty(12, 2_000)
      const error = yield* failure(
        ensureWithinBudget(history, {
          format,
          maxContextChars: 10_000,
          auto: false,
          compact: compaction.run,
          persist: (m) => Effect.sync(() => persisted.push(m))
        })
      )
      assert.strictEqual(compaction.calls(), 0)
      assert.strictEqual(error.what, COMPACTION_DISABLED)
      assert.strictEqual(
        error.message,
        `Context budget exceeded (approximately ${error.conversationChars} characters of conversation; limit 10000). Automatic compaction is disabled (compaction.auto is false). ${DEFAULT_BUDGET_ADVICE}`
      )
      // The reduction is persisted even though the request cannot be sent.
      assert.deepStrictEqual(persisted, [reduceToBudget(history, 10_000, { format }).messages])
    }))

  it.effect("a bad maxContextChars means the default 800,000", () =>
    Effect.gen(function*() {
      const result = yield* ensureWithinBudget(grep, { format, maxContextChars: Number.NaN })
      assert.strictEqual(result.messages, grep)
    }))
})
