import { o200kCounter } from "@ctxkit/budget/o200k"
import { InvalidEffectAiOption, tokenizerLayer } from "@ctxkit/effect-ai"
import { conversation } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { AiError, Prompt, Tokenizer } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { lastUser, splitsAPair } from "../../../tests/promptChecks.ts"
import { runs } from "../../../tests/runs.ts"

/** Runs `f` with the tokenizer of `tokenizerLayer(options)`. */
const withOurs = <A>(f: (t: Tokenizer.Service) => Effect.Effect<A, AiError.AiError>, counter?: typeof o200kCounter) =>
  Effect.runSync(
    Effect.flatMap(Effect.service(Tokenizer.Tokenizer), f).pipe(
      Effect.provide(tokenizerLayer(counter === undefined ? {} : { counter })),
      Effect.orDie
    )
  )

const ours = (): Tokenizer.Service => withOurs((t) => Effect.succeed(t))

/** effect/ai's stock truncation, over exactly our counts: only the truncation differs. */
const stock = (counts: Tokenizer.Service): Tokenizer.Service => Tokenizer.make({ tokenize: (p) => counts.tokenize(p) })

const run = <A, E>(effect: Effect.Effect<A, E>): A => Effect.runSync(effect)

/** Whether `out` keeps the current request of `prompt` (trivially, when it has none). */
const keepsRequest = (prompt: Prompt.Prompt, out: Prompt.Prompt): boolean => {
  const request = lastUser(prompt)
  return request === undefined || out.content.includes(request)
}

/** Generated effect/ai prompts (system first, parallel calls, far results, approvals), decoded with Prompt.make. */
const prompts = conversation("effectAi", { huge: false }).map((rendered) =>
  Prompt.make(rendered.messages as ReadonlyArray<Prompt.MessageEncoded>)
)

describe("tokenizerLayer, side by side with effect/ai's Tokenizer.make", () => {
  it("over 40 generated prompts at half their cost: ours never drops the system message or splits a pair; the stock one does", () => {
    const sample = fc.sample(prompts, { numRuns: 40, seed: 14 })
    const counts = ours()
    const theirs = stock(counts)
    let stockDroppedSystem = 0
    let stockSplit = 0
    let stockDroppedRequest = 0
    let oursFitted = 0
    for (const prompt of sample) {
      assert.isFalse(splitsAPair(prompt), "the generated input has no split pair")
      const system = prompt.content[0]
      assert.strictEqual(system?.role, "system")
      const total = run(counts.tokenize(prompt)).length
      const budget = Math.max(1, Math.floor(total / 2))
      const stockOut = run(theirs.truncate(prompt, budget))
      if (!stockOut.content.includes(system!)) stockDroppedSystem++
      if (splitsAPair(stockOut)) stockSplit++
      if (!keepsRequest(prompt, stockOut)) stockDroppedRequest++

      const exit = Effect.runSyncExit(counts.truncate(prompt, budget))
      if (Exit.isFailure(exit)) {
        // A refusal only when the protected messages alone cost more than the budget.
        const error = Exit.findErrorOption(exit)
        assert.isTrue(error._tag === "Some" && error.value.reason._tag === "InvalidRequestError")
        continue
      }
      oursFitted++
      const out = exit.value
      assert.isTrue(out.content.includes(system!), "ours keeps the system message")
      assert.isTrue(keepsRequest(prompt, out), "ours keeps the current request")
      assert.isFalse(splitsAPair(out), "ours never splits a call from its result")
      assert.isAtMost(run(counts.tokenize(out)).length, budget)
    }
    // The comparison is real: the stock truncation fails on these very prompts.
    assert.isAtLeast(stockDroppedSystem, 1)
    assert.isAtLeast(stockSplit, 1)
    assert.isAtLeast(oursFitted, 30)
    assert.isAtLeast(stockDroppedSystem + stockSplit + stockDroppedRequest, 30)
  })

  it("the whitespace proof of research §1.2: the stock one keeps user,assistant at 7 and nothing at 1; ours keeps the system", () => {
    const prompt = Prompt.make([
      { role: "system", content: "a b c" },
      { role: "user", content: "d e f g" },
      { role: "assistant", content: "h i" }
    ])
    const words = (p: Prompt.Prompt) =>
      Effect.succeed(
        p.content.flatMap((m) =>
          (typeof m.content === "string" ? m.content : m.content.map((x) => x.type === "text" ? x.text : "").join(" "))
            .split(" ")
        ).map((_, i) => i)
      )
    const theirs = Tokenizer.make({ tokenize: words })
    assert.deepStrictEqual(run(theirs.truncate(prompt, 7)).content.map((m) => m.role), ["user", "assistant"])
    assert.deepStrictEqual(run(theirs.truncate(prompt, 1)).content, [])
    const mine = ours()
    // Costs with the approximate counter: 2 + 4, 2 + 4, 1 + 4 tokens.
    assert.deepStrictEqual(run(mine.tokenize(prompt)).length, 17)
    assert.deepStrictEqual(run(mine.truncate(prompt, 12)).content.map((m) => m.role), ["system", "user"])
    assert.strictEqual(Exit.isFailure(Effect.runSyncExit(mine.truncate(prompt, 1))), true)
  })
})

describe("tokenizerLayer laws (L1-L5, L7, L8) on generated prompts", () => {
  const budgetShare = fc.double({ min: 0.05, max: 1.2, noNaN: true })

  it("kept is an order-preserving subsequence of the same objects, pair-safe, protected, within the budget", () => {
    const t = ours()
    fc.assert(
      fc.property(prompts, budgetShare, (prompt, share) => {
        const total = run(t.tokenize(prompt)).length
        const budget = Math.max(1, Math.floor(total * share))
        const exit = Effect.runSyncExit(t.truncate(prompt, budget))
        if (Exit.isFailure(exit)) return share < 1
        const out = exit.value.content
        let at = 0
        for (const m of out) {
          const found = prompt.content.indexOf(m, at)
          if (found < 0) return false
          at = found + 1
        }
        return !splitsAPair(exit.value) && out.includes(prompt.content[0]!) &&
          keepsRequest(prompt, exit.value) && run(t.tokenize(exit.value)).length <= budget &&
          (budget < total || out.length === prompt.content.length)
      }),
      { numRuns: runs.some }
    )
  })

  it("a larger budget never keeps less, and truncating the output again changes nothing", () => {
    const t = ours()
    fc.assert(
      fc.property(prompts, budgetShare, budgetShare, (prompt, a, b) => {
        const total = run(t.tokenize(prompt)).length
        const [small, large] = [Math.min(a, b), Math.max(a, b)].map((s) => Math.max(1, Math.floor(total * s)))
        const smallExit = Effect.runSyncExit(t.truncate(prompt, small!))
        const largeExit = Effect.runSyncExit(t.truncate(prompt, large!))
        if (Exit.isFailure(smallExit)) return true
        if (Exit.isFailure(largeExit)) return false
        const again = run(t.truncate(smallExit.value, small!))
        return largeExit.value.content.length >= smallExit.value.content.length &&
          again.content.length === smallExit.value.content.length &&
          again.content.every((m, i) => m === smallExit.value.content[i])
      }),
      { numRuns: runs.some }
    )
  })
})

describe("tokenizerLayer edge cases", () => {
  const prompt = Prompt.make([
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "List the files." },
    { role: "assistant", content: [{ type: "tool-call", id: "c1", name: "ls", params: {} }] },
    {
      role: "tool",
      content: [{ type: "tool-result", id: "c1", name: "ls", isFailure: false, result: "a.ts\n".repeat(200) }]
    },
    { role: "user", content: "Now read b.ts." }
  ])

  it("bad budgets (0, negative, NaN, Infinity) fail with AiError InvalidRequestError naming the budget", () => {
    const t = ours()
    for (const tokens of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = run(Effect.flip(t.truncate(prompt, tokens)))
      assert.instanceOf(error, AiError.AiError)
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      assert.include(error.message, `The token budget ${String(tokens)} is not a finite number of tokens > 0`)
    }
  })

  it("a prompt whose protected messages alone do not fit fails with the protected cost; it never returns an empty prompt", () => {
    const error = run(Effect.flip(ours().truncate(prompt, 10)))
    assert.strictEqual(error.reason._tag, "InvalidRequestError")
    if (error.reason._tag !== "InvalidRequestError") return
    assert.deepStrictEqual(error.reason.metadata["ctxkit"], { tokens: 10, protectedTokens: 18 })
    assert.include(error.message, "The protected context alone costs 18 tokens, more than the budget of 10")
  })

  it("tokenize counts with the counter given, and accepts a string and encoded messages", () => {
    const approx = run(ours().tokenize("hello world, this is a longer text")).length
    const exact = withOurs((t) => t.tokenize("hello world, this is a longer text"), o200kCounter).length
    assert.strictEqual(approx, Math.ceil(34 / 4) + 4)
    assert.strictEqual(exact, o200kCounter.count("hello world, this is a longer text") + 4)
    const fn = Effect.runSync(
      Effect.flatMap(Effect.service(Tokenizer.Tokenizer), (t) => t.tokenize([{ role: "user", content: "abc" }])).pipe(
        Effect.provide(tokenizerLayer({ counter: (text) => text.length * 10 })),
        Effect.orDie
      )
    )
    assert.strictEqual(fn.length, 34)
  })

  it("a malformed prompt fails with InvalidUserInputError, not a defect", () => {
    const bad = [{ role: "robot", content: 1 }] as unknown as ReadonlyArray<Prompt.MessageEncoded>
    const error = run(Effect.flip(ours().tokenize(bad)))
    assert.strictEqual(error.reason._tag, "InvalidUserInputError")
  })

  it("a counter option that is not a counter fails the layer with InvalidEffectAiOption", () => {
    for (const counter of [42, "o200k", { count: 1 }] as const) {
      const exit = Effect.runSyncExit(
        Effect.provide(Effect.service(Tokenizer.Tokenizer), tokenizerLayer({ counter: counter as never }))
      )
      const error = Exit.findErrorOption(exit)
      assert.isTrue(error._tag === "Some")
      if (error._tag !== "Some") return
      assert.instanceOf(error.value, InvalidEffectAiOption)
      assert.strictEqual(error.value.option, "counter")
    }
  })

  it("the TSDoc example: at 60 tokens the old question goes, then the call with its result", () => {
    assert.deepStrictEqual(run(ours().truncate(prompt, 60)).content, [prompt.content[0], prompt.content[4]])
  })

  it("the input prompt is never mutated", () => {
    const before = JSON.stringify(prompt)
    run(ours().truncate(prompt, 40))
    assert.strictEqual(JSON.stringify(prompt), before)
  })
})
