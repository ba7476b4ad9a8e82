/**
 * `@ctxkit/effect-ai`'s `tokenizerLayer` against `effect/ai`'s stock `Tokenizer.make` truncation, on the same
 * prompts, in the same run:
 *
 * - **Correctness**: over 40 generated `effect/ai` prompts (`@ctxkit/testing`'s `conversation("effectAi")`, the
 *   same seed as the side-by-side test) truncated to half their cost, and over 5 generated 300-message
 *   conversations (`conversations.ts`) at 10%, 25%, 50% and 90% of their cost: how often each drops the system
 *   message, splits a tool call from its result, or drops the current request; and how often ours refuses (its
 *   protected messages alone are over the budget: `AiError`, never an empty prompt).
 * - **Speed**: one `truncate` of a 500-, 1k- and 10k-message prompt to half its cost. Each side counts every
 *   message once per call: ours through a fresh layer per call (so its identity cache carries nothing over), the
 *   stock one through `peers/effectAi.ts` (counts memoized for one call). The stock one is quadratic and takes
 *   about 7 s a call at 1k on this machine, so it runs at 500 (3 samples) and 1k (2 samples, full runs only),
 *   never at 10k, where one call would take minutes.
 *
 * Targets: ours never drops the system message or the current request and never splits a pair; ours grows about
 * linearly from 1k to 10k (≤ 13×).
 */
import { approximateCounter } from "@ctxkit/budget"
import type { Message } from "@ctxkit/core/Message"
import { tokenizerLayer } from "@ctxkit/effect-ai"
import { conversation } from "@ctxkit/testing"
import { Prompt, Tokenizer } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { lastUser, splitsAPair } from "../tests/promptChecks.ts"
import { generateConversation } from "./conversations.ts"
import { formatRatio, formatSize, type Harness, printTable } from "./harness.ts"
import { effectAiTruncate, toEffectAi } from "./peers/effectAi.ts"
import { compareTimed, type TimedCase } from "./peers/measure.ts"

/** Name used for the results file and on the command line. */
export const name = "effectAiTokenizer"

const OURS = "ctxkit tokenizerLayer"
const STOCK = "effect/ai Tokenizer.make"
const LINEAR_LIMIT = 13
/** Size of the long conversations of the correctness check (the stock truncation is slow beyond it). */
const LONG_SIZE = 300

/** A fresh tokenizer from the layer: nothing counted yet. */
const freshOurs = (): Tokenizer.Service =>
  Effect.runSync(Effect.provide(Effect.service(Tokenizer.Tokenizer), tokenizerLayer()).pipe(Effect.orDie))

const stockOver = (counts: Tokenizer.Service): Tokenizer.Service =>
  Tokenizer.make({ tokenize: (prompt) => counts.tokenize(prompt) })

interface Tally {
  outputs: number
  refused: number
  noSystem: number
  split: number
  noRequest: number
}

const tally = (): Tally => ({ outputs: 0, refused: 0, noSystem: 0, split: 0, noRequest: 0 })

const check = (into: Tally, input: Prompt.Prompt, output: Exit.Exit<Prompt.Prompt, unknown>): void => {
  into.outputs++
  if (Exit.isFailure(output)) {
    into.refused++
    return
  }
  const system = input.content.find((m) => m.role === "system")
  const request = lastUser(input)
  if (system !== undefined && !output.value.content.includes(system)) into.noSystem++
  if (splitsAPair(output.value)) into.split++
  if (request !== undefined && !output.value.content.includes(request)) into.noRequest++
}

const pct = (part: number, whole: number): string => `${part}/${whole} (${Math.round((100 * part) / whole)}%)`

const printTally = (h: Harness, title: string, rows: ReadonlyArray<readonly [string, Tally]>): void => {
  printTable(
    title,
    ["truncation", "outputs", "refused (AiError)", "no system message", "call split from result", "no current request"],
    rows.map(([label, t]) => [
      label,
      String(t.outputs),
      pct(t.refused, t.outputs),
      pct(t.noSystem, t.outputs),
      pct(t.split, t.outputs),
      pct(t.noRequest, t.outputs)
    ])
  )
  for (const [label, t] of rows) {
    h.log(
      `${title} | ${label}: ${t.noSystem}/${t.outputs} without the system message, ${t.split}/${t.outputs} split, ` +
        `${t.noRequest}/${t.outputs} without the current request, ${t.refused} refused`,
      true
    )
  }
}

const correctness = (h: Harness): boolean => {
  const generated = fc.sample(
    conversation("effectAi", { huge: false }).map((r) =>
      Prompt.make(r.messages as ReadonlyArray<Prompt.MessageEncoded>)
    ),
    { numRuns: 40, seed: 14 }
  )
  const oursGen = tally()
  const stockGen = tally()
  for (const prompt of generated) {
    const t = freshOurs()
    const budget = Math.max(1, Math.floor(Effect.runSync(t.tokenize(prompt)).length / 2))
    check(oursGen, prompt, Effect.runSyncExit(t.truncate(prompt, budget)))
    check(stockGen, prompt, Effect.runSyncExit(stockOver(t).truncate(prompt, budget)))
  }
  printTally(h, "40 generated effect/ai prompts (@ctxkit/testing), budget 50% of their cost", [
    [OURS, oursGen],
    [STOCK, stockGen]
  ])

  const oursLong = tally()
  const stockLong = tally()
  for (const seed of [1, 2, 3, 4, 5]) {
    const converted = toEffectAi(generateConversation(LONG_SIZE, seed))
    const prompt = converted.prompt
    const t = freshOurs()
    const total = Effect.runSync(t.tokenize(prompt)).length
    for (const share of [0.1, 0.25, 0.5, 0.9]) {
      const budget = Math.floor(total * share)
      check(oursLong, prompt, Effect.runSyncExit(t.truncate(prompt, budget)))
      check(stockLong, prompt, Exit.succeed(effectAiTruncate(converted, approximateCounter, budget)))
    }
  }
  printTally(h, `5 generated ${LONG_SIZE}-message conversations × budgets 10%, 25%, 50%, 90%`, [
    [OURS, oursLong],
    [STOCK, stockLong]
  ])
  return [oursGen, oursLong].every((t) => t.noSystem === 0 && t.split === 0 && t.noRequest === 0)
}

/** Where the stock truncation runs, with its sample caps: at 1k one call takes about 7 s, at 10k minutes. */
const stockPlan = (size: number, quick: boolean): Pick<TimedCase, "samples" | "warmupRuns"> | undefined =>
  size === 500 ? { samples: 3, warmupRuns: 1 } : size === 1_000 && !quick ? { samples: 2, warmupRuns: 0 } : undefined

const speed = async (h: Harness): Promise<boolean> => {
  for (const size of [500, 1_000, 10_000]) {
    const messages: ReadonlyArray<Message> = generateConversation(size, 1)
    const converted = toEffectAi(messages)
    const budget = Math.floor(Effect.runSync(freshOurs().tokenize(converted.prompt)).length / 2)
    const cases: Array<TimedCase> = [{
      name: OURS,
      fn: () => Effect.runSync(freshOurs().truncate(converted.prompt, budget)),
      ...(size > 1_000 ? { samples: 7, warmupRuns: 1 } : {})
    }]
    const plan = stockPlan(size, h.options.quick)
    if (plan !== undefined) {
      cases.push({ name: STOCK, fn: () => effectAiTruncate(converted, approximateCounter, budget), ...plan })
    } else {
      h.log(`${STOCK} not run at ${formatSize(size)} messages: quadratic, it would take minutes a call`, true)
    }
    await compareTimed(h, {
      title: `truncate ${formatSize(size)} messages to half their cost (approximate counter)`,
      size,
      baseline: OURS,
      cases
    })
  }
  h.printGrowth([OURS, STOCK])
  const step = (caseName: string, size: number) => h.growth(caseName).find((s) => s.size === size)?.growth
  const at = (caseName: string, size: number) =>
    h.results.find((r) => r.name === caseName && r.size === size)?.medianNs ?? Number.NaN
  const oursTo10k = at(OURS, 10_000) / at(OURS, 1_000)
  h.log(
    `growth: ${OURS} 500 → 1k ${step(OURS, 1_000)?.toFixed(1) ?? "?"}×, 1k → 10k ${oursTo10k.toFixed(1)}×; ` +
      `${STOCK} 500 → 1k ${step(STOCK, 1_000)?.toFixed(1) ?? "not run"}×; at 1k ${STOCK} takes ` +
      `${formatRatio(at(STOCK, 1_000) / at(OURS, 1_000))} the time of ours, at 500 ${
        formatRatio(at(STOCK, 500) / at(OURS, 500))
      }`,
    true
  )
  return oursTo10k <= LINEAR_LIMIT
}

/** Runs the benchmark. */
export const run = async (h: Harness): Promise<void> => {
  const correct = correctness(h)
  const linear = await speed(h)
  h.log(
    `targets: never drops the system message or the current request, never splits a pair: ${
      correct ? "met" : "MISSED"
    }; linear 1k → 10k (≤ ${LINEAR_LIMIT}×): ${linear ? "met" : "MISSED"}`,
    true
  )
}
