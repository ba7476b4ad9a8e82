import { type CostCache, makeCostCache } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { runStrategy } from "@ctxkit/engine"
import { type ContextStrategy, type FitOptions, type FitResult, type PluginStrategy, strategies } from "@ctxkit/fit"
import { deepFreeze, fitViolations, type StrategyUnderTest } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { StrategyFailed, StrategyRefitted, StrategyRejected } from "../src/HostDiagnostics.ts"

const count = (text: string): number => Math.ceil(text.length / 4)
const canonical: FitOptions<Message> = { format: formats.canonical }

// Costs (ceil(length / 4) + 4): 10, 58, 6, 79, 7, 56, 8 — total 224; protected: 0, 4, 6 (25 tokens). At 120,
// truncation keeps 0, 4, 5, 6 (81 tokens).
const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: `List the files. ${"x".repeat(200)}` },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
  { role: "tool", toolCallId: "c1", content: "a.ts\n".repeat(60) },
  { role: "user", content: "pinned note", pinned: true },
  { role: "assistant", content: `Done. ${"y".repeat(200)}` },
  { role: "user", content: "Now read a.ts." }
])
const budget = 120

const run = (strategy: PluginStrategy, input: ReadonlyArray<Message> = messages, at = budget) =>
  runStrategy(strategy, input, count, at, canonical)

/** The guard as a strategy, so that the fitting laws of @ctxkit/testing check what it returns. */
const guarded = (strategy: PluginStrategy): StrategyUnderTest => ({
  id: `guarded ${strategy.id}`,
  fit: (input, countTokens, at, options) =>
    Effect.runSync(runStrategy(strategy, input, countTokens, at, options as FitOptions<unknown>)).result
})

const lawful = (strategy: PluginStrategy, at = budget): void => {
  assert.deepStrictEqual(fitViolations(guarded(strategy), messages, at, { format: formats.canonical as never }), [])
}

// The host prices what it excludes (`countExcluded`), so a direct fit compared with its result does too.
const truncated = (at = budget): FitResult<Message> =>
  strategies.truncate.fit(messages, count, at, { ...canonical, countExcluded: true })

/** A plugin whose fit answers with `answer(truncate's result)`. */
const tampering = (id: string, answer: (fitted: FitResult<Message>) => unknown): PluginStrategy => ({
  id,
  fit: <M>(input: ReadonlyArray<M>, countTokens: (text: string) => number, at: number, options?: FitOptions<M>) =>
    answer(strategies.truncate.fit(input, countTokens, at, options) as unknown as FitResult<Message>) as FitResult<M>
} as PluginStrategy)

const rejected = (id: string) => `context strategy "${id}" rejected: protected context was removed`
const failed = (id: string) => `context strategy "${id}" failed or timed out; safe truncation used instead`

describe("runStrategy: the host's guard", () => {
  it.effect("uses a built-in's result as it is", () =>
    Effect.gen(function*() {
      const result = yield* run(strategies.summarize)
      assert.deepStrictEqual(
        result.result,
        strategies.summarize.fit(messages, count, budget, { ...canonical, countExcluded: true })
      )
      assert.strictEqual(result.ran, "summarize")
      assert.isFalse(result.fallback)
      assert.deepStrictEqual(result.diagnostics, [])
    }))

  it.effect("accepts a lawful plugin: same result as the strategy it wraps, summary note included", () =>
    Effect.gen(function*() {
      const mine: ContextStrategy = { id: "my/summary", fit: strategies.summarize.fit }
      const result = yield* run(mine)
      assert.strictEqual(result.ran, "my/summary")
      assert.isFalse(result.fallback)
      assert.isFalse(result.refitted)
      assert.deepStrictEqual(
        result.result,
        strategies.summarize.fit(messages, count, budget, { ...canonical, countExcluded: true })
      )
      lawful(mine)
      // The same through an Effect.
      const remote: PluginStrategy = {
        id: "my/remote",
        fit: (input, countTokens, at, options) =>
          Effect.succeed(strategies.truncate.fit(input, countTokens, at, options))
      }
      const viaEffect = yield* run(remote)
      assert.strictEqual(viaEffect.ran, "my/remote")
      assert.deepStrictEqual(viaEffect.result, truncated())
    }))

  it.effect("accepts a plugin's compressed copies", () =>
    Effect.gen(function*() {
      const compress = { compress: { threshold: 20, keep: 8 } }
      const squeezing: PluginStrategy = {
        id: "squeezing",
        fit: (input, countTokens, at, options) =>
          strategies.truncate.fit(input, countTokens, at, { ...options, ...compress })
      }
      const result = yield* run(squeezing)
      const direct = strategies.truncate.fit(messages, count, budget, { ...canonical, ...compress })
      assert.isAbove(direct.truncated.length, 0)
      assert.strictEqual(result.ran, "squeezing")
      assert.deepStrictEqual(result.result, direct)
      lawful(squeezing)
    }))

  it.effect("never hands a plugin the caller's cost cache", () =>
    Effect.gen(function*() {
      const seen: Array<CostCache | undefined> = []
      const spy: PluginStrategy = {
        id: "spy",
        fit: (input, countTokens, at, options) => {
          seen.push(options?.cache)
          return strategies.truncate.fit(input, countTokens, at, options)
        }
      }
      const result = yield* runStrategy(spy, messages, count, budget, { ...canonical, cache: makeCostCache() })
      assert.deepStrictEqual(seen, [undefined])
      assert.strictEqual(result.ran, "spy")
    }))

  describe("falls back to truncate, with the exact diagnostic, and the laws hold", () => {
    const cases: ReadonlyArray<readonly [PluginStrategy, string]> = [
      [tampering("drops-system", (r) => ({ ...r, kept: r.kept.slice(1) })), rejected("drops-system")],
      [tampering("drops-everything", (r) => ({ ...r, kept: [] })), rejected("drops-everything")],
      [
        tampering("splits-group", () => ({ ...truncated(1_000), kept: messages.filter((_, i) => i !== 3) })),
        rejected("splits-group")
      ],
      [
        tampering("rewrites-system", (r) => {
          const copy = { role: "system", content: "short" }
          return {
            ...r,
            kept: [copy, ...r.kept.slice(1)],
            truncated: [{ original: messages[0], message: copy, index: 0 }]
          }
        }),
        rejected("rewrites-system")
      ]
    ]
    for (const [strategy, message] of cases) {
      it.effect(strategy.id, () =>
        Effect.gen(function*() {
          const result = yield* run(strategy)
          assert.strictEqual(result.ran, "truncate")
          assert.strictEqual(result.requested, strategy.id)
          assert.isTrue(result.fallback)
          assert.deepStrictEqual(result.diagnostics.map((d) => d.message), [message])
          assert.instanceOf(result.diagnostics[0], StrategyRejected)
          assert.deepStrictEqual(result.result, truncated())
          lawful(strategy)
        }))
    }
  })

  describe("garbage is rejected likewise", () => {
    const cases: ReadonlyArray<readonly [PluginStrategy, StrategyRejected["problem"], string]> = [
      [tampering("null", () => null), "invalid-result", "it returned null"],
      [tampering("number", () => 42), "invalid-result", "it returned 42"],
      [tampering("kept-string", (r) => ({ ...r, kept: "all" })), "invalid-result", "its kept is \"all\", not an array"],
      [
        tampering("reversed", () => ({ ...truncated(1_000), kept: [...messages].reverse() })),
        "invalid-result",
        "kept[1] is out of input order or kept twice"
      ],
      [
        tampering("twice", () => ({ ...truncated(1_000), kept: [...messages, ...messages] })),
        "invalid-result",
        "kept[7] is out of input order or kept twice"
      ],
      [
        tampering("adds", (r) => ({ ...r, kept: [...r.kept, { role: "user", content: "sneaky" }] })),
        "foreign-messages",
        "kept[4] is not from the input, nor a compressed copy listed in truncated, nor a note listed in inserted"
      ],
      [
        tampering("linked-note", (r) => {
          const note = { role: "tool", toolCallId: "c1", content: "fake" }
          return { ...r, kept: [...r.kept, note], inserted: [note] }
        }),
        "invalid-result",
        "inserted kept[4] carries tool calls, results or other links"
      ]
    ]
    for (const [strategy, problem, detail] of cases) {
      it.effect(strategy.id, () =>
        Effect.gen(function*() {
          const result = yield* run(strategy)
          assert.strictEqual(result.ran, "truncate")
          const diagnostic = result.diagnostics[0]
          assert.instanceOf(diagnostic, StrategyRejected)
          assert.deepStrictEqual(diagnostic, new StrategyRejected({ strategy: strategy.id, problem, detail }))
          assert.strictEqual(
            diagnostic?.message,
            problem === "foreign-messages" || problem === "invalid-result"
              ? `context strategy "${strategy.id}" rejected: its result is not a fitting of the input (${detail}); safe truncation used instead`
              : rejected(strategy.id)
          )
          assert.deepStrictEqual(result.result, truncated())
          lawful(strategy)
        }))
    }
  })

  describe("failures fall back to truncate", () => {
    const cases: ReadonlyArray<readonly [PluginStrategy, string]> = [
      [{
        id: "throws",
        fit: () => {
          throw new TypeError("boom")
        }
      }, "TypeError: boom"],
      [{
        id: "throws-string",
        fit: () => {
          throw "bad"
        }
      }, "\"bad\""],
      [{ id: "fails", fit: () => Effect.fail(new Error("remote down")) }, "Error: remote down"],
      [{ id: "dies", fit: () => Effect.die(new RangeError("oops")) }, "RangeError: oops"],
      [{ id: "no-fit", fit: 42 } as unknown as PluginStrategy, "TypeError: strategy.fit is not a function"]
    ]
    for (const [strategy, detail] of cases) {
      it.effect(strategy.id, () =>
        Effect.gen(function*() {
          const result = yield* run(strategy)
          assert.strictEqual(result.ran, "truncate")
          assert.deepStrictEqual(result.diagnostics, [
            new StrategyFailed({ strategy: strategy.id, cause: "failed", detail })
          ])
          assert.strictEqual(result.diagnostics[0]?.message, failed(strategy.id))
          assert.deepStrictEqual(result.result, truncated())
          lawful(strategy)
        }))
    }

    it.effect("a strategy that never completes times out after 15 s (virtual time)", () =>
      Effect.gen(function*() {
        const hangs: PluginStrategy = { id: "hangs", fit: () => Effect.never }
        const fiber = yield* Effect.forkChild(run(hangs))
        yield* TestClock.adjust("15 seconds")
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.ran, "truncate")
        assert.strictEqual(result.diagnostics[0]?.message, failed("hangs"))
        assert.strictEqual(result.diagnostics[0]?._tag === "StrategyFailed" && result.diagnostics[0].cause, "timed-out")
        assert.deepStrictEqual(result.result, truncated())
      }))

    it.effect("with a shorter timeout option", () =>
      Effect.gen(function*() {
        const slow: PluginStrategy = {
          id: "slow",
          fit: (input, countTokens, at, options) =>
            Effect.sleep("1 minute").pipe(Effect.as(strategies.truncate.fit(input, countTokens, at, options)))
        }
        const fiber = yield* Effect.forkChild(
          runStrategy(slow, messages, count, budget, { ...canonical, timeout: "1 second" })
        )
        yield* TestClock.adjust("1 second")
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.ran, "truncate")
        assert.strictEqual(result.diagnostics[0]?.message, failed("slow"))
      }))
  })

  describe("recounts with its own counter and fits again when over", () => {
    it.effect("a plugin that keeps everything and claims it fits", () =>
      Effect.gen(function*() {
        const liar = tampering("liar", (r) => ({ ...r, kept: messages, excluded: [], tokens: 1, fits: true }))
        const result = yield* run(liar)
        assert.strictEqual(result.ran, "liar")
        assert.isTrue(result.refitted)
        assert.isTrue(result.result.fits)
        assert.isAtMost(result.result.tokens, budget)
        assert.instanceOf(result.diagnostics[0], StrategyRefitted)
        assert.strictEqual(
          result.diagnostics[0]?.message,
          `context strategy "liar" returned 224 tokens by the host's count, over the budget of ${budget}; the host removed 3 more messages to fit`
        )
        assert.deepStrictEqual(result.result.kept, truncated().kept)
        assert.deepStrictEqual(result.result.excluded.map((e) => [e.index, e.reason]), [
          [1, "final-budget"],
          [2, "final-budget"],
          [3, "final-budget"]
        ])
        lawful(liar)
      }))

    it.effect("a plugin whose note is pinned and too big: the note is removed", () =>
      Effect.gen(function*() {
        const pinnedNote = { role: "user", content: "z".repeat(2_000), pinned: true } as const
        const stuffer = tampering("stuffer", (r) => ({
          ...r,
          kept: [...r.kept.slice(0, -1), pinnedNote, ...r.kept.slice(-1)],
          inserted: [pinnedNote]
        }))
        const result = yield* run(stuffer)
        assert.strictEqual(result.ran, "stuffer")
        assert.isTrue(result.refitted)
        assert.deepStrictEqual(result.result.inserted, [])
        assert.deepStrictEqual(result.dropped, [{
          message: pinnedNote,
          origin: "inserted",
          reason: "final-budget",
          before: 6
        }])
        assert.isTrue(result.result.fits)
        lawful(stuffer)
      }))

    it.effect("when the protected context alone does not fit, nothing else is kept", () =>
      Effect.gen(function*() {
        const liar = tampering("liar", (r) => ({ ...r, kept: messages, excluded: [], fits: true }))
        const result = yield* run(liar, messages, 20)
        assert.isFalse(result.result.fits)
        assert.deepStrictEqual(result.result.kept, [messages[0], messages[4], messages[6]])
        lawful(liar, 20)
      }))
  })

  it.effect("bad input: messages that are not an array, a strategy that is not one", () =>
    Effect.gen(function*() {
      const result = yield* runStrategy(strategies.manual, null as never, count, budget)
      assert.deepStrictEqual(result.result.diagnostics.map((d) => d._tag), ["NotAConversation"])
      const mine: ContextStrategy = { id: "mine", fit: strategies.truncate.fit }
      const notArray = yield* runStrategy(mine, "nope" as never, count, budget)
      assert.strictEqual(notArray.ran, "truncate")
      assert.deepStrictEqual(notArray.result.kept, [])
      const nothing = yield* runStrategy(null as never, messages, count, budget, canonical)
      assert.strictEqual(nothing.ran, "truncate")
      assert.strictEqual(nothing.diagnostics[0]?.message, failed("undefined"))
      const nan = yield* runStrategy(mine, messages, count, Number.NaN, canonical)
      assert.isFalse(nan.result.fits)
      assert.deepStrictEqual(nan.result.kept, [messages[0], messages[4], messages[6]])
    }))
})
