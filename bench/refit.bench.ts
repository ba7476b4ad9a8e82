/**
 * Re-counting a growing conversation: a turn is appended, and the conversation is counted again with the
 * shared `CostCache` (`refit(...)`), against counting it from scratch (`scratch(...)`), at 1k, 10k and 100k
 * messages (`generateConversation`, canonical format).
 *
 * Each `refit` operation replaces the last message by a fresh object (a new ~240-character user turn, the
 * median message size) and counts the whole conversation with the cache: one message is counted, every other
 * one is a cache hit. The cases, all in one comparison per size:
 * - `floor-sum`: summing an array of precomputed costs — the least work any total needs;
 * - `floor-lookup`: one `WeakMap.get` per message — the least work any identity-keyed cache needs (baseline);
 * - `refit(approx)`, `refit(o200k)`: the cached re-count with the approximate and the o200k counters;
 * - `fill(approx)`: a first count into an empty cache (what the first turn of a session costs);
 * - `scratch(approx)`: a count without a cache;
 * - `scratch(o200k)`: a count without a cache with o200k, at 1k in the comparison; at 10k in a separate run of
 *   3 samples (≈ 1.5 s per operation); not at 100k (extrapolated, and labelled so).
 *
 * Target: a refit costs about the new messages, not the whole history — `refit(o200k)` within 2× of
 * `refit(approx)` (the tokenizer runs on one message) and within 3× of `floor-lookup` at 10k and 100k.
 */
import { conversationCost, makeCostCache } from "@ctxkit/budget"
import type { CostOptions } from "@ctxkit/budget/MessageCost"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import { conversationStats, describeStats, generateConversation, SIZES } from "./conversations.ts"
import { type CaseResult, formatNs, formatRatio, formatSize, Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "refit"

const BASELINE = "floor-lookup"
const NEW_TURN = ("Now run the failing test again and tell me which assertion breaks, with the line number. ")
  .repeat(3)
  .slice(0, 240)

/**
 * A refit on a conversation the benchmark owns: its last message is replaced by a new turn (a fresh object,
 * so never in the cache) and the whole conversation is counted with `options` (which carry the shared cache).
 */
const refitter = (base: ReadonlyArray<Message>, options: CostOptions<Message>): () => number => {
  const working: Array<Message> = [...base]
  const last = working.length - 1
  return (): number => {
    working[last] = { role: "user", content: NEW_TURN }
    return conversationCost(working, options).total
  }
}

/** Runs the benchmark. */
export const run = (h: Harness): void => {
  const extra: Array<CaseResult> = []
  for (const size of SIZES) {
    const messages = generateConversation(size)
    h.log(`\n${describeStats(conversationStats(messages))}`, true)
    const costs = conversationCost(messages, { format: canonical }).costs
    const lookup = new WeakMap<object, number>()
    messages.forEach((m, i) => lookup.set(m, costs[i] ?? 0))
    const cases = [
      {
        name: "floor-sum",
        fn: () => {
          let total = 0
          for (let i = 0; i < costs.length; i++) total += costs[i] ?? 0
          return total
        }
      },
      {
        name: BASELINE,
        fn: () => {
          let total = 0
          for (let i = 0; i < messages.length; i++) total += lookup.get(messages[i] as Message) ?? 0
          return total
        }
      },
      { name: "refit(approx)", fn: refitter(messages, { format: canonical, cache: makeCostCache() }) },
      {
        name: "refit(o200k)",
        fn: refitter(messages, { format: canonical, cache: makeCostCache(), counter: o200kCounter })
      },
      {
        name: "fill(approx)",
        fn: () => conversationCost(messages, { format: canonical, cache: makeCostCache() }).total
      },
      { name: "scratch(approx)", fn: () => conversationCost(messages, { format: canonical }).total },
      ...(size <= 1_000
        ? [{
          name: "scratch(o200k)",
          fn: () => conversationCost(messages, { format: canonical, counter: o200kCounter }).total
        }]
        : [])
    ]
    h.compare({ size, baseline: BASELINE, cases })
    if (size === 10_000) {
      const few = new Harness(name, { ...h.options, samples: 3, warmupMs: 0 })
      const [result] = few.compare({
        title: `${name} @ ${formatSize(size)}: scratch(o200k), 3 samples (separate run)`,
        size,
        baseline: "scratch(o200k)",
        cases: [{
          name: "scratch(o200k)",
          fn: () => conversationCost(messages, { format: canonical, counter: o200kCounter }).total
        }]
      })
      if (result !== undefined) {
        h.results.push(result)
        extra.push(result)
      }
    }
  }

  const at = (caseName: string, size: number): CaseResult | undefined =>
    h.results.find((r) => r.name === caseName && r.size === size)
  const rows: Array<Array<string>> = []
  const verdicts: Array<string> = []
  for (const size of SIZES) {
    const refitApprox = at("refit(approx)", size)
    const refitExact = at("refit(o200k)", size)
    const scratchApprox = at("scratch(approx)", size)
    const scratchExact = at("scratch(o200k)", size)
    const perChar10k = at("scratch(o200k)", 10_000)
    const estimatedScratch = scratchExact?.medianNs ??
      (perChar10k === undefined ? undefined : perChar10k.medianNs * (size / 10_000))
    rows.push([
      formatSize(size),
      formatNs(refitApprox?.medianNs ?? Number.NaN),
      formatNs(scratchApprox?.medianNs ?? Number.NaN),
      formatRatio((scratchApprox?.medianNs ?? Number.NaN) / (refitApprox?.medianNs ?? Number.NaN)),
      formatNs(refitExact?.medianNs ?? Number.NaN),
      `${formatNs(estimatedScratch ?? Number.NaN)}${scratchExact === undefined ? " (extrapolated)" : ""}${
        extra.some((r) => r.size === size) ? " (3 samples)" : ""
      }`,
      formatRatio((estimatedScratch ?? Number.NaN) / (refitExact?.medianNs ?? Number.NaN)),
      formatRatio(refitExact?.ratios[BASELINE])
    ])
    if (size >= 10_000) {
      const vsApprox = (refitExact?.medianNs ?? Infinity) / (refitApprox?.medianNs ?? 0)
      const vsLookup = refitExact?.ratios[BASELINE] ?? Infinity
      verdicts.push(
        `${formatSize(size)}: refit(o200k) ${formatRatio(vsApprox)} refit(approx) (target ≤ 2×): ${
          vsApprox <= 2 ? "MET" : "NOT MET"
        }; ${formatRatio(vsLookup)} ${BASELINE} (target ≤ 3×): ${vsLookup <= 3 ? "MET" : "NOT MET"}`
      )
    }
  }
  printTable(`${name}: append a turn and count again (cached) vs count from scratch`, [
    "size",
    "refit(approx)",
    "scratch(approx)",
    "scratch/refit",
    "refit(o200k)",
    "scratch(o200k)",
    "scratch/refit",
    `refit(o200k) vs ${BASELINE}`
  ], rows)
  h.printGrowth(["floor-sum", BASELINE, "refit(approx)", "refit(o200k)", "fill(approx)", "scratch(approx)"])
  h.log("")
  for (const v of verdicts) h.log(`Target — ${v}`, true)
}
