/**
 * `planCompaction` and `reduceToBudget` at 1k and 10k messages, on generated histories (`conversations.ts`)
 * whose tool results are made huge (every 20th result is 40k–120k characters), against floors measured in the
 * same run:
 * - planning: `floor-lens(role+results)`, one pass reading every message's role and tool results through the
 *   lens — what any planner working on the caller's own format must read — and `toolGroups`, which the plan
 *   needs once;
 * - reduction: `floor-JSON.stringify`, serializing the whole history once — the size the reduction keeps below
 *   its target cannot be known for less — and `transcriptChars`, the same size counted message by message.
 * The reduction is measured at 50% and 10% of the history's serialized size (many clips, down to the smallest
 * caps) and at the default 800,000-character hard limit; the clips made are printed.
 *
 * Target: linear growth — per 10× size, growth ≤ 13 and ≤ 1.3× the floor's growth in the same run.
 */
import { planCompaction } from "@ctxkit/compaction/PlanCompaction"
import { reduceToBudget, transcriptChars } from "@ctxkit/compaction/ReduceToBudget"
import { formats } from "@ctxkit/core/Formats"
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import type { MessageFormat } from "@ctxkit/core/MessageFormat"
import { toolGroups } from "@ctxkit/core/ToolGroups"
import { conversationStats, describeStats, generateConversation, prng } from "./conversations.ts"
import { type Case, formatRatio, formatSize, growthCheck, type Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "compaction"

const SIZES: ReadonlyArray<number> = [1_000, 10_000]
const PLAN_FLOOR = "floor-lens(role+results)"
const REDUCE_FLOOR = "floor-JSON.stringify"
const LINEAR_TOLERANCE = 1.3
const HUGE_EVERY = 20

/** A grep-like output of `length` characters (newlines, paths, quotes: JSON escapes some of it). */
const HUGE_SOURCE = Array.from(
  { length: 3_000 },
  (_, i) => `src/module_${i % 97}/file_${i % 13}.ts:${i}: const "match_${i}" = await load(${i}) // café → ✓\n`
).join("")

/** The generated history with every `HUGE_EVERY`-th tool result replaced by 40k–120k characters (deterministic). */
const withHugeResults = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const random = prng(0xc0ac7)
  let k = 0
  return messages.map((m): Message => {
    if (m.role !== "tool" || k++ % HUGE_EVERY !== 0) return m
    const length = 40_000 + Math.floor(random() * 80_000)
    const start = Math.floor(random() * (HUGE_SOURCE.length - length))
    return { ...m, content: HUGE_SOURCE.slice(start, start + length) }
  })
}

/** One pass through the lens reading every message's role and tool results. */
const floorLens = (messages: ReadonlyArray<Message>): number => {
  let sum = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m === undefined) continue
    if (canonical.role(m) === "user") sum++
    sum += canonical.toolResults(m).length
  }
  return sum
}

const growthVerdicts = (h: Harness, names: ReadonlyArray<string>, floor: string): Array<string> =>
  names.map((caseName) => {
    const check = growthCheck(h.growth(caseName), h.growth(floor), LINEAR_TOLERANCE)
    return `${caseName}: growth per 10× ${check.shown} (${floor} ${check.floorShown}); linear (≤ ${
      (10 * LINEAR_TOLERANCE).toFixed(0)
    }): ${check.linear ? "MET" : "NOT MET"}; ≤ ${LINEAR_TOLERANCE}× the floor's growth: ${
      check.likeFloor ? "MET" : "NOT MET"
    }`
  })

/** Runs the benchmark. */
export const run = (h: Harness): void => {
  const auto = formats.auto as MessageFormat<Message>
  const planNames = [PLAN_FLOOR, "toolGroups(canonical)", "planCompaction(canonical)", "planCompaction(auto)"]
  const reduceNames = [
    REDUCE_FLOOR,
    "transcriptChars(canonical)",
    "reduceToBudget(50%)",
    "reduceToBudget(10%)",
    "reduceToBudget(800k)",
    "reduceToBudget(auto, 10%)"
  ]

  for (const size of SIZES) {
    const messages = withHugeResults(generateConversation(size))
    const chars = transcriptChars(messages, canonical)
    h.log(`\n${describeStats(conversationStats(messages))}; serialized ${formatSize(chars)} characters`, true)
    const plan = planCompaction(messages, { format: canonical })
    h.log(
      plan._tag === "CompactionPlan"
        ? `planCompaction: cut at ${formatSize(plan.cut)} of ${
          formatSize(size)
        } (${plan.turnStarts.length} turn starts)`
        : `planCompaction: no plan (${plan.reason})`,
      true
    )
    const targets = { "50%": Math.floor(chars * 0.5), "10%": Math.floor(chars * 0.1), "800k": 800_000 }
    for (const [label, target] of Object.entries(targets)) {
      const reduced = reduceToBudget(messages, target, { format: canonical })
      h.log(
        `reduceToBudget(${label}): target ${formatSize(target)}, ${reduced.truncated} messages clipped, ` +
          `${formatSize(reduced.chars)} characters, within target: ${reduced.withinTarget}`,
        true
      )
    }

    const planCases: Array<Case> = [
      { name: PLAN_FLOOR, fn: () => floorLens(messages) },
      { name: "toolGroups(canonical)", fn: () => toolGroups(messages, canonical).groups.length },
      { name: "planCompaction(canonical)", fn: () => planCompaction(messages, { format: canonical })._tag },
      { name: "planCompaction(auto)", fn: () => planCompaction(messages, { format: auto })._tag }
    ]
    h.compare({
      title: `planCompaction @ ${formatSize(size)} (baseline: ${PLAN_FLOOR})`,
      size,
      baseline: PLAN_FLOOR,
      cases: planCases
    })

    const reduceCases: Array<Case> = [
      { name: REDUCE_FLOOR, fn: () => JSON.stringify(messages).length },
      { name: "transcriptChars(canonical)", fn: () => transcriptChars(messages, canonical) },
      {
        name: "reduceToBudget(50%)",
        fn: () => reduceToBudget(messages, targets["50%"], { format: canonical }).chars
      },
      {
        name: "reduceToBudget(10%)",
        fn: () => reduceToBudget(messages, targets["10%"], { format: canonical }).chars
      },
      {
        name: "reduceToBudget(800k)",
        fn: () => reduceToBudget(messages, targets["800k"], { format: canonical }).chars
      },
      { name: "reduceToBudget(auto, 10%)", fn: () => reduceToBudget(messages, targets["10%"], { format: auto }).chars }
    ]
    h.compare({
      title: `reduceToBudget @ ${formatSize(size)} (baseline: ${REDUCE_FLOOR})`,
      size,
      baseline: REDUCE_FLOOR,
      cases: reduceCases
    })
  }

  const rows: Array<Array<string>> = []
  for (const [names, floor] of [[planNames, PLAN_FLOOR], [reduceNames, REDUCE_FLOOR]] as const) {
    for (const caseName of names.slice(1)) {
      for (const size of SIZES) {
        const r = h.results.find((x) => x.name === caseName && x.size === size)
        if (r !== undefined) rows.push([caseName, formatSize(size), formatRatio(r.ratios[floor]), floor])
      }
    }
  }
  printTable(`${name}: ratio to the floor (median / median, same run)`, ["case", "size", "vs floor", "floor"], rows)
  h.printGrowth([...planNames, ...reduceNames])
  h.log("")
  for (const verdict of growthVerdicts(h, planNames.slice(1), PLAN_FLOOR)) h.log(`Target — ${verdict}`, true)
  for (const verdict of growthVerdicts(h, reduceNames.slice(1), REDUCE_FLOOR)) h.log(`Target — ${verdict}`, true)
}
