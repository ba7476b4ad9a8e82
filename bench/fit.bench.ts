/**
 * Fitting a conversation into a token budget: ctxkit's `shiftContext` (the `truncate` strategy, canonical
 * format) against, in the same run,
 * - `pair-safe`: the pair-safe linear reference (`peers/pairSafe.ts`) — calls grouped with their results by id
 *   through one Map, the system prompt, pinned messages and the current request charged first, then a
 *   newest-first walk that stops at the first group that does not fit; it keeps exactly what `shiftContext`
 *   keeps (checked at every size) and counts only what it walks: **the baseline**;
 * - `linear`: count each message once, one pass dropping the oldest messages until the total fits, keeping the
 *   system prompt, ignoring tool pairs (`peers/linear.ts`): a floor that gives wrong answers, for scale;
 * - `langchain`: LangChain's `trimMessages` (`@langchain/core`, `strategy: "last"`, `includeSystem`,
 *   `startOn: "human"`; `peers/langchain.ts`);
 * - `effect-ai`: `effect/ai`'s `Tokenizer.truncate` over a `Tokenizer.make` tokenizer (`peers/effectAi.ts`);
 * at 1k, 10k and 100k generated messages (`conversations.ts`: realistic size mix, parallel calls, far-apart
 * results), with the approximate counter and with o200k. The peers get their best case: a counter that counts
 * each message once per call (see their modules). Both peers are quadratic, so they are capped: LangChain runs
 * up to 10k messages, `effect/ai` at 1k (and once at 10k with the approximate counter, in a full run); the
 * output says what ran. Every conversation is converted to the peers' types once, outside the timed region.
 *
 * With the approximate counter, two diagnostic cases time the passes `shiftContext` makes over every message
 * before it removes anything: `part: conversationCost` (counting through the canonical lens into a per-call
 * cache) and `part: toolGroups` (grouping calls with their results).
 *
 * The budget of every timed fit is half the conversation's approximate cost (about 59% of its o200k cost):
 * every contender has to count everything and drop about half of the messages.
 *
 * Also measured: re-fitting a growing conversation — one turn (user, assistant with a call, its result) appended
 * to a fitted 10k-message conversation, fitted again with a shared `makeCostCache()` — against a fit from
 * scratch; and, for every contender, how often its output breaks a tool pair (an orphan result or a dangling
 * call, which the input never has) or drops the system prompt or the current request, over budgets of 10%, 25%,
 * 50% and 90% of the conversation's cost.
 *
 * Targets: ctxkit within 2× of the pair-safe reference at every size, with both counters; linear growth from 10k to 100k; a re-fit
 * after one appended turn at 10k messages under 5% of a fit from scratch with o200k.
 */
import { approximateCounter, conversationCost, makeCostCache, type TokenCounter } from "@ctxkit/budget"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import { toolGroups } from "@ctxkit/core/ToolGroups"
import { shiftContext } from "@ctxkit/fit"
import { conversationStats, describeStats, generateConversation, SIZES } from "./conversations.ts"
import { type CaseResult, formatNs, formatRatio, formatSize, type Harness, printTable } from "./harness.ts"
import { effectAiTruncate, fromEffectAi, toEffectAi } from "./peers/effectAi.ts"
import { fromLangChain, langchainTrim, toLangChain } from "./peers/langchain.ts"
import { linearFit } from "./peers/linear.ts"
import { compareTimed, type TimedCase } from "./peers/measure.ts"
import { pairSafeFit } from "./peers/pairSafe.ts"

/** Name used for the results file and on the command line. */
export const name = "fit"

/** Share of the conversation's approximate cost every timed fit gets. */
const TIMED_FRACTION = 0.5
/** Budgets of the pair and system checks, as shares of the conversation's cost. */
const CHECK_FRACTIONS: ReadonlyArray<number> = [0.1, 0.25, 0.5, 0.9]
/** Conversations (seeds) of the pair and system checks, at 1k messages each. */
const CHECK_SEEDS: ReadonlyArray<number> = [1, 2, 3, 4, 5]
const CHECK_SIZE = 1_000

const TARGET_RATIO = 2
/** Linear: at most 13 per 10× size (per-element time grows at most 30%), or 1.3× the reference's own growth. */
const LINEAR_TOLERANCE = 1.3
const REFIT_TARGET = 0.05
const REFIT_SIZE = 10_000

interface CounterSpec {
  readonly label: "approx" | "o200k"
  readonly counter: TokenCounter
}

const COUNTERS: ReadonlyArray<CounterSpec> = [
  { label: "approx", counter: approximateCounter },
  { label: "o200k", counter: o200kCounter }
]

/** Diagnostic cases: what ctxkit's counting (through the lens, into a per-call cache) and grouping cost alone. */
const PART_COST = "part: conversationCost (approx)"
const PART_GROUPS = "part: toolGroups"

const caseName = (contender: string, counter: CounterSpec): string => `${contender} (${counter.label})`

/**
 * Each contender's fit over `messages`, returning its own output. The conversions to the peers' message types
 * happen here, once per conversation (on first use), never in the timed region.
 */
const contenders = (messages: ReadonlyArray<Message>) => {
  let lc: ReturnType<typeof toLangChain> | undefined
  let ea: ReturnType<typeof toEffectAi> | undefined
  const langchainMessages = () => (lc ??= toLangChain(messages))
  const effectAiConversation = () => (ea ??= toEffectAi(messages))
  return {
    ctxkit: (counter: TokenCounter, budget: number) => shiftContext(messages, counter, budget, { format: canonical }),
    linear: (counter: TokenCounter, budget: number) => linearFit(messages, counter, budget),
    pairSafe: (counter: TokenCounter, budget: number) => pairSafeFit(messages, counter, budget),
    langchain: (counter: TokenCounter, budget: number) => langchainTrim(langchainMessages(), counter, budget),
    effectAi: (counter: TokenCounter, budget: number) => effectAiTruncate(effectAiConversation(), counter, budget),
    /** Every contender's output as the canonical messages it kept (for the checks: never timed). */
    outputs: async (
      counter: TokenCounter,
      budget: number
    ): Promise<ReadonlyArray<readonly [string, ReadonlyArray<Message>]>> => [
      ["ctxkit", shiftContext(messages, counter, budget, { format: canonical }).kept],
      ["linear", linearFit(messages, counter, budget)],
      ["pair-safe", pairSafeFit(messages, counter, budget)],
      ["langchain", fromLangChain(await langchainTrim(langchainMessages(), counter, budget), messages)],
      [
        "effect-ai",
        fromEffectAi(effectAiTruncate(effectAiConversation(), counter, budget), effectAiConversation(), messages)
      ]
    ]
  }
}

/** Which peers run at `size` with `counter`, with their sample caps (slow peers get few samples). */
const peerPlan = (size: number, counter: CounterSpec, quick: boolean): {
  readonly langchain?: Pick<TimedCase, "samples" | "warmupRuns">
  readonly effectAi?: Pick<TimedCase, "samples" | "warmupRuns">
} => {
  if (size === 1_000) return { langchain: { samples: 5, warmupRuns: 1 }, effectAi: { samples: 5, warmupRuns: 1 } }
  if (size === 10_000) {
    const langchain = counter.label === "approx" ? { samples: 5, warmupRuns: 1 } : { samples: 3, warmupRuns: 1 }
    return counter.label === "approx" && !quick
      ? { langchain, effectAi: { samples: 1, warmupRuns: 0 } }
      : { langchain }
  }
  return {}
}

/** The ctxkit and linear cases' caps: the o200k fits take seconds at 10k and more at 100k. */
const corePlan = (size: number, counter: CounterSpec, quick: boolean): Pick<TimedCase, "samples" | "warmupRuns"> => {
  if (counter.label === "approx") return {}
  if (size <= 1_000) return { samples: quick ? 3 : 7, warmupRuns: 1 }
  if (size <= 10_000) return { samples: 3, warmupRuns: 1 }
  // 100k with o200k: ~12 s a fit; the code is warm from the smaller sizes.
  return { samples: quick ? 1 : 2, warmupRuns: 0 }
}

const sameList = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

const find = (h: Harness, name: string, size: number): CaseResult | undefined =>
  h.results.find((r) => r.name === name && r.size === size)

/** The ratio of the process CPU times (median / median), which leaves out time descheduled on a shared machine. */
const cpuRatio = (r: CaseResult, reference: CaseResult): number =>
  (r.cpuMedianNs ?? Number.NaN) / (reference.cpuMedianNs ?? Number.NaN)

// ---------------------------------------------------------------------------------------------------------------
// Pair and system checks

interface Check {
  outputs: number
  brokenPairs: number
  noSystem: number
  noRequest: number
}

/** Whether `output` has an orphan result or a dangling call (the generated input never has one). */
const breaksPairs = (output: ReadonlyArray<Message>): boolean =>
  toolGroups(output, canonical).diagnostics.some((d) => d._tag === "OrphanResult" || d._tag === "DanglingCall")

const lastUserIndex = (messages: ReadonlyArray<Message>): number => {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return i
  return -1
}

const checkPairsAndSystem = async (h: Harness): Promise<void> => {
  const names = ["ctxkit", "pair-safe", "linear", "langchain", "effect-ai"] as const
  const checks = new Map<string, Check>(
    names.map((n) => [n, { outputs: 0, brokenPairs: 0, noSystem: 0, noRequest: 0 }])
  )
  for (const seed of CHECK_SEEDS) {
    const messages = generateConversation(CHECK_SIZE, seed)
    const total = conversationCost(messages, { format: canonical, counter: approximateCounter }).total
    const c = contenders(messages)
    const system = messages[0]
    const request = messages[lastUserIndex(messages)]
    for (const fraction of CHECK_FRACTIONS) {
      const budget = Math.floor(total * fraction)
      for (const [contender, output] of await c.outputs(approximateCounter, budget)) {
        const check = checks.get(contender)
        if (check === undefined) continue
        const kept = new Set(output)
        check.outputs++
        if (breaksPairs(output)) check.brokenPairs++
        if (system !== undefined && !kept.has(system)) check.noSystem++
        if (request !== undefined && !kept.has(request)) check.noRequest++
      }
    }
  }
  const pct = (part: number, whole: number): string => `${part}/${whole} (${Math.round((100 * part) / whole)}%)`
  printTable(
    `${name}: outputs that break a tool pair or drop the system prompt — ${CHECK_SEEDS.length} conversations of ` +
      `${formatSize(CHECK_SIZE)} messages × budgets ${CHECK_FRACTIONS.map((f) => `${f * 100}%`).join(", ")} ` +
      `of their cost (approximate counter)`,
    ["contender", "outputs", "orphan or dangling call", "no system prompt", "no current request"],
    names.map((n) => {
      const check = checks.get(n) ?? { outputs: 0, brokenPairs: 0, noSystem: 0, noRequest: 0 }
      return [
        n,
        String(check.outputs),
        pct(check.brokenPairs, check.outputs),
        pct(check.noSystem, check.outputs),
        pct(check.noRequest, check.outputs)
      ]
    })
  )
  for (const n of names) {
    const check = checks.get(n)
    if (check === undefined) continue
    h.log(
      `Pairs and system — ${n}: ${check.brokenPairs}/${check.outputs} outputs break a tool pair, ` +
        `${check.noSystem}/${check.outputs} drop the system prompt, ${check.noRequest}/${check.outputs} drop the ` +
        `current request`,
      true
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Re-fitting a growing conversation

const NEW_USER = "Now run the failing test again and tell me which assertion breaks, with its line number. "
  .repeat(3)
  .slice(0, 240)
const NEW_RESULT = Array.from(
  { length: 40 },
  (_, i) => `  at parseConversation (packages/core/src/DecodeConversation.ts:${100 + i}:${7 + (i % 9)})`
).join("\n")

/**
 * A re-fit: the last turn of `working` (user, assistant with one call, its result) is replaced by fresh objects,
 * so the cache has never seen them, and the whole conversation is fitted again with the shared cache.
 */
const refitter = (
  base: ReadonlyArray<Message>,
  counter: TokenCounter,
  budget: number
): () => unknown => {
  const cache = makeCostCache()
  // The conversation as fitted before the turn arrives: every message counted into the cache.
  shiftContext(base, counter, budget, { format: canonical, cache })
  const working: Array<Message> = [...base]
  const at = base.length
  let turn = 0
  return () => {
    const id = `toolu_01refit${String(turn++ % 1000).padStart(16, "0")}`
    working[at] = { role: "user", content: NEW_USER }
    working[at + 1] = {
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "Bash", arguments: "{\"command\":\"npm test -- parser\"}" }]
    }
    working[at + 2] = { role: "tool", toolCallId: id, toolName: "Bash", content: NEW_RESULT }
    return shiftContext(working, counter, budget, { format: canonical, cache })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Run

/** Runs the benchmark. */
export const run = async (h: Harness): Promise<void> => {
  const quick = h.options.quick
  h.log(
    `Budget of every timed fit: ${TIMED_FRACTION * 100}% of the conversation's approximate cost. Peers: ` +
      `LangChain trimMessages at 1k and 10k messages; effect/ai Tokenizer.truncate at 1k` +
      `${quick ? "" : " (and 1 sample at 10k with the approximate counter)"}; neither at 100k (quadratic: ` +
      `about 100× their 10k time). Peers count each message once per call (their best case).`,
    true
  )

  const conversations = new Map<number, ReadonlyArray<Message>>()
  const approxTotals = new Map<number, number>()
  for (const size of SIZES) {
    const messages = generateConversation(size)
    conversations.set(size, messages)
    approxTotals.set(size, conversationCost(messages, { format: canonical, counter: approximateCounter }).total)
    const check = toolGroups(messages, canonical)
    h.log(`${describeStats(conversationStats(messages))}; ${check.diagnostics.length} pairing diagnostics`, true)
    // The reference must give ctxkit's answer, or the ratio compares different work.
    const budget = Math.floor((approxTotals.get(size) ?? 0) * TIMED_FRACTION)
    const same = sameList(
      pairSafeFit(messages, approximateCounter, budget),
      shiftContext(messages, approximateCounter, budget, { format: canonical }).kept
    )
    h.log(`pair-safe reference keeps what shiftContext keeps @ ${formatSize(size)}: ${same ? "yes" : "NO"}`, true)
  }

  // Timed fits, per counter and size.
  const seriesNames: Array<string> = []
  for (const spec of COUNTERS) {
    for (const size of SIZES) {
      const messages = conversations.get(size) ?? []
      const budget = Math.floor((approxTotals.get(size) ?? 0) * TIMED_FRACTION)
      const c = contenders(messages)
      const core = corePlan(size, spec, quick)
      const peers = peerPlan(size, spec, quick)
      const counter = spec.counter
      const cases: Array<TimedCase> = [
        { name: caseName("pair-safe", spec), fn: () => c.pairSafe(counter, budget), ...core },
        { name: caseName("ctxkit", spec), fn: () => c.ctxkit(counter, budget), ...core },
        { name: caseName("linear", spec), fn: () => c.linear(counter, budget), ...core }
      ]
      if (spec.label === "approx") {
        // Diagnostics: the two passes over every message that shiftContext makes before it removes anything.
        cases.push(
          {
            name: PART_COST,
            fn: () => conversationCost(messages, { format: canonical, counter, cache: makeCostCache() })
          },
          { name: PART_GROUPS, fn: () => toolGroups(messages, canonical) }
        )
      }
      if (peers.langchain !== undefined) {
        cases.push({ name: caseName("langchain", spec), fn: () => c.langchain(counter, budget), ...peers.langchain })
      }
      if (peers.effectAi !== undefined) {
        cases.push({ name: caseName("effect-ai", spec), fn: () => c.effectAi(counter, budget), ...peers.effectAi })
      }
      for (const theCase of cases) if (!seriesNames.includes(theCase.name)) seriesNames.push(theCase.name)
      h.log(
        `\n${spec.label} @ ${formatSize(size)}: budget ${formatSize(budget)} tokens; ` +
          `${cases.map((x) => x.name).join(", ")}`
      )
      await compareTimed(h, {
        title: `${name} (${spec.label}) @ ${formatSize(size)} messages (baseline: ${caseName("pair-safe", spec)})`,
        size,
        baseline: caseName("pair-safe", spec),
        cases
      })
    }
  }

  // Re-fit after one appended turn, against a fit from scratch (measured above, same run).
  const refitBase = conversations.get(REFIT_SIZE) ?? []
  const refitBudget = Math.floor((approxTotals.get(REFIT_SIZE) ?? 0) * TIMED_FRACTION)
  h.log(`\nRe-fit @ ${formatSize(REFIT_SIZE)} + 3 messages: budget ${formatSize(refitBudget)} tokens`)
  await compareTimed(h, {
    title: `${name}: re-fit after appending one turn to a fitted ${formatSize(REFIT_SIZE)}-message conversation ` +
      `(shared cost cache)`,
    size: REFIT_SIZE,
    baseline: "re-fit (approx)",
    cases: [
      { name: "re-fit (approx)", fn: refitter(refitBase, approximateCounter, refitBudget) },
      { name: "re-fit (o200k)", fn: refitter(refitBase, o200kCounter, refitBudget) }
    ]
  })

  await checkPairsAndSystem(h)

  // Ratios to the pair-safe reference, and growth.
  const rows: Array<Array<string>> = []
  for (const spec of COUNTERS) {
    for (const size of SIZES) {
      const reference = find(h, caseName("pair-safe", spec), size)
      const names = ["ctxkit", "linear", "langchain", "effect-ai"].map((contender) => caseName(contender, spec))
      if (spec.label === "approx") names.push(PART_COST, PART_GROUPS)
      for (const caseLabel of names) {
        const r = find(h, caseLabel, size)
        if (r === undefined || reference === undefined) continue
        rows.push([
          caseLabel,
          formatSize(size),
          formatNs(r.medianNs),
          formatNs(reference.medianNs),
          formatRatio(r.medianNs / reference.medianNs),
          formatRatio(cpuRatio(r, reference)),
          r.growth === undefined ? "—" : r.growth.toFixed(1)
        ])
      }
    }
  }
  printTable(`${name}: ratio to the pair-safe reference (median / median, same run)`, [
    "case",
    "size",
    "median",
    "pair-safe",
    "vs pair-safe",
    "CPU vs pair-safe",
    "growth"
  ], rows)
  h.printGrowth(seriesNames)

  // Verdicts.
  h.log("")
  for (const spec of COUNTERS) {
    const ctxkitName = caseName("ctxkit", spec)
    const ratios = SIZES.map((size) => {
      const r = find(h, ctxkitName, size)
      const reference = find(h, caseName("pair-safe", spec), size)
      return r === undefined || reference === undefined ? Number.NaN : r.medianNs / reference.medianNs
    })
    const cpuRatios = SIZES.map((size) => {
      const r = find(h, ctxkitName, size)
      const reference = find(h, caseName("pair-safe", spec), size)
      return r === undefined || reference === undefined ? Number.NaN : cpuRatio(r, reference)
    })
    const within = ratios.every((x) => x <= TARGET_RATIO)
    h.log(
      `Target — ${ctxkitName} within ${TARGET_RATIO}× of the pair-safe reference at every size: ` +
        `${within ? "MET" : "NOT MET"} (${
          ratios.map((x, i) => `${formatRatio(x)} @ ${formatSize(SIZES[i] ?? 0)}`).join(", ")
        }; CPU time: ${cpuRatios.map((x, i) => `${formatRatio(x)} @ ${formatSize(SIZES[i] ?? 0)}`).join(", ")})`,
      true
    )
    const big = find(h, ctxkitName, 100_000)
    const bigReference = find(h, caseName("pair-safe", spec), 100_000)
    const growth = big?.growth ?? Number.NaN
    const referenceGrowth = bigReference?.growth ?? Number.NaN
    const linear = growth <= 10 * LINEAR_TOLERANCE || growth <= referenceGrowth * LINEAR_TOLERANCE
    h.log(
      `Target — ${ctxkitName} linear growth from 10k to 100k (≤ ${10 * LINEAR_TOLERANCE} per 10×, or ≤ ` +
        `${LINEAR_TOLERANCE}× the reference's growth): ${linear ? "MET" : "NOT MET"} (growth ${growth.toFixed(1)}; ` +
        `pair-safe reference ${referenceGrowth.toFixed(1)})`,
      true
    )
  }
  const scratch = find(h, caseName("ctxkit", COUNTERS[1] ?? { label: "o200k", counter: o200kCounter }), REFIT_SIZE)
  const refit = find(h, "re-fit (o200k)", REFIT_SIZE)
  const share = refit === undefined || scratch === undefined ? Number.NaN : refit.medianNs / scratch.medianNs
  h.log(
    `Target — re-fit after one appended turn at ${formatSize(REFIT_SIZE)} messages under ` +
      `${REFIT_TARGET * 100}% of a fit from scratch (o200k): ${share < REFIT_TARGET ? "MET" : "NOT MET"} ` +
      `(${formatNs(refit?.medianNs ?? Number.NaN)} vs ${formatNs(scratch?.medianNs ?? Number.NaN)}: ` +
      `${(share * 100).toFixed(2)}%)`,
    true
  )
  const scratchApprox = find(
    h,
    caseName("ctxkit", COUNTERS[0] ?? { label: "approx", counter: approximateCounter }),
    REFIT_SIZE
  )
  const refitApprox = find(h, "re-fit (approx)", REFIT_SIZE)
  if (scratchApprox !== undefined && refitApprox !== undefined) {
    h.log(
      `Re-fit (approx) for comparison: ${formatNs(refitApprox.medianNs)} vs ${formatNs(scratchApprox.medianNs)} ` +
        `from scratch (${((100 * refitApprox.medianNs) / scratchApprox.medianNs).toFixed(1)}%)`,
      true
    )
  }
}
