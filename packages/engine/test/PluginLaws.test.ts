import { formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import { type PromptInterceptor, runInterceptors, runStrategy } from "@ctxkit/engine"
import { type CountTokens, type FitOptions, type FitResult, type PluginStrategy, strategies } from "@ctxkit/fit"
import {
  conversation,
  fitViolations,
  type FormatName,
  formatNames,
  formatOf,
  identityViolations,
  pairViolations,
  partitionViolations,
  type StrategyUnderTest
} from "@ctxkit/testing"
import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

type Fit = <M>(
  messages: ReadonlyArray<M>,
  countTokens: CountTokens,
  budget: number,
  options?: FitOptions<M>
) => unknown

const lensOf = <M>(options: FitOptions<M> | undefined): MessageFormat<M> =>
  options?.format ?? (formats.auto as unknown as MessageFormat<M>)

/** Plugin strategies that misbehave, each in its own way (synchronously, so that the laws can run them). */
const misbehaving: ReadonlyArray<readonly [string, Fit]> = [
  ["lawful summary", (m, c, b, o) => strategies.summarize.fit(m, c, b, o)],
  ["drops protected", (m, c, b, o) => {
    const r = strategies.truncate.fit(m, c, b, o)
    const lens = lensOf(o)
    return { ...r, kept: r.kept.filter((x) => !lens.isProtected(x) && !lens.isPinned(x)) }
  }],
  ["drops everything", (m, c, b, o) => ({ ...strategies.truncate.fit(m, c, b, o), kept: [] })],
  ["splits groups", (m, c, b, o) => ({
    ...strategies.truncate.fit(m, c, b, o),
    kept: m.filter((x) => lensOf(o).role(x) !== "tool")
  })],
  ["keeps everything, says it fits", (m, c, b, o) => ({ ...strategies.truncate.fit(m, c, b, o), kept: m, fits: true })],
  ["adds a message", (m, c, b, o) => {
    const r = strategies.truncate.fit(m, c, b, o)
    return { ...r, kept: [...r.kept, lensOf(o).makeNote("sneaky", { role: "user", kind: "note" })] }
  }],
  ["inserts a huge note", (m, c, b, o) => {
    const r = strategies.truncate.fit(m, c, b, o)
    const note = lensOf(o).makeNote("n".repeat(4_000), { role: "system", kind: "note" })
    return { ...r, kept: [note, ...r.kept], inserted: [note] }
  }],
  ["reverses", (m, c, b, o) => {
    const r = strategies.truncate.fit(m, c, b, o)
    return { ...r, kept: [...r.kept].reverse() }
  }],
  ["repeats", (m, c, b, o) => {
    const r = strategies.truncate.fit(m, c, b, o)
    return { ...r, kept: [...r.kept, ...r.kept] }
  }],
  ["returns null", () => null],
  ["returns a string", () => "fitted!"],
  ["throws", () => {
    throw new Error("plugin bug")
  }]
]

const plugin = (id: string, fit: Fit): PluginStrategy => ({ id, fit } as PluginStrategy)

/** Picks a misbehaviour from the input and the budget: deterministic, so that the purity law holds. */
const chaotic: PluginStrategy = plugin("chaotic", (m, c, b, o) => {
  const pick = misbehaving[(m.length * 31 + Math.floor(Number.isFinite(b) ? b : 0)) % misbehaving.length]
  return pick === undefined ? null : pick[1](m, c, b, o)
})

const guarded = (strategy: PluginStrategy): StrategyUnderTest => ({
  id: `guarded ${strategy.id}`,
  fit: (input, countTokens, budget, options) =>
    Effect.runSync(runStrategy(strategy, input, countTokens, budget, options as FitOptions<unknown>)).result
})

const approximate = (text: string): number => Math.ceil(text.length / 4)

/** Tokens of the protected messages and their tool-call groups, and of everything. */
const protectedAndTotal = (input: ReadonlyArray<unknown>, lens: MessageFormat<unknown>): readonly [number, number] => {
  const cost = (m: unknown): number => approximate(lens.text(m)) + 4
  const { groupOf } = toolGroups(input, lens)
  let current = -1
  for (let i = input.length - 1; i >= 0; i--) {
    if (lens.role(input[i]) === "user" && !lens.isSummary(input[i])) {
      current = i
      break
    }
  }
  const locked = new Set<number>()
  input.forEach((m, i) => {
    if (i === current || lens.isProtected(m) || lens.isPinned(m)) locked.add(groupOf[i] ?? -1)
  })
  let guarded = 0
  let total = 0
  input.forEach((m, i) => {
    total += cost(m)
    if (locked.has(groupOf[i] ?? -1)) guarded += cost(m)
  })
  return [guarded, total]
}

/**
 * The fitting laws of @ctxkit/testing for a guarded plugin, on generated conversations at budgets from below what
 * the protected context needs to above the whole conversation. L8 (idempotence) is left out: it is the plugin's
 * own property (one that inserts a note on every call inserts one again), which no host can restore.
 */
const guardLaws = (strategy: PluginStrategy, wire: FormatName) => {
  const lens = formatOf(wire)
  return fc.property(conversation(wire), fc.integer({ min: -250, max: 1_100 }), (rendered, perMille) => {
    const [locked, total] = protectedAndTotal(rendered.messages, lens)
    const share = perMille / 1_000
    const budget = Math.max(1, Math.floor(share < 0 ? locked * (1 + share) : locked + (total - locked) * share))
    const violations = fitViolations(guarded(strategy), rendered.messages, budget, { format: lens })
      .filter((v) => !v.startsWith("L8"))
    if (violations.length > 0) {
      throw new Error(`${strategy.id} at ${budget} of ${total} tokens:\n${violations.join("\n")}`)
    }
  })
}

describe("a misbehaving plugin strategy never breaks the fitting laws (through the guard)", () => {
  for (const wire of formatNames) {
    it(`each misbehaviour, on ${wire}`, () => {
      for (const [id, fit] of misbehaving) fc.assert(guardLaws(plugin(id, fit), wire), { numRuns: runs.few })
    })
    it(`a chaotic plugin, on ${wire}`, () => {
      fc.assert(guardLaws(chaotic, wire), { numRuns: runs.standard })
    })
  }
})

/** Interceptors that misbehave; each sees the format through its context. */
const interceptors: ReadonlyArray<PromptInterceptor<unknown>> = [
  { id: "adds huge pinned", intercept: (list, { format }) => [...list, pinnedNote(format, "h".repeat(6_000))] },
  {
    id: "adds at the start",
    intercept: (list, { format }) => [format.makeNote("early", { role: "system", kind: "note" }), ...list]
  },
  { id: "removes everything", intercept: () => [] },
  { id: "removes every other", intercept: (list) => list.filter((_, i) => i % 2 === 0) },
  { id: "removes tool results", intercept: (list, { format }) => list.filter((m) => format.role(m) !== "tool") },
  {
    id: "throws",
    intercept: () => {
      throw new Error("interceptor bug")
    }
  },
  { id: "returns garbage", intercept: () => 42 as never },
  { id: "reverses", intercept: (list) => [...list].reverse() },
  { id: "fails", intercept: () => Effect.fail("nope") }
]

/** A note pinned the way the format pins (a top-level `pinned: true` is read by every shipped format). */
const pinnedNote = <M>(format: MessageFormat<M>, text: string): M => {
  const note = format.makeNote(text, { role: "user", kind: "note" })
  return (typeof note === "object" && note !== null ? { ...note, pinned: true } : note) as M
}

/** The laws of the final result: partition, pairs, identity, budget and protection. */
const finalViolations = (
  input: ReadonlyArray<unknown>,
  result: FitResult<unknown>,
  budget: number,
  lens: MessageFormat<unknown>
): Array<string> => {
  const selection = {
    kept: result.kept,
    excluded: result.excluded.map((e) => e.message),
    inserted: result.inserted,
    replaced: result.truncated
  }
  const out = [
    ...partitionViolations(input, selection),
    ...pairViolations(input, selection, lens),
    ...identityViolations(selection, lens)
  ]
  const recount = result.kept.reduce((sum: number, m) => sum + approximate(lens.text(m)) + 4, 0)
  if (recount !== result.tokens) out.push(`L5: tokens ${result.tokens}, recount ${recount}`)
  if (result.fits && recount > budget) out.push(`L5: over budget: ${recount} > ${budget}`)
  if (result.fits) {
    const kept = new Set(result.kept)
    let current = -1
    for (let i = input.length - 1; i >= 0; i--) {
      if (lens.role(input[i]) === "user" && !lens.isSummary(input[i])) {
        current = i
        break
      }
    }
    input.forEach((m, i) => {
      if ((i === current || lens.isProtected(m) || lens.isPinned(m)) && !kept.has(m)) {
        out.push(`L4: protected ${i} lost`)
      }
    })
  }
  // No group of what is sent is split either (an addition joined to nothing, a restored group whole).
  const groups = toolGroups(result.kept, lens).diagnostics.filter((d) => d._tag === "OrphanResult")
  if (!toolGroups(input, lens).diagnostics.some((d) => d._tag === "OrphanResult") && groups.length > 0) {
    out.push("L2: an orphan result is sent")
  }
  return out
}

describe("misbehaving interceptors never produce an over-budget or pair-splitting prompt", () => {
  for (const wire of formatNames) {
    it(`on ${wire}`, () => {
      const lens = formatOf(wire as FormatName)
      fc.assert(
        fc.property(
          conversation(wire),
          fc.integer({ min: 5, max: 110 }),
          fc.subarray([...interceptors], { minLength: 1 }),
          fc.constantFrom(
            ...misbehaving.map(([id, fit]) => plugin(id, fit)),
            strategies.truncate,
            strategies.summarize
          ),
          (rendered, share, chosen, strategy) => {
            const input = rendered.messages
            const total = input.reduce((sum: number, m) => sum + approximate(lens.text(m)) + 4, 0)
            const budget = Math.max(1, Math.floor(total * share / 100))
            const options = { format: lens }
            const result = Effect.runSync(Effect.gen(function*() {
              const fitted = yield* runStrategy(strategy, input, approximate, budget, options)
              return yield* runInterceptors(fitted.result, chosen, approximate, budget, options)
            }))
            const violations = finalViolations(input, result.result, budget, lens)
            if (violations.length > 0) {
              throw new Error(
                `${strategy.id} + [${chosen.map((i) => i.id).join(", ")}] at ${budget} of ${total}:\n${
                  violations.join("\n")
                }`
              )
            }
          }
        ),
        { numRuns: runs.standard }
      )
    })
  }
})
