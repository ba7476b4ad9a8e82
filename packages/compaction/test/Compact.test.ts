/**
 * `compact` end to end with scripted summarizers, in the canonical, OpenAI chat, Anthropic and OpenAI Responses
 * formats: the happy path, the text fallback, partial and rejected summaries, every failure (with the history
 * untouched), the retry ladder, skips, plugin hooks and the order and data of the events.
 */
import { conversationCost, estimateTokens, makeCostCache } from "@ctxkit/budget"
import {
  compact,
  type CompactionEvent,
  type CompactionOutcome,
  type CompactionPlugin,
  compactionPresets,
  defaultContextPolicy,
  ingestCharCap,
  planCompaction,
  Summarizer,
  SummarizerError,
  type SummaryReply,
  type SummaryRequest
} from "@ctxkit/compaction"
import type { CompactOptions } from "@ctxkit/compaction/Compact"
import { CompactionFailed, formats, type Message, type MessageFormat, toolGroups } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { checkpointTooLargeMessage, requestTooLargeMessage } from "../src/Compact.ts"
import { truncatedRequestMessage } from "../src/Guards.ts"
import { acceptSummaryReply, CUT_EMPTY_MESSAGE, EMPTY_SUMMARY_MESSAGE } from "../src/SummaryReplyPolicy.ts"

const BIG = "line of build output\n".repeat(200)

const canonical: ReadonlyArray<Message> = deepFreeze([
  { role: "user", content: "Fix the build in src/a.ts." },
  {
    role: "assistant",
    content: "Reading it.",
    toolCalls: [{ id: "c1", name: "read_file", arguments: "{\"path\":\"src/a.ts\"}" }]
  },
  { role: "tool", toolCallId: "c1", toolName: "read_file", content: BIG },
  { role: "assistant", content: "The import was wrong; fixed." },
  { role: "user", content: "Now run the tests." },
  { role: "assistant", content: "", toolCalls: [{ id: "c2", name: "run_tests", arguments: "{}" }] },
  { role: "tool", toolCallId: "c2", toolName: "run_tests", content: "42 passed" },
  { role: "assistant", content: "All 42 pass." },
  { role: "user", content: "Ship it." }
])

const STRUCTURED =
  "{\"checkpoint\":{\"goal\":\"Ship the build fix\",\"accomplished\":[\"fixed the import in src/a.ts\",\"42 tests pass\"],\"nextSteps\":[\"ship\"],\"relevantFiles\":[\"src/a.ts\"]}}"

const RENDERED = [
  "## Goal\nShip the build fix",
  "## User instructions/constraints\n- (none)",
  "## Discoveries\n- (none)",
  "## Accomplished\n- fixed the import in src/a.ts\n- 42 tests pass",
  "## Current state\n(none)",
  "## Next steps\n- ship",
  "## Relevant files\n- src/a.ts"
].join("\n\n")

/** A summarizer that records its requests and answers with `reply` (or what `answer` computes). */
const scripted = (answer: SummaryReply | ((request: SummaryRequest) => SummaryReply)) => {
  const requests: Array<SummaryRequest> = []
  const summarize = (request: SummaryRequest) =>
    Effect.sync(() => {
      requests.push(request)
      return typeof answer === "function" ? answer(request) : answer
    })
  return { requests, summarize }
}

const reply = (text: string, finishReason: SummaryReply["finishReason"] = "stop"): SummaryReply => ({
  text,
  finishReason
})

const tokens = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): number =>
  conversationCost(messages, { format }).total

/** Runs a compaction that must fail and returns its error and the events it emitted. */
const failing = <M>(
  history: ReadonlyArray<M>,
  options: CompactOptions<M> & { readonly summarize: CompactOptions<M>["summarize"] & {} }
) =>
  Effect.gen(function*() {
    const emitted: Array<CompactionEvent> = []
    const exit = yield* Effect.exit(compact(history, { ...options, emit: (e) => Effect.sync(() => emitted.push(e)) }))
    assert.isTrue(Exit.isFailure(exit), "expected the compaction to fail")
    const error = yield* Effect.flip(compact(history, options))
    return { error, emitted }
  })

const compacted = <M>(outcome: CompactionOutcome<M>) => {
  assert.strictEqual(outcome._tag, "Compacted")
  if (outcome._tag !== "Compacted") throw new Error("unreachable")
  return outcome
}

describe("compact — the hook timeout is a Duration", () => {
  it.effect("\"500 millis\" times a hanging hook out after 500 ms; an unusable value fails, naming the option", () =>
    Effect.gen(function*() {
      const { summarize } = scripted(reply(STRUCTURED))
      const hangs: CompactionPlugin = { name: "hangs", beforeCompact: () => Effect.never }
      const fiber = yield* Effect.forkChild(
        compact(canonical, {
          reason: "manual",
          format: formats.canonical,
          plugins: [hangs],
          summarize,
          hookTimeout: "500 millis"
        })
      )
      yield* TestClock.adjust("500 millis")
      const outcome = compacted(yield* Fiber.join(fiber))
      assert.deepStrictEqual(outcome.events[1], {
        type: "plugin_hook_failed",
        data: { source: "hangs", hook: "beforeCompact", error: "did not complete within 500 ms", continued: true }
      })
      const { error } = yield* failing(canonical, {
        reason: "manual",
        format: formats.canonical,
        summarize,
        hookTimeout: "soon" as Duration.Input
      })
      assert.instanceOf(error, CompactionFailed)
      assert.include(error.error, "options.hookTimeout must be a duration")
      assert.include(error.error, "\"soon\"")
    }))
})

describe("compact — canonical", () => {
  it.effect("happy path: structured checkpoint, kept turn untouched, events in order with their data", () =>
    Effect.gen(function*() {
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const emitted: Array<CompactionEvent> = []
      const outcome = compacted(
        yield* compact(canonical, {
          reason: "manual",
          format: formats.canonical,
          keepTurns: 1,
          focus: "the release",
          summarize,
          emit: (event) => Effect.sync(() => emitted.push(event))
        })
      )
      const checkpoint: Message = {
        role: "user",
        content: `[Checkpoint of 8 earlier messages, generated by context compaction]\n\n${RENDERED}`,
        summary: true
      }
      assert.deepStrictEqual(outcome.checkpoint, checkpoint)
      assert.deepStrictEqual(outcome.messages, [checkpoint, canonical[8]])
      assert.strictEqual(outcome.messages[1], canonical[8])
      assert.deepStrictEqual(outcome.replaced, canonical.slice(0, 8))
      assert.strictEqual(outcome.replaced[2], canonical[2])
      assert.strictEqual(outcome.plan.cut, 8)
      assert.isTrue(outcome.parsed.structured)
      assert.isFalse(outcome.partial)
      assert.strictEqual(outcome.attempt, "full")

      assert.strictEqual(requests.length, 1)
      const request = requests[0] as SummaryRequest
      assert.strictEqual(outcome.request, request)
      assert.strictEqual(request.maxOutputTokens, 16_000)
      assert.isTrue(
        request.prompt.startsWith(
          "Checkpoint this session transcript.\n\nAdditional focus requested by the user: the release\n\n<transcript>\nUSER: Fix the build in src/a.ts.\nASSISTANT: Reading it.\nTOOL CALL c1 read_file: {\"path\":\"src/a.ts\"}\nTOOL RESULT c1: line of build output"
        )
      )
      assert.isTrue(request.prompt.endsWith("ASSISTANT: All 42 pass.\n</transcript>"))
      assert.notInclude(request.prompt, "Ship it.")

      const before = tokens(canonical, formats.canonical)
      const after = tokens(outcome.messages, formats.canonical)
      assert.strictEqual(outcome.before, before)
      assert.strictEqual(outcome.after, after)
      assert.isBelow(after, before)
      const expected: ReadonlyArray<CompactionEvent> = [
        { type: "compaction_started", data: { reason: "manual", before, messages: 9 } },
        {
          type: "compaction_completed",
          data: {
            reason: "manual",
            before,
            after,
            replaced: 8,
            structured: true,
            summarizedTokens: tokens(canonical.slice(0, 8), formats.canonical),
            checkpointTokens: tokens([checkpoint], formats.canonical),
            plugins: []
          }
        }
      ]
      assert.deepStrictEqual(emitted, expected)
      assert.deepStrictEqual(outcome.events, expected)
      assert.isFalse("partial" in (emitted[1]?.data ?? {}))
    }))

  it.effect("text fallback: a reply that is not the JSON becomes a text-only checkpoint", () =>
    Effect.gen(function*() {
      const { summarize } = scripted(reply("  We fixed the import in src/a.ts and all 42 tests pass.  "))
      const outcome = compacted(yield* compact(canonical, { reason: "auto", format: formats.canonical, summarize }))
      assert.strictEqual(outcome.plan.cut, 4)
      assert.deepStrictEqual(outcome.checkpoint, {
        role: "user",
        content:
          "[Checkpoint of 4 earlier messages, generated by context compaction]\n\nWe fixed the import in src/a.ts and all 42 tests pass.",
        summary: true
      })
      assert.deepStrictEqual(outcome.messages.slice(1), canonical.slice(4))
      assert.isFalse(outcome.parsed.structured)
      const completed = outcome.events[1]
      assert.isTrue(completed?.type === "compaction_completed" && completed.data.structured === false)
    }))

  it.effect("a cut summary with usable text is kept and marked partial", () =>
    Effect.gen(function*() {
      const { summarize } = scripted(reply("{\"checkpoint\":{\"goal\":\"Ship the", "length"))
      const outcome = compacted(yield* compact(canonical, { reason: "auto", format: formats.canonical, summarize }))
      assert.isTrue(outcome.partial)
      assert.isFalse(outcome.parsed.structured)
      const completed = outcome.events[outcome.events.length - 1]
      assert.isTrue(completed?.type === "compaction_completed" && completed.data.partial === true)
    }))

  it.effect("under \"reject\" (the tutorial preset) a cut summary fails and leaves the history", () =>
    Effect.gen(function*() {
      const cut = reply("{\"checkpoint\":{\"goal\":\"Ship the", "length")
      const { error, emitted } = yield* failing(canonical, {
        reason: "auto",
        format: formats.canonical,
        partialSummaries: compactionPresets.tutorial.partialSummaries,
        summarize: scripted(cut).summarize
      })
      const expected = Result.getFailure(acceptSummaryReply(cut, { partialSummaries: "reject" }))
      assert.isTrue(expected._tag === "Some")
      const message = expected._tag === "Some" ? expected.value.message : ""
      assert.instanceOf(error, CompactionFailed)
      assert.deepStrictEqual({ reason: error.reason, error: error.error }, { reason: "auto", error: message })
      assert.deepStrictEqual(emitted.map((e) => e.type), ["compaction_started", "compaction_failed"])
      assert.deepStrictEqual(emitted[1]?.data, { reason: "auto", error: message })
    }))

  it.effect("cut before any usable text, empty, refused: each fails with its message", () =>
    Effect.gen(function*() {
      const run = (r: SummaryReply) =>
        failing(canonical, { reason: "manual", format: formats.canonical, summarize: scripted(r).summarize })
      const cutEmpty = yield* run(reply("   ", "length"))
      assert.strictEqual(cutEmpty.error.error, CUT_EMPTY_MESSAGE)
      assert.strictEqual(
        cutEmpty.error.message,
        "Compaction failed (Compaction summary was cut off before any usable text was produced; raise compaction.maxOutputTokens). The history was left unchanged; retry, or run /compact with a different summarizer model."
      )
      const empty = yield* run(reply(""))
      assert.strictEqual(empty.error.error, EMPTY_SUMMARY_MESSAGE)
      assert.strictEqual(empty.error.error, "Summarizer returned an empty summary")
      const refused = yield* run(reply("I can't help with that.", "refusal"))
      assert.match(refused.error.error, /^The summarizer declined/)
      assert.deepStrictEqual(refused.emitted[1], {
        type: "compaction_failed",
        data: { reason: "manual", error: refused.error.error }
      })
    }))

  it.effect("a summarizer error or defect fails the compaction with its message", () =>
    Effect.gen(function*() {
      const failed = yield* failing(canonical, {
        reason: "auto",
        format: formats.canonical,
        summarize: () => Effect.fail(new SummarizerError({ message: "HTTP 503 from the provider" }))
      })
      assert.deepStrictEqual([failed.error.reason, failed.error.error], ["auto", "HTTP 503 from the provider"])
      assert.deepStrictEqual(failed.emitted[1]?.data, { reason: "auto", error: "HTTP 503 from the provider" })
      const died = yield* failing(canonical, {
        reason: "auto",
        format: formats.canonical,
        summarize: () => Effect.die(new Error("socket hang up"))
      })
      assert.strictEqual(died.error.error, "socket hang up")
    }))

  it.effect("a truncated compaction request is refused before anything else, the history untouched", () =>
    Effect.gen(function*() {
      const snapshot = structuredClone(canonical)
      let sent = { tokens: 0, estimate: 0 }
      const summarize = (request: SummaryRequest) =>
        Effect.sync((): SummaryReply => {
          const estimate = estimateTokens(request.system).tokens + estimateTokens(request.prompt).tokens
          sent = { tokens: 105, estimate }
          return { text: STRUCTURED, finishReason: "stop", promptTokens: 105 }
        })
      const plugin: CompactionPlugin = {
        name: "watch",
        afterCompact: () => Effect.die("afterCompact must not run after a truncated request")
      }
      const { error, emitted } = yield* failing(canonical, {
        reason: "auto",
        format: formats.canonical,
        lastGoodSample: { tokens: 100, estimate: 100 },
        plugins: [plugin],
        summarize
      })
      assert.isAbove(sent.estimate, 150)
      assert.strictEqual(error.error, truncatedRequestMessage(sent))
      assert.deepStrictEqual(emitted.map((e) => e.type), ["compaction_started", "compaction_failed"])
      assert.deepStrictEqual(canonical, snapshot)
    }))

  it.effect("a request whose reported usage keeps up is not refused", () =>
    Effect.gen(function*() {
      const summarize = (request: SummaryRequest) =>
        Effect.succeed<SummaryReply>({
          text: STRUCTURED,
          finishReason: "stop",
          promptTokens: estimateTokens(request.system).tokens + estimateTokens(request.prompt).tokens
        })
      const outcome = yield* compact(canonical, {
        reason: "auto",
        format: formats.canonical,
        lastGoodSample: { tokens: 100, estimate: 100 },
        summarize
      })
      assert.strictEqual(outcome._tag, "Compacted")
    }))

  it.effect("shrink guard: a checkpoint that would not make the context smaller is refused", () =>
    Effect.gen(function*() {
      const small: ReadonlyArray<Message> = deepFreeze([
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
        { role: "user", content: "c" },
        { role: "assistant", content: "d" },
        { role: "user", content: "e" }
      ])
      const { error, emitted } = yield* failing(small, {
        reason: "auto",
        format: formats.canonical,
        keepTurns: 1,
        summarize: scripted(reply("A long summary of two words. ".repeat(20))).summarize
      })
      const before = tokens(small, formats.canonical)
      assert.match(
        error.error,
        /^The checkpoint would not make the context smaller \(about \d+ tokens before, \d+ after\)/
      )
      const after = Number(/(\d+) after/.exec(error.error)?.[1])
      assert.strictEqual(error.error, checkpointTooLargeMessage(before, after))
      assert.isAtLeast(after, before)
      assert.strictEqual(emitted[emitted.length - 1]?.type, "compaction_failed")
    }))

  it.effect("nothing to summarize: skipped, with the planner's detail", () =>
    Effect.gen(function*() {
      const tiny: ReadonlyArray<Message> = deepFreeze([{ role: "user", content: "hi" }])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = yield* compact(tiny, { reason: "budget", format: formats.canonical, summarize })
      const noPlan = planCompaction(tiny, { format: formats.canonical })
      assert.strictEqual(outcome._tag, "Skipped")
      assert.strictEqual(requests.length, 0)
      if (outcome._tag !== "Skipped" || noPlan._tag !== "NoPlan") return
      assert.deepStrictEqual(outcome.noPlan, noPlan)
      assert.strictEqual(outcome.detail, noPlan.detail)
      const before = tokens(tiny, formats.canonical)
      assert.deepStrictEqual(outcome.events, [
        { type: "compaction_started", data: { reason: "budget", before, messages: 1 } },
        { type: "compaction_skipped", data: { reason: "budget", before, detail: noPlan.detail } }
      ])
    }))

  it.effect("an open call: skipped (open-call), the summarizer is never called", () =>
    Effect.gen(function*() {
      const open = canonical.slice(0, 6)
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = yield* compact(open, { reason: "auto", format: formats.canonical, summarize })
      assert.isTrue(outcome._tag === "Skipped" && outcome.noPlan.reason === "open-call")
      assert.strictEqual(requests.length, 0)
    }))

  it.effect("invalid options fail (they are not a skip)", () =>
    Effect.gen(function*() {
      const { error } = yield* failing(canonical, {
        reason: "manual",
        format: formats.canonical,
        keepTurns: 99,
        summarize: scripted(reply(STRUCTURED)).summarize
      })
      assert.match(error.error, /^keepTurns must be an integer from 0 to 20 \(got 99\)/)
    }))

  it.effect("the Summarizer service is used when no summarize function is given", () =>
    Effect.gen(function*() {
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = yield* compact(canonical, { reason: "manual", format: formats.canonical }).pipe(
        Effect.provide(Layer.succeed(Summarizer, Summarizer.of({ summarize })))
      )
      assert.strictEqual(outcome._tag, "Compacted")
      assert.strictEqual(requests.length, 1)
    }))

  it.effect("maxOutputTokens reaches the request", () =>
    Effect.gen(function*() {
      const { requests, summarize } = scripted(reply(STRUCTURED))
      yield* compact(canonical, { reason: "manual", format: formats.canonical, maxOutputTokens: 8_000, summarize })
      assert.strictEqual(requests[0]?.maxOutputTokens, 8_000)
    }))
})

describe("compact — counting", () => {
  it.effect("counts every message once (the estimates share one cost cache), and reuses a session's cache", () =>
    Effect.gen(function*() {
      const counted: Array<string> = []
      const counter = (text: string) => {
        counted.push(text)
        return Math.ceil(text.length / 4)
      }
      const { summarize } = scripted(reply(STRUCTURED))
      const options = { reason: "auto", format: formats.canonical, keepTurns: 1, summarize, counter } as const
      yield* compact(canonical, options)
      // Each history message once, the checkpoint once, and the request's system text and prompt.
      assert.strictEqual(counted.length, canonical.length + 1 + 2)
      counted.length = 0
      const cache = makeCostCache()
      yield* compact(canonical, { ...options, cache })
      const first = counted.length
      counted.length = 0
      yield* compact(canonical, { ...options, cache })
      // The second call finds the history (and an equal checkpoint object is new, so it is counted) in the cache.
      assert.strictEqual(first, canonical.length + 1 + 2)
      assert.strictEqual(counted.length, 1 + 2)
    }))
})

describe("compact — retry ladder", () => {
  it.effect("picks reduced-tool-results when the full request does not fit", () =>
    Effect.gen(function*() {
      const huge: ReadonlyArray<Message> = deepFreeze([
        { role: "user", content: "Grep the repo." },
        { role: "assistant", content: "", toolCalls: [{ id: "g1", name: "grep", arguments: "{}" }] },
        { role: "tool", toolCallId: "g1", content: "match ".repeat(600) },
        { role: "assistant", content: "", toolCalls: [{ id: "g2", name: "grep", arguments: "{}" }] },
        { role: "tool", toolCallId: "g2", content: "other ".repeat(600) },
        { role: "assistant", content: "Found them." },
        { role: "user", content: "Fix them." }
      ])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = compacted(
        yield* compact(huge, {
          reason: "auto",
          format: formats.canonical,
          keepTurns: 1,
          maxInputTokens: 1_200,
          summarize
        })
      )
      assert.strictEqual(outcome.attempt, "reduced-tool-results")
      const completed = outcome.events.find((e) => e.type === "compaction_completed")
      assert.strictEqual(
        completed?.type === "compaction_completed" ? completed.data.attempt : "none",
        "reduced-tool-results"
      )
      assert.include(requests[0]?.prompt ?? "", "… [truncated]")
      // The checkpoint replaces the whole span all the same.
      assert.deepStrictEqual(outcome.replaced, huge.slice(0, 6))
      const full = yield* compact(huge, { reason: "auto", format: formats.canonical, keepTurns: 1, summarize })
      assert.strictEqual(compacted(full).attempt, "full")
      const fullCompleted = compacted(full).events.find((e) => e.type === "compaction_completed")
      assert.isFalse(fullCompleted !== undefined && "attempt" in fullCompleted.data)
    }))

  it.effect("picks last-user-turns when reducing tool results is not enough; none fits → fails", () =>
    Effect.gen(function*() {
      const chatty: ReadonlyArray<Message> = deepFreeze([
        { role: "user", content: `first ${"a".repeat(3_000)}` },
        { role: "assistant", content: "ok 1" },
        { role: "user", content: `second ${"b".repeat(3_000)}` },
        { role: "assistant", content: "ok 2" },
        { role: "user", content: `third ${"c".repeat(3_000)}` },
        { role: "assistant", content: "ok 3" },
        { role: "user", content: `fourth ${"d".repeat(300)}` },
        { role: "assistant", content: "ok 4" },
        { role: "user", content: "Ship it." }
      ])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = compacted(
        yield* compact(chatty, {
          reason: "auto",
          format: formats.canonical,
          keepTurns: 1,
          maxInputTokens: 1_500,
          summarize
        })
      )
      assert.strictEqual(outcome.attempt, "last-user-turns")
      const completed = outcome.events.find((e) => e.type === "compaction_completed")
      assert.strictEqual(
        completed?.type === "compaction_completed" ? completed.data.attempt : "none",
        "last-user-turns"
      )
      const prompt = requests[0]?.prompt ?? ""
      assert.notInclude(prompt, "USER: first")
      assert.include(prompt, "USER: third")
      assert.include(prompt, "USER: fourth")
      assert.strictEqual(outcome.replaced.length, 8)

      const { error } = yield* failing(chatty, {
        reason: "auto",
        format: formats.canonical,
        keepTurns: 1,
        maxInputTokens: 100,
        summarize
      })
      assert.match(error.error, /^The compaction request does not fit the summarizer's input budget/)
      const estimate = Number(/about (\d+) tokens/.exec(error.error)?.[1])
      assert.strictEqual(error.error, requestTooLargeMessage(estimate, 100))
    }))
})

describe("compact — plugin hooks", () => {
  it.effect("instructions and fields reach the request; own fields only; inject context after the checkpoint; failures reported and compaction completes", () =>
    Effect.gen(function*() {
      const seen: Array<Readonly<Record<string, unknown>>> = []
      const memory: CompactionPlugin = {
        name: "memory",
        beforeCompact: () =>
          Effect.succeed({ instructions: "List the user's preferences.", outputFields: { memories: "string[]" } }),
        afterCompact: ({ extracted }) => {
          seen.push(extracted)
          return Effect.succeed({ injectContext: "Remembered: the user prefers tabs.", report: { summary: "1 saved" } })
        }
      }
      const todo: CompactionPlugin = {
        name: "todo",
        beforeCompact: () => Effect.succeed({ outputFields: { todos: "string[]" } }),
        afterCompact: ({ extracted }) => {
          seen.push(extracted)
          return Effect.never
        }
      }
      const broken: CompactionPlugin = {
        name: "broken",
        beforeCompact: () => Effect.fail("store offline")
      }
      const answer = "{\"checkpoint\":{\"goal\":\"Ship\"},\"memories\":[\"tabs\"],\"todos\":[\"release notes\"]}"
      const { requests, summarize } = scripted(reply(answer))
      const emitted: Array<CompactionEvent> = []
      const fiber = yield* Effect.forkChild(
        compact(canonical, {
          reason: "manual",
          format: formats.canonical,
          plugins: [memory, todo, broken],
          summarize,
          emit: (e) => Effect.sync(() => emitted.push(e))
        })
      )
      yield* TestClock.adjust("5 seconds")
      const outcome = compacted(yield* Fiber.join(fiber))
      const system = requests[0]?.system ?? ""
      assert.include(system, "List the user's preferences.")
      assert.include(system, "\"memories\": string[]")
      assert.include(system, "\"todos\": string[]")
      assert.deepStrictEqual(seen, [{ memories: ["tabs"] }, { todos: ["release notes"] }])
      const content = (outcome.checkpoint as Message).content
      assert.isTrue(
        typeof content === "string" &&
          content.endsWith(
            "## Goal\nShip\n\n## User instructions/constraints\n- (none)\n\n## Discoveries\n- (none)\n\n## Accomplished\n- (none)\n\n## Current state\n(none)\n\n## Next steps\n- (none)\n\n## Relevant files\n- (none)\n\nRemembered: the user prefers tabs."
          )
      )
      assert.deepStrictEqual(emitted.map((e) => e.type), [
        "compaction_started",
        "plugin_hook_failed",
        "plugin_hook_failed",
        "compaction_completed"
      ])
      assert.deepStrictEqual(emitted[1]?.data, {
        source: "broken",
        hook: "beforeCompact",
        error: "store offline",
        continued: true
      })
      assert.deepStrictEqual(emitted[2]?.data, {
        source: "todo",
        hook: "afterCompact",
        error: "did not complete within 5000 ms",
        continued: true
      })
      const completed = emitted[3]
      assert.isTrue(completed?.type === "compaction_completed")
      if (completed?.type === "compaction_completed") {
        assert.deepStrictEqual(completed.data.plugins, [{ name: "memory", summary: "1 saved" }])
      }
    }))
})

describe("compact — wire formats", () => {
  it.effect("OpenAI chat: the system prompt is retained before the checkpoint, not summarized", () =>
    Effect.gen(function*() {
      const history = deepFreeze([
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "Fix the build." },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "build", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "c1", content: BIG },
        { role: "assistant", content: "Fixed." },
        { role: "user", content: "Now run the tests." },
        { role: "assistant", content: "All green." },
        { role: "user", content: "Ship it." }
      ])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      // No format: formats.auto, and the checkpoint takes the history's shape.
      const outcome = compacted(yield* compact(history, { reason: "auto", keepTurns: 1, summarize }))
      assert.strictEqual(outcome.messages[0], history[0])
      assert.deepStrictEqual(outcome.messages[1], {
        role: "user",
        content: `[Checkpoint of 6 earlier messages, generated by context compaction]\n\n${RENDERED}`
      })
      assert.isTrue(formats.openaiChat.isSummary(outcome.messages[1] as never))
      assert.strictEqual(outcome.messages[2], history[7])
      assert.strictEqual(outcome.messages.length, 3)
      assert.deepStrictEqual(outcome.replaced, history.slice(1, 7))
      assert.notInclude(requests[0]?.prompt ?? "", "You are a coding agent.")
      assert.include(requests[0]?.prompt ?? "", "TOOL CALL c1 build: {}")
    }))

  it.effect("Anthropic: tool_use / tool_result pairs are summarized together", () =>
    Effect.gen(function*() {
      const history = deepFreeze([
        { role: "user", content: "List the files." },
        {
          role: "assistant",
          content: [{ type: "text", text: "Listing." }, { type: "tool_use", id: "t1", name: "ls", input: { dir: "." } }]
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: BIG }] },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
        { role: "user", content: "Read the first one." },
        { role: "assistant", content: [{ type: "text", text: "It is empty." }] },
        { role: "user", content: "Thanks." }
      ])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = compacted(
        yield* compact(history, { reason: "manual", format: formats.anthropic, keepTurns: 2, summarize })
      )
      assert.strictEqual(outcome.plan.cut, 4)
      assert.deepStrictEqual(outcome.messages, [outcome.checkpoint, ...history.slice(4)])
      assert.isTrue(formats.anthropic.isSummary(outcome.checkpoint as never))
      assert.include(
        requests[0]?.prompt ?? "",
        "TOOL CALL t1 ls: {\"dir\":\".\"}\nTOOL RESULT t1: line of build output"
      )
    }))

  it.effect("OpenAI Responses: encrypted reasoning of the summarized span goes with it; kept items keep theirs", () =>
    Effect.gen(function*() {
      const history = deepFreeze([
        { role: "user", content: "Check the logs." },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ENCRYPTED-ONE" },
        { type: "function_call", call_id: "c1", name: "read_logs", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: BIG },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "The disk is full." }] },
        { role: "user", content: "Free some space." },
        { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "ENCRYPTED-TWO" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Removed old builds." }] },
        { role: "user", content: "Thanks." }
      ])
      const { requests, summarize } = scripted(reply(STRUCTURED))
      const outcome = compacted(
        yield* compact(history, { reason: "auto", format: formats.openaiResponses, keepTurns: 2, summarize })
      )
      assert.deepStrictEqual(outcome.messages, [outcome.checkpoint, ...history.slice(5)])
      assert.strictEqual(outcome.messages[2], history[6])
      assert.deepStrictEqual(outcome.replaced, history.slice(0, 5))
      assert.notInclude(JSON.stringify(outcome.messages), "ENCRYPTED-ONE")
      assert.include(JSON.stringify(outcome.messages), "ENCRYPTED-TWO")
      assert.notInclude(requests[0]?.prompt ?? "", "ENCRYPTED")
      assert.isTrue(formats.openaiResponses.isSummary(outcome.checkpoint as never))
    }))
})

describe("compact — laws on generated conversations", () => {
  const answer = reply("{\"checkpoint\":{\"goal\":\"Carry on\"}}")
  for (const name of formatNames) {
    it(`${name}: the new history is retained ++ checkpoint ++ kept, pair-closed; the input is untouched`, () => {
      const format = formatOf(name)
      fc.assert(
        fc.property(conversation(name, { dangling: false, orphans: false, huge: false }), (rendered) => {
          const input = deepFreeze(rendered.messages)
          const exit = Effect.runSyncExit(
            compact(input, { reason: "auto", format, summarize: scripted(answer).summarize })
          )
          const plan = planCompaction(input, { format })
          if (Exit.isFailure(exit)) {
            // Only the shrink guard may refuse a well-formed conversation with a good summary.
            const error = Cause.findErrorOption(exit.cause)
            return error._tag === "Some" && error.value.error.startsWith("The checkpoint would not make")
          }
          const outcome = exit.value
          if (outcome._tag === "Skipped") return plan._tag === "NoPlan"
          if (plan._tag !== "CompactionPlan") return false
          const retained = plan.retained.map((i) => input[i])
          const expected = [...retained, outcome.checkpoint, ...input.slice(plan.cut)]
          if (outcome.messages.length !== expected.length) return false
          if (!outcome.messages.every((m, i) => m === expected[i])) return false
          if (!format.isSummary(outcome.checkpoint)) return false
          if (outcome.replaced.length + retained.length !== plan.cut) return false
          const before = toolGroups(input, format).diagnostics.filter((d) => d._tag !== "ReusedCallId").length
          const after = toolGroups(outcome.messages, format).diagnostics.filter((d) => d._tag !== "ReusedCallId")
          return before > 0 || after.length === 0
        }),
        { numRuns: runs.few }
      )
    })
  }
})

describe("compaction presets", () => {
  it("alisio: the compaction seed's configuration; tutorial: the three-step policy, rejecting cut summaries", () => {
    assert.deepStrictEqual(compactionPresets.alisio, {
      name: "alisio",
      auto: true,
      threshold: 0.85,
      keepTurns: 2,
      minKeepMessages: 4,
      partialSummaries: "keep",
      maxOutputTokens: 16_000,
      maxContextChars: 800_000,
      ingestCap: ingestCharCap
    })
    assert.deepStrictEqual(compactionPresets.tutorial, {
      name: "tutorial",
      auto: true,
      threshold: 0.85,
      keepTurns: 2,
      minKeepMessages: 4,
      partialSummaries: "reject",
      policy: { maxToolResultTokens: 25_000, clearAt: 0.6, compactAt: 0.85, keepToolResults: 6 },
      assumedContextWindow: 4_096
    })
    assert.strictEqual(compactionPresets.tutorial.policy, defaultContextPolicy)
  })
})
