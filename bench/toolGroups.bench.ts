/**
 * `toolGroups(messages, formats.canonical)` against two floors measured in the same run, at 1k, 10k and
 * 100k messages:
 * - `floor-read`: one pass reading each message's ids directly (no lens), summing their lengths;
 * - `floor-index`: one pass reading each message's ids and recording each in a `Map<string, number>` — the
 *   least work any id-linking must do.
 * Also `toolGroups` with `formats.auto`, when `@ctxkit/core/formats/Auto` exists, and, for diagnosis,
 * `lens-links`: one pass calling `canonical.links` on each message (what the lens costs before any linking).
 *
 * Target: within 2× of `floor-index` at every size, and linear growth. Growth is judged two ways: absolutely
 * (≤ 13 per 10× size: per-element time grows at most 30%) and relative to `floor-index`'s own growth, which
 * shows what the memory hierarchy alone does to a single hashing pass as the data outgrows the caches.
 */
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import type { MessageFormat } from "@ctxkit/core/MessageFormat"
import { toolGroups } from "@ctxkit/core/ToolGroups"
import { conversationStats, describeStats, generateConversation, SIZES } from "./conversations.ts"
import { type Case, formatRatio, formatSize, type Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "toolGroups"

const FLOOR = "floor-index"
const TARGET_RATIO = 2
/** Linear: per-element time grows by at most this factor per 10× size (caches get colder as data grows). */
const LINEAR_TOLERANCE = 1.3

/** One pass reading every id directly; the sum of their lengths. */
const floorRead = (messages: ReadonlyArray<Message>): number => {
  let sum = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m === undefined) continue
    if (m.role === "tool") sum += m.toolCallId.length
    else if (m.role === "assistant" && m.toolCalls !== undefined) {
      for (let k = 0; k < m.toolCalls.length; k++) sum += m.toolCalls[k]?.id.length ?? 0
    }
  }
  return sum
}

/** One pass reading every id and recording it in a map; the map's size. */
const floorIndex = (messages: ReadonlyArray<Message>): number => {
  const at = new Map<string, number>()
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m === undefined) continue
    if (m.role === "tool") at.set(m.toolCallId, i)
    else if (m.role === "assistant" && m.toolCalls !== undefined) {
      for (let k = 0; k < m.toolCalls.length; k++) {
        const call = m.toolCalls[k]
        if (call !== undefined) at.set(call.id, i)
      }
    }
  }
  return at.size
}

/** One pass through the lens: the number of links of every message. */
const lensLinks = (messages: ReadonlyArray<Message>): number => {
  let count = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m !== undefined) count += canonical.links(m).length
  }
  return count
}

/** `formats.auto`, when the module exists (it is written in parallel with this benchmark). */
const loadAuto = async (): Promise<MessageFormat<Message> | undefined> => {
  // A computed specifier, so that type-checking does not require the module to exist yet.
  const specifier: string = "@ctxkit/core/formats/Auto"
  try {
    const mod: unknown = await import(specifier)
    if (typeof mod !== "object" || mod === null || !("auto" in mod)) return undefined
    const auto: unknown = mod.auto
    if (typeof auto !== "object" || auto === null || !("links" in auto)) return undefined
    return auto as MessageFormat<Message>
  } catch {
    return undefined
  }
}

/** Runs the benchmark. */
export const run = async (h: Harness): Promise<void> => {
  const auto = await loadAuto()
  h.log(
    auto === undefined
      ? "formats.auto: @ctxkit/core/formats/Auto not found, case skipped"
      : "formats.auto: found, measured as toolGroups(auto)",
    true
  )
  const names = [
    "floor-read",
    FLOOR,
    "lens-links",
    "toolGroups(canonical)",
    ...(auto === undefined ? [] : ["toolGroups(auto)"])
  ]

  for (const size of SIZES) {
    const messages = generateConversation(size)
    const stats = conversationStats(messages)
    h.log(`\n${describeStats(stats)}`, true)
    // Sanity: the generator makes no orphans and no dangling calls, so every call forms one group.
    const check = toolGroups(messages, canonical)
    h.log(
      `toolGroups(canonical): ${check.groups.length} groups, ${check.diagnostics.length} diagnostics` +
        (floorIndex(messages) === stats.calls ? "" : " (floor-index saw a different number of ids!)"),
      true
    )
    const cases: Array<Case> = [
      { name: "floor-read", fn: () => floorRead(messages) },
      { name: FLOOR, fn: () => floorIndex(messages) },
      { name: "lens-links", fn: () => lensLinks(messages) },
      { name: "toolGroups(canonical)", fn: () => toolGroups(messages, canonical) }
    ]
    if (auto !== undefined) cases.push({ name: "toolGroups(auto)", fn: () => toolGroups(messages, auto) })
    h.compare({ size, baseline: FLOOR, cases })
  }

  // Ratios of each toolGroups case to each floor, at every size.
  const measured = names.filter((n) => n.startsWith("toolGroups"))
  const rows: Array<Array<string>> = []
  const verdicts: Array<string> = []
  for (const caseName of measured) {
    let withinTarget = true
    for (const size of SIZES) {
      const r = h.results.find((x) => x.name === caseName && x.size === size)
      if (r === undefined) continue
      const vsIndex = r.ratios[FLOOR]
      if (vsIndex === undefined || !(vsIndex <= TARGET_RATIO)) withinTarget = false
      rows.push([caseName, formatSize(size), formatRatio(r.ratios["floor-read"]), formatRatio(vsIndex)])
    }
    const steps = h.growth(caseName).filter((s) => s.growth !== undefined)
    const floorSteps = h.growth(FLOOR)
    const linear = steps.every((s) => (s.growth ?? Infinity) <= (s.sizeFactor ?? 0) * LINEAR_TOLERANCE)
    const likeFloor = steps.every((s) => {
      const floorGrowth = floorSteps.find((f) => f.size === s.size)?.growth
      return floorGrowth !== undefined && (s.growth ?? Infinity) <= floorGrowth * LINEAR_TOLERANCE
    })
    const show = (series: ReadonlyArray<{ readonly growth: number | undefined }>): string =>
      series.filter((s) => s.growth !== undefined).map((s) => (s.growth ?? 0).toFixed(1)).join(", ")
    verdicts.push(
      `${caseName}: within ${TARGET_RATIO}× of ${FLOOR} at every size: ${withinTarget ? "MET" : "NOT MET"}; ` +
        `linear growth (≤ ${(10 * LINEAR_TOLERANCE).toFixed(0)} per 10×): ${linear ? "MET" : "NOT MET"} ` +
        `(growth ${show(steps)}); growth ≤ ${LINEAR_TOLERANCE}× ${FLOOR}'s (${show(floorSteps)}): ` +
        `${likeFloor ? "MET" : "NOT MET"}`
    )
  }
  printTable(`${name}: ratio to the floors (median / median, same run)`, [
    "case",
    "size",
    "vs floor-read",
    `vs ${FLOOR}`
  ], rows)
  h.printGrowth(names)
  h.log("")
  for (const verdict of verdicts) h.log(`Target — ${verdict}`, true)
}
