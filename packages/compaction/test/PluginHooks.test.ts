/**
 * Plugin hooks: merged instructions and fields, own fields only, inject context cut to 24,000 characters,
 * reports named, and every kind of failure (fail, throw, die, time out, bad answer) reported with
 * `continued: true` while the others still run. Timeouts use the TestClock: no real sleeps.
 */
import type { CompactionPlugin } from "@ctxkit/compaction"
import type { ParsedCheckpoint } from "@ctxkit/compaction/Checkpoint"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { hookTimeout } from "../src/internal/eventsHooks.ts"
import { runAfterCompact, runBeforeCompact } from "../src/PluginHooks.ts"

const checkpoint: ParsedCheckpoint = {
  structured: true,
  extracted: { memories: ["tabs"], todos: 3, other: "x" },
  text: "## Goal\nShip"
}

const failedEvent = (source: string, hook: "beforeCompact" | "afterCompact", error: string) => ({
  type: "plugin_hook_failed" as const,
  data: { source, hook, error, continued: true }
})

describe("runBeforeCompact", () => {
  it("the timeout is a Duration.Input: default 5 seconds; what is not a duration ≥ 0 is refused", () => {
    const millis = (given: Duration.Input | undefined) => {
      const decoded = hookTimeout(given)
      return decoded === undefined ? undefined : Duration.toMillis(decoded)
    }
    assert.strictEqual(millis(undefined), 5_000)
    assert.strictEqual(millis("2 seconds"), 2_000)
    assert.strictEqual(millis(Duration.millis(250)), 250)
    assert.strictEqual(millis(750), 750)
    assert.strictEqual(millis(0), 0)
    for (const bad of [Number.NaN, -1, "soon", Duration.millis(-5)] as ReadonlyArray<Duration.Input>) {
      assert.isUndefined(millis(bad), String(bad))
    }
  })

  it.effect("merges instructions in plugin order and fields, first requester wins", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const plugins: ReadonlyArray<CompactionPlugin> = [
        {
          name: "memory",
          beforeCompact: (context) => {
            seen.push(context)
            return Effect.succeed({ instructions: "  Keep preferences. ", outputFields: { memories: "string[]" } })
          }
        },
        { name: "quiet" },
        {
          name: "todo",
          beforeCompact: () =>
            Effect.succeed({
              instructions: "List open tasks.",
              outputFields: { todos: "number", memories: "string", checkpoint: "x" }
            })
        },
        { name: "blank", beforeCompact: () => Effect.succeed({ instructions: "   " }) }
      ]
      const run = yield* runBeforeCompact(plugins, { reason: "manual", messages: 12 })
      assert.deepStrictEqual(seen, [{ reason: "manual", messages: 12 }])
      assert.deepStrictEqual(run.instructions, ["Keep preferences.", "List open tasks."])
      assert.deepStrictEqual(run.fields, { memories: "string[]", todos: "number" })
      assert.deepStrictEqual(run.granted, [["memories"], [], ["todos"], []])
      assert.deepStrictEqual(run.events, [
        failedEvent(
          "todo",
          "beforeCompact",
          "output field \"memories\" is already requested by plugin \"memory\"; it was ignored"
        ),
        failedEvent("todo", "beforeCompact", "output field \"checkpoint\" is reserved or empty; it was ignored")
      ])
    }))

  it.effect("a failing, throwing, dying or invalid hook is skipped and reported; the others run", () =>
    Effect.gen(function*() {
      const plugins: ReadonlyArray<CompactionPlugin> = [
        { name: "fails", beforeCompact: () => Effect.fail(new Error("store offline")) },
        {
          name: "throws",
          beforeCompact: () => {
            throw new Error("boom")
          }
        },
        { name: "dies", beforeCompact: () => Effect.die("kaput") },
        { name: "invalid", beforeCompact: () => Effect.succeed({ outputFields: { n: 3 } } as never) },
        { name: "void", beforeCompact: () => Effect.succeed(undefined as never) },
        { name: "ok", beforeCompact: () => Effect.succeed({ instructions: "still here" }) }
      ]
      const run = yield* runBeforeCompact(plugins, { reason: "auto", messages: 3 })
      assert.deepStrictEqual(run.instructions, ["still here"])
      assert.deepStrictEqual(run.granted, [[], [], [], [], [], []])
      assert.deepStrictEqual(run.events.slice(0, 3), [
        failedEvent("fails", "beforeCompact", "store offline"),
        failedEvent("throws", "beforeCompact", "boom"),
        failedEvent("dies", "beforeCompact", "kaput")
      ])
      assert.strictEqual(run.events.length, 4)
      const invalid = run.events[3]
      assert.strictEqual(invalid?.data.source, "invalid")
      assert.match(invalid?.data.error ?? "", /^returned an invalid result: outputFields\.n: /)
    }))

  it.effect("a hook that hangs times out after 5 s of virtual time; the next one still runs", () =>
    Effect.gen(function*() {
      const plugins: ReadonlyArray<CompactionPlugin> = [
        { name: "hangs", beforeCompact: () => Effect.never },
        { name: "ok", beforeCompact: () => Effect.succeed({ outputFields: { a: "string" } }) }
      ]
      const fiber = yield* Effect.forkChild(runBeforeCompact(plugins, { reason: "auto", messages: 3 }))
      yield* TestClock.adjust("5 seconds")
      const run = yield* Fiber.join(fiber)
      assert.deepStrictEqual(run.events, [failedEvent("hangs", "beforeCompact", "did not complete within 5000 ms")])
      assert.deepStrictEqual(run.fields, { a: "string" })
    }))

  it.effect("a custom timeout; an invalid one means the default", () =>
    Effect.gen(function*() {
      const slow: ReadonlyArray<CompactionPlugin> = [
        { name: "slow", beforeCompact: () => Effect.sleep("1 second").pipe(Effect.as({ instructions: "late" })) }
      ]
      const fiber = yield* Effect.forkChild(
        runBeforeCompact(slow, { reason: "auto", messages: 1 }, { timeout: "500 millis" })
      )
      yield* TestClock.adjust("500 millis")
      const run = yield* Fiber.join(fiber)
      assert.deepStrictEqual(run.events, [failedEvent("slow", "beforeCompact", "did not complete within 500 ms")])
      const patient = yield* Effect.forkChild(
        runBeforeCompact(slow, { reason: "auto", messages: 1 }, { timeout: Number.NaN })
      )
      yield* TestClock.adjust("1 second")
      const ok = yield* Fiber.join(patient)
      assert.deepStrictEqual(ok.instructions, ["late"])
      assert.deepStrictEqual(ok.events, [])
    }))

  it.effect("no plugins, or not an array: nothing", () =>
    Effect.gen(function*() {
      const none = yield* runBeforeCompact(undefined, { reason: "auto", messages: 1 })
      assert.deepStrictEqual(none, { instructions: [], fields: {}, granted: [], events: [] })
    }))
})

describe("runAfterCompact", () => {
  it.effect("each plugin sees only its own fields; inject context and reports in plugin order", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const plugins: ReadonlyArray<CompactionPlugin> = [
        {
          name: "memory",
          afterCompact: (context) => {
            seen.push(context.extracted)
            return Effect.succeed({
              injectContext: "Remembered: tabs.",
              report: { summary: "1 saved", data: { n: 1 } }
            })
          }
        },
        {
          name: "todo",
          afterCompact: (context) => {
            seen.push(context.extracted)
            assert.strictEqual(context.checkpoint, checkpoint)
            assert.strictEqual(context.reason, "budget")
            return Effect.succeed({ injectContext: "   ", report: {} })
          }
        },
        {
          name: "none",
          afterCompact: (context) => {
            seen.push(context.extracted)
            return Effect.succeed({})
          }
        }
      ]
      const run = yield* runAfterCompact(plugins, {
        reason: "budget",
        checkpoint,
        granted: [["memories"], ["todos", "missing"]]
      })
      assert.deepStrictEqual(seen, [{ memories: ["tabs"] }, { todos: 3 }, {}])
      assert.deepStrictEqual(run.injectContext, ["Remembered: tabs."])
      assert.deepStrictEqual(run.reports, [{ name: "memory", summary: "1 saved", data: { n: 1 } }, { name: "todo" }])
      assert.deepStrictEqual(run.events, [])
    }))

  it.effect("inject context is cut to 24,000 characters without splitting a surrogate pair", () =>
    Effect.gen(function*() {
      const long = "a".repeat(23_999) + "🚀" + "tail"
      const run = yield* runAfterCompact(
        [{ name: "big", afterCompact: () => Effect.succeed({ injectContext: long }) }],
        { reason: "auto", checkpoint }
      )
      assert.strictEqual(run.injectContext[0], "a".repeat(23_999))
      const exact = yield* runAfterCompact(
        [{ name: "big", afterCompact: () => Effect.succeed({ injectContext: "b".repeat(24_001) }) }],
        { reason: "auto", checkpoint }
      )
      assert.strictEqual(exact.injectContext[0]?.length, 24_000)
    }))

  it.effect("failing, timed-out and invalid hooks are reported with continued true; the rest completes", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = {}
      cyclic["self"] = cyclic
      const plugins: ReadonlyArray<CompactionPlugin> = [
        { name: "fails", afterCompact: () => Effect.fail({ _tag: "StoreError", message: "disk full" }) },
        { name: "hangs", afterCompact: () => Effect.never },
        { name: "bad-data", afterCompact: () => Effect.succeed({ report: { data: (() => 1) as never } }) },
        { name: "cyclic", afterCompact: () => Effect.succeed({ report: { data: cyclic as never } }) },
        { name: "ok", afterCompact: () => Effect.succeed({ injectContext: "fine", report: { summary: "ok" } }) }
      ]
      const fiber = yield* Effect.forkChild(runAfterCompact(plugins, { reason: "auto", checkpoint }))
      yield* TestClock.adjust("5 seconds")
      const run = yield* Fiber.join(fiber)
      assert.deepStrictEqual(run.injectContext, ["fine"])
      assert.deepStrictEqual(run.reports, [{ name: "ok", summary: "ok" }])
      assert.deepStrictEqual(run.events.map((e) => [e.data.source, e.data.hook, e.data.continued]), [
        ["fails", "afterCompact", true],
        ["hangs", "afterCompact", true],
        ["bad-data", "afterCompact", true],
        ["cyclic", "afterCompact", true]
      ])
      assert.strictEqual(run.events[0]?.data.error, "disk full")
      assert.strictEqual(run.events[1]?.data.error, "did not complete within 5000 ms")
      assert.match(run.events[2]?.data.error ?? "", /^returned an invalid result: /)
      assert.match(run.events[3]?.data.error ?? "", /^returned an invalid result: /)
    }))

  it.effect("a nameless plugin is named by its position", () =>
    Effect.gen(function*() {
      const run = yield* runAfterCompact(
        [{ name: "", afterCompact: () => Effect.fail("nope") }],
        { reason: "auto", checkpoint }
      )
      assert.deepStrictEqual(run.events, [failedEvent("plugin #1", "afterCompact", "nope")])
    }))
})
