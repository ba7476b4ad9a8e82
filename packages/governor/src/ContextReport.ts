/**
 * The context report: one value that explains the history the next request would carry and what the governor
 * does with it — segments with type, origin, tokens and criticality, elisions, invariant counts, usage. Every
 * surface (CLI, HTML, JSON) shows this same value. It never contains the text of a message, file, stub or
 * invariant.
 *
 * @since 0.1.0
 */
import { capByTier } from "@ctxkit/core/CapByTier"
import { describeValue } from "@ctxkit/core/Describe"
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import { GovernorSettingAdjusted } from "./Diagnostics.ts"
import { ElisionReason } from "./ElisionStub.ts"
import type { Elision, GovernOptions } from "./Govern.ts"
import { type Analysis, analyze, type MessageFacts, type ResultFact } from "./internal/analysis.ts"
import { elisionsOf, estimate, project } from "./internal/projection.ts"
import { type Settings, settingsOf } from "./internal/settings.ts"
import { safeCount } from "./internal/text.ts"
import { summarizeUsage } from "./internal/usage.ts"
import { UsageSummary } from "./UsageSummary.ts"

/**
 * How much a segment matters to the request: `pinned` (never dropped), `high`, `normal`, `low` (first to go).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Criticality = Schema.Literals(["pinned", "high", "normal", "low"])

/**
 * The type of `Criticality` values.
 *
 * @category models
 * @since 0.1.0
 */
export type Criticality = typeof Criticality.Type

/**
 * Why a segment has its criticality, first rule that applies:
 *
 * | reason | criticality | the segment is |
 * | --- | --- | --- |
 * | `pinned` | pinned | a message the user or harness pinned |
 * | `system-prompt` | pinned | a system message from the system itself (no source, or `system`) |
 * | `instructions` | pinned | a system message with source `instructions` (AGENTS.md and the like) |
 * | `checkpoint` | pinned | a compaction checkpoint (a summary message) |
 * | `invariants` | pinned | the `<invariants>` block |
 * | `elided` | low | a result the governor replaced by a stub (`on`) |
 * | `would-be-elided` | low | a result `on` would replace (`shadow`) |
 * | `error-result` | high | a tool result that is an error |
 * | `user-message` | high | a normal user message |
 * | `last-turn` | high | an assistant message or result in the last turn (from the last normal user message on) |
 * | `past-clearing-horizon` | low | a result older than the `keepToolResults` most recent ones |
 * | `context-block` | normal | a memory, lorebook, persona or plugin system block |
 * | `assistant-message` | normal | any other assistant message |
 * | `tool-result` | normal | any other tool result |
 *
 * @example
 * ```ts
 * import { contextReport } from "@ctxkit/governor"
 *
 * const report = contextReport([{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }], { mode: "shadow" })
 * // Why each segment is kept or would go first.
 * report.mode !== "off" && report.segments.map((s) => s.reason) // ["system-prompt", "user-message"]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const CriticalityReason = Schema.Literals([
  "pinned",
  "system-prompt",
  "instructions",
  "checkpoint",
  "invariants",
  "elided",
  "would-be-elided",
  "error-result",
  "user-message",
  "last-turn",
  "past-clearing-horizon",
  "context-block",
  "assistant-message",
  "tool-result"
])

/**
 * The type of {@link CriticalityReason} values.
 *
 * @category models
 * @since 0.1.0
 */
export type CriticalityReason = typeof CriticalityReason.Type

/**
 * What a segment is: a system prompt, an instructions block, another system block (`context-block`), a
 * checkpoint, the invariants block, a user message, an assistant message or one tool result.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SegmentType = Schema.Literals([
  "system",
  "instructions",
  "context-block",
  "checkpoint",
  "invariants",
  "user",
  "assistant",
  "tool-result"
])

/**
 * The type of `SegmentType` values.
 *
 * @category models
 * @since 0.1.0
 */
export type SegmentType = typeof SegmentType.Type

/**
 * One segment of the history: a message, or one tool result of a message carrying results. `origin` is the
 * file path (for file tools), the tool name (other results) or the role / system source; `tokens` is its share
 * of the estimate (a message's overhead goes to its first segment); `elided` is set when the governor replaced
 * it (`on`) or would (`shadow`).
 *
 * @example
 * ```ts
 * import { contextReport, type ReportSegment } from "@ctxkit/governor"
 *
 * const report = contextReport([{ role: "user", content: "hi" }], { mode: "on" })
 * const line = (s: ReportSegment) => `#${s.index} ${s.type} ${s.origin}: ${s.tokens} tokens, ${s.criticality} (${s.reason})`
 * report.mode !== "off" && report.segments.map(line) // ["#0 user user: 5 tokens, high (user-message)"]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReportSegment = Schema.Struct({
  /** Index of the message in the history. */
  index: Schema.Number,
  callId: Schema.optionalKey(Schema.String),
  type: SegmentType,
  origin: Schema.String,
  tokens: Schema.Number,
  criticality: Criticality,
  reason: CriticalityReason,
  elided: Schema.optionalKey(ElisionReason)
})

/**
 * The type of {@link ReportSegment} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ReportSegment = typeof ReportSegment.Type

/**
 * One elision as the report shows it: no stub text, but the reason, the call ids, where it is, its origin and
 * the tokens saved.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReportElision = Schema.Struct({
  callId: Schema.String,
  supersededBy: Schema.String,
  reason: ElisionReason,
  index: Schema.Number,
  tool: Schema.String,
  origin: Schema.String,
  tokensSaved: Schema.Number
})

/**
 * The type of `ReportElision` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ReportElision = typeof ReportElision.Type

/**
 * How many invariants the request carries, in total and by kind — counts only, never their text.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantCounts = Schema.Struct({
  total: Schema.Number,
  instruction: Schema.Number,
  goal: Schema.Number,
  plan: Schema.Number,
  criterion: Schema.Number,
  grant: Schema.Number
})

/**
 * The type of `InvariantCounts` values.
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantCounts = typeof InvariantCounts.Type

/**
 * Segment counts by criticality, over every segment (kept in the report or left out).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CriticalityCounts = Schema.Struct({
  pinned: Schema.Number,
  high: Schema.Number,
  normal: Schema.Number,
  low: Schema.Number
})

/**
 * The type of `CriticalityCounts` values.
 *
 * @category models
 * @since 0.1.0
 */
export type CriticalityCounts = typeof CriticalityCounts.Type

/**
 * The report when the governor is off: it only says so; nothing is measured.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GovernorOffReport = Schema.Struct({
  mode: Schema.Literal("off"),
  note: Schema.String
})

/**
 * The type of `GovernorOffReport` values.
 *
 * @category models
 * @since 0.1.0
 */
export type GovernorOffReport = typeof GovernorOffReport.Type

/**
 * The report in `shadow` or `on`: counts of messages and segments, the token estimates before and after, the
 * kept segments (at most 400: pinned, low and elided ones first, the rest from the newest) and how many were
 * left out, the elisions, segment counts by criticality, the invariants the request carries (`compacted` says
 * whether the history holds a checkpoint), the usage summary, and any diagnostics.
 *
 * Its segments are not the engine's audit blocks: a segment's `reason` says why it has its criticality and its
 * `origin` where its content came from, while an audit block's say why one fitting sent it or left it out and how
 * it got into the prompt (docs/architecture.md, "One vocabulary").
 *
 * @category schemas
 * @since 0.1.0
 */
export const GovernedReport = Schema.Struct({
  mode: Schema.Literals(["shadow", "on"]),
  policyVersion: Schema.Literal(1),
  messages: Schema.Number,
  segmentsTotal: Schema.Number,
  /** Segments not listed (over the 400 limit). */
  leftOut: Schema.Number,
  segments: Schema.Array(ReportSegment),
  tokens: Schema.Struct({
    before: Schema.Number,
    after: Schema.Number,
    saved: Schema.Number,
    approximate: Schema.Boolean,
    counter: Schema.String
  }),
  elisions: Schema.Array(ReportElision),
  criticality: CriticalityCounts,
  compacted: Schema.Boolean,
  invariants: InvariantCounts,
  usage: UsageSummary,
  diagnostics: Schema.Array(Schema.String)
})

/**
 * The type of `GovernedReport` values.
 *
 * @category models
 * @since 0.1.0
 */
export type GovernedReport = typeof GovernedReport.Type

/**
 * The context report: `GovernorOffReport` when the governor is off, `GovernedReport` otherwise.
 *
 * @example
 * ```ts
 * import { ContextReport, contextReport } from "@ctxkit/governor"
 * import * as Schema from "effect/Schema"
 *
 * // A report saved as JSON by one process and read back, checked, by another.
 * const saved = JSON.stringify(contextReport([{ role: "user", content: "hi" }], { mode: "shadow" }))
 * const report = Schema.decodeUnknownSync(ContextReport)(JSON.parse(saved))
 * report.mode // "shadow"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextReport = Schema.Union([GovernorOffReport, GovernedReport])

/**
 * The type of {@link ContextReport} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ContextReport = typeof ContextReport.Type

/**
 * The most segments a report lists.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_REPORT_SEGMENTS = 400

/**
 * What {@link contextReport} takes: the governor's options, the invariant counts of the block the request
 * carries (from the invariants step; all 0 when absent), and `keepToolResults`, the clearing horizon (the
 * number of most recent tool results the clearing step keeps; older results are `low`; default: no horizon).
 *
 * @example
 * ```ts
 * import { contextReport } from "@ctxkit/governor"
 * import type { ReportOptions } from "@ctxkit/governor/ContextReport"
 *
 * // What the invariants step put in the request, and the clearing step's horizon.
 * const options: ReportOptions<unknown> = { mode: "shadow", invariants: { instruction: 2, goal: 1 }, keepToolResults: 6 }
 * const report = contextReport([{ role: "user", content: "hi" }], options)
 * report.mode !== "off" && report.invariants.total // 3
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ReportOptions<M> extends GovernOptions<M> {
  readonly invariants?:
    | {
      readonly instruction?: number | undefined
      readonly goal?: number | undefined
      readonly plan?: number | undefined
      readonly criterion?: number | undefined
      readonly grant?: number | undefined
    }
    | undefined
  readonly keepToolResults?: number | undefined
}

const OFF_NOTE = "The context governor is off: nothing is measured."

const count = (value: unknown): number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : 0

const invariantCounts = (given: ReportOptions<unknown>["invariants"]): InvariantCounts => {
  const instruction = count(given?.instruction)
  const goal = count(given?.goal)
  const plan = count(given?.plan)
  const criterion = count(given?.criterion)
  const grant = count(given?.grant)
  return { total: instruction + goal + plan + criterion + grant, instruction, goal, plan, criterion, grant }
}

/** A result's origin: the path of a file tool's call, else the tool name. */
const originOf = (fact: ResultFact): string => {
  const resolved = fact.call?.resolved
  return resolved !== undefined && "path" in resolved ? resolved.path : fact.tool
}

/** What the classification looks at for one segment. */
interface SegmentTraits {
  readonly type: SegmentType
  readonly pinned: boolean
  /** A tool result carried by a checkpoint message. */
  readonly inCheckpoint: boolean
  /** A tool result `on` replaced (`applied`) or `shadow` would replace (`would_be`). */
  readonly elision: "applied" | "would_be" | undefined
  readonly isError: boolean
  /** At or after the start of the last turn. */
  readonly lastTurn: boolean
  /** A tool result older than the clearing horizon. */
  readonly pastHorizon: boolean
}

/**
 * How a segment is classified: the FIRST rule that holds gives its reason and criticality (the table in
 * {@link CriticalityReason}'s documentation, in this order). A checkpoint or invariants message is that
 * before it is pinned; last-turn and horizon rules only apply to assistant messages and tool results.
 */
const CRITICALITY_RULES: ReadonlyArray<{
  readonly reason: CriticalityReason
  readonly criticality: Criticality
  readonly holds: (s: SegmentTraits) => boolean
}> = [
  { reason: "checkpoint", criticality: "pinned", holds: (s) => s.type === "checkpoint" },
  { reason: "invariants", criticality: "pinned", holds: (s) => s.type === "invariants" },
  { reason: "pinned", criticality: "pinned", holds: (s) => s.pinned },
  { reason: "checkpoint", criticality: "pinned", holds: (s) => s.inCheckpoint },
  { reason: "system-prompt", criticality: "pinned", holds: (s) => s.type === "system" },
  { reason: "instructions", criticality: "pinned", holds: (s) => s.type === "instructions" },
  { reason: "elided", criticality: "low", holds: (s) => s.elision === "applied" },
  { reason: "would-be-elided", criticality: "low", holds: (s) => s.elision === "would_be" },
  { reason: "error-result", criticality: "high", holds: (s) => s.isError },
  { reason: "user-message", criticality: "high", holds: (s) => s.type === "user" },
  {
    reason: "last-turn",
    criticality: "high",
    holds: (s) => s.lastTurn && (s.type === "assistant" || s.type === "tool-result")
  },
  { reason: "past-clearing-horizon", criticality: "low", holds: (s) => s.pastHorizon },
  { reason: "context-block", criticality: "normal", holds: (s) => s.type === "context-block" },
  { reason: "assistant-message", criticality: "normal", holds: (s) => s.type === "assistant" }
]

/** The criticality and reason of a segment (see {@link CRITICALITY_RULES}); `tool-result` when no rule holds. */
const classify = (s: SegmentTraits): { readonly criticality: Criticality; readonly reason: CriticalityReason } => {
  for (const rule of CRITICALITY_RULES) {
    if (rule.holds(s)) return { criticality: rule.criticality, reason: rule.reason }
  }
  return { criticality: "normal", reason: "tool-result" }
}

/** What a message without tool results is, and where it comes from (a system message's source, else its role). */
const messageType = <M>(facts: MessageFacts, message: M, settings: Settings<M>): {
  readonly type: SegmentType
  readonly origin: string
} => {
  switch (facts.role) {
    case "system": {
      const source = settings.format.source(message)
      if (source === undefined || source === "system") return { type: "system", origin: "system" }
      return { type: source === "instructions" ? "instructions" : "context-block", origin: source }
    }
    case "user":
      if (facts.summary) return { type: "checkpoint", origin: "user" }
      return { type: facts.invariants ? "invariants" : "user", origin: "user" }
    case "assistant":
      return { type: "assistant", origin: "assistant" }
    default:
      return { type: "tool-result", origin: facts.role }
  }
}

/**
 * Which segments a report lists when there are more than `limit`: tier by tier (pinned, then elided, then other
 * low ones, then the rest), newest first within a tier, until the room is used; listed in history order.
 */
const cap = (segments: ReadonlyArray<ReportSegment>, limit: number): ReadonlyArray<ReportSegment> => {
  const tierOf = (s: ReportSegment): number => {
    if (s.criticality === "pinned") return 0
    if (s.elided !== undefined) return 1
    return s.criticality === "low" ? 2 : 3
  }
  return capByTier(segments, limit, tierOf)
}

/** The clearing horizon option: a count of recent tool results, or none (with a diagnostic for a bad value). */
const horizonOf = (given: unknown, diagnostics: Array<string>): number | undefined => {
  if (given === undefined) return undefined
  if (typeof given === "number" && Number.isSafeInteger(given) && given >= 0) return given
  diagnostics.push(
    new GovernorSettingAdjusted({ setting: "keepToolResults", given: describeValue(given), used: "no horizon" }).message
  )
  return undefined
}

/**
 * The tokens of each result of one message: its own text's count, and the first result also carries the rest of
 * the message's estimate (role, calls, framing), so that the segments add up to the message.
 */
const resultTokens = (
  facts: ReadonlyArray<ResultFact>,
  messageTokens: number,
  counter: Settings<unknown>["counter"]
): Array<number> => {
  const own = facts.map((fact) => safeCount(counter, fact.text))
  const overhead = Math.max(0, messageTokens - own.reduce((a, b) => a + b, 0))
  return own.map((tokens, k) => (k === 0 ? tokens + overhead : tokens))
}

const build = <M>(
  history: ReadonlyArray<M>,
  settings: Settings<M>,
  analysis: Analysis,
  options: ReportOptions<M>
): GovernedReport => {
  const diagnostics: Array<string> = settings.diagnostics.map((d) => d.message)
  const horizon = horizonOf(options.keepToolResults, diagnostics)
  const { applied, replaced } = project(history, analysis, settings.format)
  const elisions = elisionsOf(applied, settings)
  const { after: tokensAfter, approximate, before } = estimate(history, replaced, settings)
  for (const d of before.diagnostics) diagnostics.push(d.message)

  const elisionOf = new Map<ResultFact, Elision>()
  applied.forEach((d, k) => {
    const e = elisions[k]
    if (e !== undefined) elisionOf.set(d.fact, e)
  })
  const elisionKind = settings.mode === "on" ? "applied" : "would_be"
  // Results before this position in `analysis.facts` are past the clearing horizon.
  const firstKept = horizon === undefined ? 0 : analysis.facts.length - horizon
  const segments: Array<ReportSegment> = []
  const totals = { pinned: 0, high: 0, normal: 0, low: 0 }
  const add = (segment: ReportSegment): void => {
    totals[segment.criticality]++
    segments.push(segment)
  }

  // One segment per message, or one per tool result for a message carrying results; `f` walks the results.
  let f = 0
  for (let i = 0; i < history.length; i++) {
    const facts = analysis.messages[i]
    if (facts === undefined) continue
    const messageTokens = before.costs[i] ?? 0
    const lastTurn = i >= analysis.lastTurnStart
    const first = f
    while (analysis.facts[f]?.index === i) f++
    const results = analysis.facts.slice(first, f)
    if (results.length === 0) {
      const { origin, type } = messageType(facts, history[i] as M, settings)
      const traits: SegmentTraits = {
        type,
        pinned: facts.pinned,
        inCheckpoint: false,
        elision: undefined,
        isError: false,
        lastTurn,
        pastHorizon: false
      }
      add({ index: i, type, origin, tokens: messageTokens, ...classify(traits) })
      continue
    }
    const tokens = resultTokens(results, messageTokens, settings.counter)
    results.forEach((fact, k) => {
      const elision = elisionOf.get(fact)
      const traits: SegmentTraits = {
        type: "tool-result",
        pinned: facts.pinned,
        inCheckpoint: facts.summary,
        elision: elision === undefined ? undefined : elisionKind,
        isError: fact.isError,
        lastTurn,
        pastHorizon: first + k < firstKept
      }
      add({
        index: i,
        callId: fact.callId,
        type: "tool-result",
        origin: originOf(fact),
        tokens: tokens[k] ?? 0,
        ...classify(traits),
        ...(elision === undefined ? {} : { elided: elision.reason })
      })
    })
  }

  const kept = cap(segments, MAX_REPORT_SEGMENTS)
  return {
    mode: settings.mode === "on" ? "on" : "shadow",
    policyVersion: 1,
    messages: history.length,
    segmentsTotal: segments.length,
    leftOut: segments.length - kept.length,
    segments: kept,
    tokens: {
      before: before.total,
      after: tokensAfter,
      saved: before.total - tokensAfter,
      approximate,
      counter: before.counter
    },
    elisions: applied.map((d, k) => ({
      callId: d.fact.callId,
      supersededBy: d.supersededBy,
      reason: d.reason,
      index: d.fact.index,
      tool: d.fact.tool,
      origin: originOf(d.fact),
      tokensSaved: elisions[k]?.tokensSaved ?? 0
    })),
    criticality: totals,
    compacted: analysis.messages.some((m) => m.summary),
    invariants: invariantCounts(options.invariants),
    usage: summarizeUsage(analysis, new Set(settings.mode === "on" ? elisions.map((e) => e.callId) : [])),
    diagnostics
  }
}

const report = <M>(history: ReadonlyArray<M>, options: ReportOptions<M> | undefined): ContextReport => {
  const given: ReportOptions<M> = typeof options === "object" && options !== null ? options : {}
  const settings = settingsOf(given)
  if (settings.mode === "off") return { mode: "off", note: OFF_NOTE }
  const list: ReadonlyArray<M> = Array.isArray(history) ? history : []
  return build(list, settings, analyze(list, settings, settings.previous).analysis, given)
}

/**
 * The context report of a history, computed on request from the stored history: each segment (a message, or
 * one tool result) with its type, origin (file path, tool name or role), estimated tokens, criticality and the
 * reason for it (see {@link CriticalityReason}); the results `on` elided or `shadow` would elide, with reason,
 * superseding call id and tokens saved; the invariants the request carries, in total and by kind; the usage
 * summary. At most 400 segments: pinned, low and elided segments are always kept (should they alone pass 400,
 * pinned first, then elided, then low, newest first), the rest trimmed from the oldest, and `leftOut` counts
 * what was left out. With the governor off, the report only says so. It never contains the text of a message,
 * file, stub or invariant. Data-first or data-last.
 *
 * @example
 * ```ts
 * import { contextReport } from "@ctxkit/governor"
 *
 * const report = contextReport(
 *   [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
 *   { mode: "shadow", invariants: { instruction: 1 } }
 * )
 * report.mode === "shadow" && report.segments.map((s) => [s.type, s.criticality, s.reason])
 * // [["system", "pinned", "system-prompt"], ["user", "high", "user-message"]]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const contextReport: {
  <M>(options?: ReportOptions<M>): (history: ReadonlyArray<M>) => ContextReport
  <M>(history: ReadonlyArray<M>, options?: ReportOptions<M>): ContextReport
} = dual(
  (args: IArguments) => args.length >= 2 || Array.isArray(args[0]),
  <M>(history: ReadonlyArray<M>, options?: ReportOptions<M>): ContextReport => report(history, options)
)
