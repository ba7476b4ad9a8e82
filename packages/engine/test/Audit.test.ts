import { approximateCounter, type TokenCounter } from "@ctxkit/budget"
import { formats, type Message, UnknownStrategy } from "@ctxkit/core"
import {
  type AuditBlock,
  ContextStrategies,
  finalizeAudit,
  fitPrompt,
  preview,
  PromptContextAudit,
  type PromptInterceptor,
  runInterceptors,
  runStrategy,
  startAudit
} from "@ctxkit/engine"
import type { PromptOptions } from "@ctxkit/engine/Preview"
import { ContextStrategyRegistry, type PluginStrategy, strategies } from "@ctxkit/fit"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MAX_AUDIT_ENTRIES, normalizeProviderError } from "../src/PromptContextAudit.ts"

const canonical = formats.canonical

const messages: ReadonlyArray<Message> = deepFreeze([
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "An aside to skip.", meta: { manualExcluded: true } },
  { role: "user", content: `Old question ${"q".repeat(300)}` },
  { role: "assistant", content: "Old answer." },
  { role: "user", content: "Keep this.", pinned: true },
  { role: "assistant", content: "Chit-chat to remove." },
  { role: "user", content: "Now read a.ts." }
])

const rag: PromptInterceptor<Message> = {
  id: "rag",
  priority: 2,
  intercept: (
    list
  ) => [...list.slice(0, -1), { role: "user", content: "[retrieved] a.ts exports main" }, ...list.slice(-1)]
}
const tidy: PromptInterceptor<Message> = {
  id: "tidy",
  priority: 1,
  intercept: (list) => list.filter((m) => m.content !== "Chit-chat to remove.")
}
const stuffer: PromptInterceptor<Message> = {
  id: "stuffer",
  intercept: (list) => [{ role: "user", content: "s".repeat(400) }, ...list]
}

const options: PromptOptions<Message> = {
  format: canonical,
  countTokens: approximateCounter,
  contextLimit: 100,
  reservedForReply: 20,
  strategy: "manual",
  interceptors: [rag, tidy, stuffer],
  generationId: "gen-1",
  provider: "openai",
  model: "gpt-4.1-mini",
  omitted: [
    { label: "persona", reason: "empty", before: 1 },
    { label: "lorebook: dragons", reason: "disabled", source: "lorebook", tokens: 40, before: 1 }
  ],
  startedAt: 1_000
}

const row = (
  b: AuditBlock
) => [b.position, b.index ?? null, b.origin, b.included, b.reason, b.interceptor ?? b.label ?? null]

describe("PromptContextAudit", () => {
  it.effect("lists every block in real order with a stable reason", () =>
    Effect.gen(function*() {
      const prompt = yield* fitPrompt(messages, options)
      const audit = prompt.audit
      assert.strictEqual(audit.status, "pending")
      assert.deepStrictEqual(audit.blocks.map(row), [
        [0, null, "plugin", false, "final-budget", "stuffer"],
        [1, 0, "input", true, "protected", null],
        [2, null, "omitted", false, "empty", "persona"],
        [3, null, "omitted", false, "disabled", "lorebook: dragons"],
        [4, 1, "input", false, "manual", null],
        [5, 2, "input", false, "context-shift", null],
        [6, 3, "input", true, "fits", null],
        [7, 4, "input", true, "pinned", null],
        [8, 5, "input", false, "interceptor", "tidy"],
        [9, null, "plugin", true, "interceptor", "rag"],
        [10, 6, "input", true, "protected", null]
      ])
      assert.deepStrictEqual(audit.strategy, { requested: "manual", ran: "manual", fallback: false })
      assert.deepStrictEqual(
        [audit.contextLimit, audit.reservedForReply, audit.budget, audit.promptTokens, audit.fits],
        [100, 20, 80, prompt.tokens, true]
      )
      assert.strictEqual(
        audit.blocks.filter((b) => b.included).reduce((sum, b) => sum + b.tokens, 0),
        audit.promptTokens
      )
      assert.deepStrictEqual(audit.messages, prompt.messages)
      assert.deepStrictEqual(audit.tokenizer, { profile: "approximate-chars-v1", approximate: true })
      assert.deepStrictEqual(audit.diagnostics.map((d) => [d.stage, d.message]), [
        [
          "interceptor",
          "after the interceptors the prompt costs 148 tokens, over the budget of 80; the final fit removed 1 messages"
        ],
        ["tokenizer", "tokenizer \"approximate-chars-v1\" is approximate"]
      ])
      assert.strictEqual(audit.startedAt, 1_000)
    }))

  it.effect("summary and final-budget reasons; a fallback is recorded", () =>
    Effect.gen(function*() {
      const summarized = yield* fitPrompt(messages, {
        ...options,
        strategy: "summarize",
        interceptors: [],
        omitted: []
      })
      assert.deepStrictEqual(
        summarized.audit.blocks.filter((b) => b.origin === "inserted").map((b) => [b.included, b.reason]),
        [[true, "summary"]]
      )
      const liar: PluginStrategy = {
        id: "liar",
        fit: (input) => ({ ...strategies.truncate.fit(input, approximateCounter, 1e9), fits: true })
      }
      const refitted = yield* fitPrompt(messages, { ...options, strategy: liar, interceptors: [], omitted: [] })
      assert.isTrue(
        refitted.audit.blocks.some((b) => !b.included && b.reason === "final-budget" && b.origin === "input")
      )
      assert.deepStrictEqual(refitted.audit.diagnostics[0]?.stage, "strategy")
      const broken: PluginStrategy = { id: "broken", fit: () => null as never }
      const fallback = yield* fitPrompt(messages, { ...options, strategy: broken, interceptors: [], omitted: [] })
      assert.deepStrictEqual(fallback.audit.strategy, { requested: "broken", ran: "truncate", fallback: true })
    }))

  it("an exact tokenizer adds no approximate diagnostic", () => {
    const exact: TokenCounter = { id: "exact-v1", approximate: false, count: (text) => Math.ceil(text.length / 4) }
    const prompt = Effect.runSync(fitPrompt(messages, { ...options, countTokens: exact, interceptors: [] }))
    assert.deepStrictEqual(prompt.audit.tokenizer, { profile: "exact-v1", approximate: false })
    assert.isFalse(prompt.audit.diagnostics.some((d) => d.stage === "tokenizer"))
  })

  it("is finalized once with a terminal status; a provider error keeps only its code", () => {
    const pending = Effect.runSync(fitPrompt(messages, options)).audit
    const completed = finalizeAudit(pending, { status: "completed" }, 2_000)
    assert.strictEqual(completed.status, "completed")
    assert.strictEqual(completed.finishedAt, 2_000)
    assert.strictEqual(completed.errorCode, undefined)
    assert.strictEqual(finalizeAudit(completed, { status: "cancelled" }), completed)
    assert.strictEqual(finalizeAudit(pending, { status: "cancelled" }).status, "cancelled")
    const failed = finalizeAudit(pending, {
      status: "failed",
      error: { status: 429, error: { message: "secret body: you are over quota", type: "rate_limit_error" } }
    })
    assert.strictEqual(failed.status, "failed")
    assert.strictEqual(failed.errorCode, "rate_limited")
    assert.notInclude(JSON.stringify(Schema.encodeSync(PromptContextAudit)(failed)), "secret body")
    assert.strictEqual(finalizeAudit(pending, { status: "failed", errorCode: "timeout" }).errorCode, "timeout")
    assert.strictEqual(finalizeAudit(pending, { status: "failed" }).errorCode, "unknown")
    // The pending value itself is untouched.
    assert.strictEqual(pending.status, "pending")
  })

  it("normalizes provider errors to stable codes", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ status: 400, error: { code: "context_length_exceeded", message: "…" } }, "context_length_exceeded"],
      [{ statusCode: 503 }, "server_error"],
      [{ response: { status: 401 } }, "authentication"],
      [{ status: 529 }, "overloaded"],
      [{ code: "ECONNRESET" }, "network"],
      [{ name: "AbortError" }, "cancelled"],
      [{ _tag: "TimeoutError" }, "timeout"],
      [{ _tag: "AiError", reason: { _tag: "RateLimitError" } }, "rate_limited"],
      [{ _tag: "TokenBudgetExceeded" }, "token_budget_exceeded"],
      [{ cause: { cause: { status: 404 } } }, "not_found"],
      [new Error("socket hang up"), "unknown"],
      [418, "unknown"],
      ["insufficient_quota", "quota_exceeded"],
      [null, "unknown"]
    ]
    for (const [error, code] of cases) assert.strictEqual(normalizeProviderError(error), code, JSON.stringify(error))
  })

  it("encodes to JSON and decodes back", () => {
    const audit = finalizeAudit(Effect.runSync(fitPrompt(messages, options)).audit, { status: "completed" }, 5)
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(PromptContextAudit)(audit)))
    assert.deepStrictEqual(Schema.decodeUnknownSync(PromptContextAudit)(json), audit)
  })

  it("keeps at most 500 blocks: every sent block, then the most recent left out; totals add up", () => {
    const long: ReadonlyArray<Message> = Array.from({ length: 1_200 }, (_, i): Message =>
      i === 0
        ? { role: "system", content: "sys" }
        : { role: i % 2 === 1 ? "user" : "assistant", content: `message ${i} ${"w".repeat(i % 7 * 10)}` })
    const prompt = Effect.runSync(
      fitPrompt(long, { ...options, strategy: "truncate", interceptors: [], omitted: [], contextLimit: 2_000 })
    )
    const audit = prompt.audit
    const all = long.length
    assert.strictEqual(audit.blocks.length, MAX_AUDIT_ENTRIES)
    assert.strictEqual(audit.blocks.length + audit.blocksOmitted.count, all)
    assert.strictEqual(audit.blocksOmitted.included, 0)
    const sent = prompt.messages.length
    assert.strictEqual(audit.blocks.filter((b) => b.included).length, sent)
    // The kept left-out blocks are the most recent ones.
    const left = audit.blocks.filter((b) => !b.included).map((b) => b.index ?? -1)
    const allLeft = prompt.interceptors.result.excluded.map((e) => e.index).sort((a, b) => a - b)
    assert.deepStrictEqual(left, allLeft.slice(allLeft.length - left.length))
    const positions = audit.blocks.map((b) => b.position)
    assert.deepStrictEqual(positions, [...positions].sort((a, b) => a - b))
    const tokens = prompt.interceptors.result.excluded.reduce((sum, e) => sum + (e.tokens ?? Number.NaN), 0) +
      prompt.tokens
    assert.strictEqual(audit.blocks.reduce((sum, b) => sum + b.tokens, 0) + audit.blocksOmitted.tokens, tokens)
  })

  it("keeps at most 500 diagnostics", () => {
    const memories: ReadonlyArray<Message> = [
      ...Array.from({ length: 700 }, (_, i): Message => ({
        role: "system",
        source: "memory",
        content: `memory ${i}`,
        meta: { relevance: 7 }
      })),
      { role: "user", content: "q" }
    ]
    const audit =
      Effect.runSync(fitPrompt(memories, { ...options, strategy: "vector-recall", interceptors: [], omitted: [] }))
        .audit
    assert.strictEqual(audit.diagnostics.length, MAX_AUDIT_ENTRIES)
    assert.strictEqual(audit.diagnosticsOmitted, 701 - MAX_AUDIT_ENTRIES)
  })

  it("can be built from runStrategy and runInterceptors by hand", () => {
    const fitOptions = { format: canonical }
    const audit = Effect.runSync(Effect.gen(function*() {
      const strategy = yield* runStrategy(strategies.truncate, messages, approximateCounter, 64, fitOptions)
      const interceptors = yield* runInterceptors(strategy.result, [], approximateCounter, 64, fitOptions)
      return startAudit({
        generationId: "g",
        provider: "p",
        model: "m",
        contextLimit: 128,
        reservedForReply: 64,
        messages,
        strategy,
        interceptors,
        countTokens: approximateCounter,
        options: fitOptions
      })
    }))
    assert.deepStrictEqual(audit.blocks.map((b) => b.reason), [
      "protected",
      "context-shift",
      "context-shift",
      "fits",
      "pinned",
      "fits",
      "protected"
    ])
  })
})

describe("preview", () => {
  it.effect("equals the real run and creates nothing", () =>
    Effect.gen(function*() {
      const real = yield* fitPrompt(messages, options)
      const shown = yield* preview(messages, options)
      assert.deepStrictEqual(shown, real)
      assert.strictEqual(shown.audit.status, "pending")
      // The input is deep-frozen: a write would have thrown. Twice gives the same.
      assert.deepStrictEqual(yield* preview(messages, options), shown)
    }))

  it.effect("tells interceptors it is a preview, and registers nothing", () =>
    Effect.gen(function*() {
      const seen: Array<boolean> = []
      const watcher: PromptInterceptor<Message> = {
        id: "watcher",
        intercept: (list, context) => {
          seen.push(context.preview)
          return list
        }
      }
      const service = yield* ContextStrategies
      const registry = yield* service.registry
      yield* preview(messages, { ...options, interceptors: [watcher], registry })
      yield* fitPrompt(messages, { ...options, interceptors: [watcher], registry })
      assert.deepStrictEqual(seen, [true, false])
      assert.strictEqual(yield* service.registry, registry)
    }).pipe(Effect.provide(ContextStrategies.layer)))

  it.effect("an unknown strategy id fails with UnknownStrategy", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(preview(messages, { ...options, strategy: "smart" }))
      assert.instanceOf(error, UnknownStrategy)
      assert.isTrue(error.message.startsWith("Unknown context strategy \"smart\""))
      const empty = yield* Effect.flip(fitPrompt(messages, { ...options, strategy: "" }))
      assert.isTrue(empty.message.startsWith("Unknown context strategy \"\""))
      // A registry of one's own resolves its ids.
      const mine = ContextStrategyRegistry.register(ContextStrategyRegistry.builtins, {
        id: "smart",
        fit: strategies.truncate.fit
      })
      const ok = yield* preview(messages, { ...options, strategy: "smart", registry: mine.registry })
      assert.strictEqual(ok.audit.strategy.ran, "smart")
    }))

  it.effect("a prompt whose protected context does not fit says so", () =>
    Effect.gen(function*() {
      const shown = yield* preview(messages, { ...options, contextLimit: 30, reservedForReply: 10, interceptors: [] })
      assert.isFalse(shown.fits)
      assert.isFalse(shown.audit.fits)
    }))
})
