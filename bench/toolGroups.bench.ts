/**
 * `toolGroups(messages, formats.canonical)` against two floors measured in the same run, at 1k, 10k and
 * 100k messages:
 * - `floor-read`: one pass reading each message's ids directly (no lens), summing their lengths;
 * - `floor-index`: one pass reading each message's ids and recording each in a `Map<string, number>` — the
 *   least work any id-linking must do.
 * - `lens-index`: the same through the format lens (`canonical.forEachLink`) — the floor of any algorithm that
 *   reads messages through a `MessageFormat` rather than knowing their shape.
 * Also `toolGroups` with `formats.auto` (per-message format detection).
 *
 * Target: within 2× of `floor-index` at every size, and linear growth. Growth is judged two ways: absolutely
 * (≤ 13 per 10× size: per-element time grows at most 30%) and relative to `floor-index`'s own growth, which
 * shows what the memory hierarchy alone does to a single hashing pass as the data outgrows the caches.
 */
import { formats } from "@ctxkit/core/Formats"
import { canonical } from "@ctxkit/core/formats/Canonical"
import type { Message } from "@ctxkit/core/Message"
import type { MessageFormat } from "@ctxkit/core/MessageFormat"
import { toolGroups } from "@ctxkit/core/ToolGroups"
import { conversationStats, describeStats, generateConversation, SIZES } from "./conversations.ts"
import { type Case, formatRatio, formatSize, growthCheck, type Harness, printTable } from "./harness.ts"

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

/** One pass through the lens, recording every id in a map; the map's size. */
const lensIndex = (messages: ReadonlyArray<Message>): number => {
  const at = new Map<string, number>()
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m !== undefined) canonical.forEachLink(m, (_kind, id) => at.set(id, i))
  }
  return at.size
}

/** Runs the benchmark. */
export const run = async (h: Harness): Promise<void> => {
  const auto = formats.auto as MessageFormat<Message>
  const names = ["floor-read", FLOOR, "lens-index", "toolGroups(canonical)", "toolGroups(auto)"]

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
      { name: "lens-index", fn: () => lensIndex(messages) },
      { name: "toolGroups(canonical)", fn: () => toolGroups(messages, canonical) },
      { name: "toolGroups(auto)", fn: () => toolGroups(messages, auto) }
    ]
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
      rows.push([
        caseName,
        formatSize(size),
        formatRatio(r.ratios["floor-read"]),
        formatRatio(vsIndex),
        formatRatio(r.ratios["lens-index"])
      ])
    }
    const check = growthCheck(h.growth(caseName), h.growth(FLOOR), LINEAR_TOLERANCE)
    verdicts.push(
      `${caseName}: within ${TARGET_RATIO}× of ${FLOOR} at every size: ${withinTarget ? "MET" : "NOT MET"}; ` +
        `linear growth (≤ ${(10 * LINEAR_TOLERANCE).toFixed(0)} per 10×): ${check.linear ? "MET" : "NOT MET"} ` +
        `(growth ${check.shown}); growth ≤ ${LINEAR_TOLERANCE}× ${FLOOR}'s (${check.floorShown}): ` +
        `${check.likeFloor ? "MET" : "NOT MET"}`
    )
  }
  printTable(`${name}: ratio to the floors (median / median, same run)`, [
    "case",
    "size",
    "vs floor-read",
    `vs ${FLOOR}`,
    "vs lens-index"
  ], rows)
  h.printGrowth(names)
  h.log("")
  for (const verdict of verdicts) h.log(`Target — ${verdict}`, true)
}
