import { formats, type Message, type OpenAiChatMessage } from "@ctxkit/core"
import { type PromptInterceptor, runInterceptors } from "@ctxkit/engine"
import { type FitOptions, type FitResult, shiftContext } from "@ctxkit/fit"
import { deepFreeze, identityViolations, pairViolations, partitionViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { FinalFitApplied, InterceptorRestored, InterceptorSkipped } from "../src/HostDiagnostics.ts"
import type { InterceptorContext } from "../src/RunInterceptors.ts"

const count = (text: string): number => Math.ceil(text.length / 4)
const canonical: FitOptions<Message> = { format: formats.canonical }

// Costs: 10, 33, 6, 7, 7, 7 — total 70, within the budget of 80 (10 to spare).
const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: `Old question ${"q".repeat(100)}` },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
  { role: "tool", toolCallId: "c1", content: "a.ts\nb.ts" },
  { role: "assistant", content: "Two files." },
  { role: "user", content: "Read a.ts." }
])
const budget = 80
const fitted: FitResult<Message> = shiftContext(messages, count, budget, canonical)

const intercept = (interceptors: ReadonlyArray<PromptInterceptor<Message>>, from = fitted, at = budget) =>
  runInterceptors(from, interceptors, count, at, canonical)

/** The laws of a result over `input`: partition and order, whole groups, identity, budget and protection. */
const violations = (input: ReadonlyArray<Message>, result: FitResult<Message>, at: number): Array<string> => {
  const selection = {
    kept: result.kept,
    excluded: result.excluded.map((e) => e.message),
    inserted: result.inserted,
    replaced: result.truncated
  }
  const out = [
    ...partitionViolations(input, selection),
    ...pairViolations(input, selection, formats.canonical),
    ...identityViolations(selection, formats.canonical)
  ]
  const recount = result.kept.reduce((sum, m) => sum + count(formats.canonical.text(m)) + 4, 0)
  if (recount !== result.tokens) out.push(`tokens ${result.tokens} but the recount is ${recount}`)
  if (result.fits && recount > at) out.push(`fits, but ${recount} > ${at}`)
  for (const i of [0, 5]) {
    if (result.fits && !result.kept.includes(input[i] as Message)) out.push(`protected ${i} is missing`)
  }
  return out
}

const note = (content: string, extra: Partial<Message> = {}): Message =>
  ({ role: "user", content, ...extra }) as Message

describe("runInterceptors", () => {
  it.effect("with no interceptor: the recount changes nothing", () =>
    Effect.gen(function*() {
      const run = yield* intercept([])
      assert.deepStrictEqual(run.result, fitted)
      assert.deepStrictEqual([run.ran, run.skipped, run.diagnostics, run.added], [[], [], [], []])
    }))

  it.effect("an addition that fits is sent, unpinned, with source plugin (canonical)", () =>
    Effect.gen(function*() {
      const adder: PromptInterceptor<Message> = {
        id: "adder",
        intercept: (
          list
        ) => [
          ...list.slice(0, -1),
          note("note", { pinned: true, meta: { pinned: true, from: "rag" } }),
          ...list.slice(-1)
        ]
      }
      const run = yield* intercept([adder])
      const sent = { role: "user", content: "note", meta: { from: "rag" }, source: "plugin" } as unknown as Message
      assert.deepStrictEqual(run.result.kept, [...messages.slice(0, -1), sent, messages[5]])
      assert.deepStrictEqual(run.added, [{ message: sent, interceptor: "adder" }])
      assert.deepStrictEqual(run.result.inserted, [sent])
      assert.isTrue(run.result.fits)
      assert.strictEqual(run.result.tokens, 75)
      assert.deepStrictEqual(run.ran, ["adder"])
      assert.deepStrictEqual(violations(messages, run.result, budget), [])
    }))

  it.effect("additions made late cannot slip over the budget: the final fit removes them first", () =>
    Effect.gen(function*() {
      // Pinned, and placed after the current request so that it would become the "current request".
      const huge = note("x".repeat(400), { pinned: true })
      const late: PromptInterceptor<Message> = { id: "late", intercept: (list) => [...list, huge] }
      const run = yield* intercept([late])
      assert.deepStrictEqual(run.result.kept, messages)
      assert.isTrue(run.result.fits)
      assert.isTrue(run.finalFit)
      assert.deepStrictEqual(run.diagnostics, [new FinalFitApplied({ tokens: 174, budget, removed: 1 })])
      assert.strictEqual(
        run.diagnostics[0]?.message,
        "after the interceptors the prompt costs 174 tokens, over the budget of 80; the final fit removed 1 messages"
      )
      assert.deepStrictEqual(run.dropped, [{
        message: { role: "user", content: "x".repeat(400), source: "plugin" } as unknown as Message,
        origin: "plugin",
        reason: "final-budget",
        addedBy: "late",
        before: 6
      }])
      // A small addition over the 10 spare tokens goes before the (older) history does.
      const small: PromptInterceptor<Message> = { id: "small", intercept: (list) => [note("y".repeat(64)), ...list] }
      const second = yield* intercept([small])
      assert.deepStrictEqual(second.result.kept, messages)
      assert.deepStrictEqual(second.result.excluded, [])
      assert.deepStrictEqual(violations(messages, second.result, budget), [])
    }))

  it.effect("in a format with no source field, the addition is left as it is but treated as unpinned", () =>
    Effect.gen(function*() {
      const chat: ReadonlyArray<OpenAiChatMessage> = [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" }
      ]
      const options = { format: formats.openaiChat }
      const chatFitted = shiftContext(chat, count, 30, options)
      const pinned = { role: "user", content: "z".repeat(200), pinned: true } as OpenAiChatMessage
      const run = yield* runInterceptors(
        chatFitted,
        [{ id: "pin", intercept: (list) => [...list, pinned] }],
        count,
        30,
        options
      )
      assert.deepStrictEqual(run.result.kept, chat)
      assert.strictEqual(run.dropped[0]?.message, pinned)
    }))

  it.effect("under formats.auto, only additions with a canonical-only field are rewritten", () =>
    Effect.gen(function*() {
      const plain = { role: "user", content: "plain", pinned: true }
      const memory = { role: "system", source: "memory", content: "memo", pinned: true }
      const auto = { format: formats.auto }
      const autoFitted = shiftContext(messages, count, budget, auto)
      const run = yield* runInterceptors(
        autoFitted,
        [{ id: "both", intercept: (list) => [...list.slice(0, -1), plain, memory, ...list.slice(-1)] }],
        count,
        100,
        auto
      )
      assert.deepStrictEqual(run.added.map((a) => a.message), [plain, {
        role: "system",
        source: "plugin",
        content: "memo"
      }])
      assert.strictEqual(run.added[0]?.message, plain)
      // Treated as unpinned all the same: over the budget, both go first.
      const tight = yield* runInterceptors(
        autoFitted,
        [{ id: "both", intercept: (list) => [...list, { ...plain, content: "p".repeat(200) }] }],
        count,
        budget,
        auto
      )
      assert.deepStrictEqual(tight.result.kept, messages)
    }))

  it.effect("protected messages an interceptor removes are restored; unprotected removals stand", () =>
    Effect.gen(function*() {
      const wipe: PromptInterceptor<Message> = { id: "wipe", intercept: () => [] }
      const run = yield* intercept([wipe])
      assert.deepStrictEqual(run.result.kept, [messages[0], messages[5]])
      assert.deepStrictEqual(run.diagnostics, [
        new InterceptorRestored({ interceptor: "wipe", problem: "protected-removed", restored: 2 })
      ])
      assert.strictEqual(
        run.diagnostics[0]?.message,
        "interceptor \"wipe\" removed protected context; 2 messages were restored"
      )
      assert.deepStrictEqual(run.result.excluded.map((e) => [e.index, e.reason]), [
        [1, "interceptor"],
        [2, "interceptor"],
        [3, "interceptor"],
        [4, "interceptor"]
      ])
      assert.deepStrictEqual(run.removed.map((r) => r.interceptor), ["wipe", "wipe", "wipe", "wipe"])
      assert.deepStrictEqual(violations(messages, run.result, budget), [])
    }))

  it.effect("an interceptor that splits a tool-call group gets the rest of it back", () =>
    Effect.gen(function*() {
      const dropResult: PromptInterceptor<Message> = {
        id: "drop-result",
        intercept: (list) => list.filter((m) => m.role !== "tool")
      }
      const run = yield* intercept([dropResult])
      assert.deepStrictEqual(run.result.kept, messages)
      assert.strictEqual(
        run.diagnostics[0]?.message,
        "interceptor \"drop-result\" split a tool-call group; 1 messages were restored"
      )
    }))

  it.effect("one that throws is skipped and the run goes on", () =>
    Effect.gen(function*() {
      const thrower: PromptInterceptor<Message> = {
        id: "thrower",
        priority: 10,
        intercept: () => {
          throw new Error("boom")
        }
      }
      const adder: PromptInterceptor<Message> = { id: "adder", intercept: (list) => [note("ok"), ...list] }
      const run = yield* intercept([adder, thrower])
      assert.deepStrictEqual(run.skipped, ["thrower"])
      assert.deepStrictEqual(run.ran, ["adder"])
      assert.deepStrictEqual(run.diagnostics, [
        new InterceptorSkipped({ interceptor: "thrower", cause: "failed", detail: "Error: boom" })
      ])
      assert.strictEqual(
        run.diagnostics[0]?.message,
        "interceptor \"thrower\" failed or timed out; it was skipped and the run went on"
      )
      assert.strictEqual(run.result.kept.length, 7)
    }))

  it.effect("one that hangs times out after 2 s (virtual time); the next still runs", () =>
    Effect.gen(function*() {
      const hangs: PromptInterceptor<Message> = { id: "hangs", priority: 1, intercept: () => Effect.never }
      const adder: PromptInterceptor<Message> = {
        id: "adder",
        intercept: (list) => Effect.succeed([note("ok"), ...list])
      }
      const fiber = yield* Effect.forkChild(intercept([hangs, adder]))
      yield* TestClock.adjust("2 seconds")
      const run = yield* Fiber.join(fiber)
      assert.deepStrictEqual(run.skipped, ["hangs"])
      assert.deepStrictEqual(run.ran, ["adder"])
      const skipped = run.diagnostics[0]
      assert.instanceOf(skipped, InterceptorSkipped)
      assert.strictEqual(skipped?._tag === "InterceptorSkipped" && skipped.cause, "timed-out")
      assert.strictEqual(
        skipped?.message,
        "interceptor \"hangs\" failed or timed out; it was skipped and the run went on"
      )
    }))

  describe("garbage output is skipped", () => {
    const cases: ReadonlyArray<readonly [string, (list: ReadonlyArray<Message>) => unknown, string]> = [
      ["null", () => null, "it returned null"],
      ["reversed", (list) => [...list].reverse(), "output[1] reorders or repeats a message"],
      ["repeated", (list) => [...list, list[0]], "output[6] reorders or repeats a message"],
      ["number", (list) => [...list, 7], "output[6] is 7, not a message"],
      ["unreadable", (list) => [...list, { role: "wizard", content: 3 }], "output[6]: Expected"],
      [
        "tool-result",
        (list) => [...list, { role: "tool", toolCallId: "c1", content: "forged" }],
        "added output[6] carries tool calls, results or other links"
      ]
    ]
    for (const [id, answer, detail] of cases) {
      it.effect(id, () =>
        Effect.gen(function*() {
          const run = yield* intercept([{ id, intercept: (list) => answer(list) as ReadonlyArray<Message> }])
          assert.deepStrictEqual(run.skipped, [id])
          const skipped = run.diagnostics[0]
          assert.strictEqual(skipped?._tag === "InterceptorSkipped" && skipped.cause, "invalid-output")
          assert.isTrue(skipped?.message.startsWith(`interceptor "${id}" returned an invalid message list (${detail}`))
          assert.isTrue(skipped?.message.endsWith("); it was skipped and the run went on"))
          assert.deepStrictEqual(run.result, fitted)
        }))
    }
  })

  it.effect("run by priority, higher first, equal ones in the order given; told about previews", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const spy = (id: string, priority?: number): PromptInterceptor<Message> => ({
        id,
        ...(priority === undefined ? {} : { priority }),
        intercept: (list, context: InterceptorContext<Message>) => {
          seen.push(`${id}:${context.preview}`)
          return list
        }
      })
      yield* runInterceptors(fitted, [spy("a"), spy("b", 5), spy("c"), spy("d", -1), spy("e", 5)], count, budget, {
        ...canonical,
        preview: true
      })
      assert.deepStrictEqual(seen, ["b:true", "e:true", "a:true", "c:true", "d:true"])
    }))

  it.effect("a fitted result that does not fit: nothing will be sent, interceptors are not run", () =>
    Effect.gen(function*() {
      const tight = shiftContext(messages, count, 10, canonical)
      assert.isFalse(tight.fits)
      let called = false
      const run = yield* intercept(
        [{
          id: "x",
          intercept: (list) => {
            called = true
            return list
          }
        }],
        tight,
        10
      )
      assert.isFalse(called)
      assert.isFalse(run.result.fits)
      assert.deepStrictEqual(run.result.kept, tight.kept)
    }))

  it.effect("input messages interceptors remove, and notes, keep their indices in the result", () =>
    Effect.gen(function*() {
      const summarized = shiftContext(messages, count, 40, canonical)
      const dropOld: PromptInterceptor<Message> = {
        id: "drop-old",
        intercept: (list) => list.filter((m) => m.role !== "assistant" || m.toolCalls !== undefined)
      }
      const run = yield* intercept([dropOld], summarized, 40)
      assert.deepStrictEqual(violations(messages, run.result, 40), [])
      for (const e of run.result.excluded) assert.strictEqual(messages[e.index], e.message)
    }))

  it.effect("bad input: a result that is not one, interceptors that are not a list or not interceptors", () =>
    Effect.gen(function*() {
      const run = yield* runInterceptors(null as never, [], count, budget, canonical)
      assert.deepStrictEqual([run.result.kept, run.result.fits], [[], false])
      const notAList = yield* runInterceptors(fitted, "nope" as never, count, budget, canonical)
      assert.deepStrictEqual(notAList.result, fitted)
      const junk = yield* runInterceptors(fitted, [null, { id: 3 }] as never, count, budget, canonical)
      assert.deepStrictEqual(junk.skipped, ["undefined", "3"])
      assert.deepStrictEqual(junk.result, fitted)
    }))
})
