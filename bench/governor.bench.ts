/**
 * The governor's projection (`govern` in `shadow` and `on`) and the context report (`contextReport`) at 1k, 10k
 * and 100k messages, against floors measured in the same run:
 * - `floor-lens+parse`: one pass reading every message's calls and results through the lens and parsing every
 *   call's arguments — the least any governor working on the caller's own format must do;
 * - `conversationCost`: counting every message once with the approximate counter (the governor's token
 *   estimates need it).
 * And the incremental case: one new request on a long history (the history plus one turn: an assistant call and
 * its result), from scratch, with a `CostCache` warmed by the previous request, and with that cache plus the
 * previous request's analysis (`analysis: previous.analysis`, so only the new messages are read). The analysis
 * case is timed over repeated calls from the same previous analysis: the first call reads the two new messages,
 * the later ones find them already read, so its figure is the per-request floor plus at most two messages.
 *
 * The generated conversations (`conversations.ts`) use Claude Code's tools with random paths; here file paths are
 * drawn from 40 files and search patterns from 50, so that reads are re-read, edited and superseded as in real
 * sessions (elisions are counted and printed).
 *
 * Target: linear growth — per 10× size, growth ≤ 13 and ≤ 1.3× the floor's growth in the same run.
 */
import { conversationCost, makeCostCache } from "@ctxkit/budget"
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import { contextReport } from "@ctxkit/governor/ContextReport"
import { govern, type GovernOptions } from "@ctxkit/governor/Govern"
import { claudeCodeToolKinds } from "@ctxkit/governor/tools/ClaudeCode"
import { generateConversation, prng, SIZES } from "./conversations.ts"
import { type Case, formatRatio, formatSize, type Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "governor"

const FLOOR = "floor-lens+parse"
const INCREMENTAL_FLOOR = "floor-lens+parse (grown history)"
const LINEAR_TOLERANCE = 1.3
const FILES = 40
const PATTERNS = 50

/** The generated conversation with file paths and patterns drawn from small pools (deterministic). */
const withRealisticPaths = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const random = prng(0x90e)
  return messages.map((m): Message => {
    if (m.role !== "assistant" || m.toolCalls === undefined) return m
    return {
      ...m,
      toolCalls: m.toolCalls.map((c) => {
        if (c.name === "Read" || c.name === "Edit" || c.name === "Write") {
          const file = `lib/app/module_${Math.floor(random() * FILES)}.ex`
          const range = c.name === "Read" && random() < 0.3
            ? `,"offset":${1 + Math.floor(random() * 400)},"limit":60`
            : ""
          return { ...c, arguments: `{"file_path":"${file}"${range}}` }
        }
        if (c.name === "Grep") return { ...c, arguments: `{"pattern":"needle_${Math.floor(random() * PATTERNS)}"}` }
        return c
      })
    }
  })
}

/** One pass through the lens: every call's arguments parsed, every result's text read. */
const floorLensParse = (messages: ReadonlyArray<Message>): number => {
  let sum = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m === undefined) continue
    for (const call of canonical.toolCalls(m)) {
      try {
        const args: unknown = JSON.parse(call.arguments)
        if (typeof args === "object" && args !== null) sum++
      } catch {
        // Generated arguments may hold raw control characters: invalid JSON, as models sometimes write.
      }
    }
    for (const result of canonical.toolResults(m)) sum += result.text.length
  }
  return sum
}

const options = (mode: "shadow" | "on"): GovernOptions<Message> => ({
  mode,
  format: canonical,
  toolKinds: claudeCodeToolKinds
})

/** Runs the benchmark. */
export const run = (h: Harness): void => {
  const names = [FLOOR, "conversationCost", "govern(shadow)", "govern(on)", "contextReport(shadow)"]
  const histories = new Map<number, ReadonlyArray<Message>>()

  for (const size of SIZES) {
    const messages = withRealisticPaths(generateConversation(size))
    histories.set(size, messages)
    const on = govern(messages, options("on"))
    const event = on.event
    h.log(
      `\n${formatSize(size)} messages: ${event?.segments} segments; govern(on) elides ${event?.elided.total} results ` +
        `(superseded_read ${event?.elided.superseded_read}, stale_bg_output ${event?.elided.stale_bg_output}, ` +
        `duplicate_search ${event?.elided.duplicate_search}); tokens ${event?.tokensBefore} → ${event?.tokensAfter}`,
      true
    )
    const cases: Array<Case> = [
      { name: FLOOR, fn: () => floorLensParse(messages) },
      { name: "conversationCost", fn: () => conversationCost(messages, { format: canonical }).total },
      { name: "govern(shadow)", fn: () => govern(messages, options("shadow")).elisions.length },
      { name: "govern(on)", fn: () => govern(messages, options("on")).messages.length },
      { name: "contextReport(shadow)", fn: () => contextReport(messages, options("shadow")) }
    ]
    h.compare({ size, baseline: FLOOR, cases })
  }

  // The incremental case: the previous request was the history minus its last message.
  const incremental: Array<string> = []
  for (const size of SIZES.slice(1)) {
    const grown = histories.get(size) ?? []
    // The previous request was the history minus its last turn (a call and its result).
    const previous = grown.slice(0, -2)
    const cache = makeCostCache()
    const before = govern(previous, { ...options("on"), cache })
    const fromScratch = govern(grown, options("on"))
    const extended = govern(grown, { ...options("on"), cache, analysis: before.analysis })
    if (extended.elisions.length !== fromScratch.elisions.length || extended.messages.length !== grown.length) {
      throw new Error("the extended analysis disagrees with the analysis from scratch")
    }
    const cases: Array<Case> = [
      { name: INCREMENTAL_FLOOR, fn: () => floorLensParse(grown) },
      { name: "new request: govern(on)", fn: () => govern(grown, options("on")).messages.length },
      {
        name: "new request: govern(on), warm CostCache",
        fn: () => govern(grown, { ...options("on"), cache }).messages.length
      },
      {
        name: "new request: govern(on), warm CostCache + previous analysis",
        fn: () => govern(grown, { ...options("on"), cache, analysis: before.analysis }).messages.length
      }
    ]
    const results = h.compare({
      title: `${name} incremental @ ${formatSize(size)}: one new turn after a request (baseline: ${INCREMENTAL_FLOOR})`,
      size,
      baseline: INCREMENTAL_FLOOR,
      cases
    })
    for (const r of results) {
      if (r.name !== INCREMENTAL_FLOOR) {
        incremental.push(`${r.name} @ ${formatSize(size)}: ${formatRatio(r.ratioToBaseline)} the floor`)
      }
      if (r.name.endsWith("previous analysis")) {
        incremental.push(
          `previous analysis vs from scratch @ ${formatSize(size)}: ${
            formatRatio(r.ratios["new request: govern(on)"])
          } (with the same warm CostCache: ${formatRatio(r.ratios["new request: govern(on), warm CostCache"])})`
        )
      }
    }
  }

  // Ratios to the floors and growth, per case.
  const rows: Array<Array<string>> = []
  const verdicts: Array<string> = []
  for (const caseName of names.slice(2)) {
    for (const size of SIZES) {
      const r = h.results.find((x) => x.name === caseName && x.size === size)
      if (r === undefined) continue
      rows.push([caseName, formatSize(size), formatRatio(r.ratios[FLOOR]), formatRatio(r.ratios["conversationCost"])])
    }
    const series = (n: string) => SIZES.map((size) => h.results.find((x) => x.name === n && x.size === size))
    const own = series(caseName)
    const floor = series(FLOOR)
    const growth: Array<string> = []
    let linear = true
    let likeFloor = true
    for (let i = 1; i < SIZES.length; i++) {
      const g = (own[i]?.medianNs ?? Infinity) / (own[i - 1]?.medianNs ?? 0)
      const gf = (floor[i]?.medianNs ?? 0) / (floor[i - 1]?.medianNs ?? Infinity)
      growth.push(`${g.toFixed(1)} (floor ${gf.toFixed(1)})`)
      if (!(g <= 10 * LINEAR_TOLERANCE)) linear = false
      if (!(g <= gf * LINEAR_TOLERANCE)) likeFloor = false
    }
    verdicts.push(
      `${caseName}: growth per 10× ${growth.join(", ")}; linear (≤ ${10 * LINEAR_TOLERANCE}): ${
        linear ? "MET" : "NOT MET"
      }; ` +
        `≤ ${LINEAR_TOLERANCE}× the floor's growth: ${likeFloor ? "MET" : "NOT MET"}`
    )
  }
  printTable(`${name}: ratio to the floors (median / median, same run)`, [
    "case",
    "size",
    `vs ${FLOOR}`,
    "vs conversationCost"
  ], rows)
  h.printGrowth(names)
  h.log("")
  for (const line of incremental) h.log(`Incremental — ${line}`, true)
  for (const verdict of verdicts) h.log(`Target — ${verdict}`, true)
}
