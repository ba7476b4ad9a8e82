/**
 * The compaction laws (quality.md L11 compaction plan, L12 tail reduction) as reusable checks, for ctxkit's own
 * `planCompaction` and `reduceToBudget` and for yours. Each check returns the list of violations, in words; an
 * empty list means the law holds. This module reads results structurally and does not depend on
 * `@ctxkit/compaction`.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat, toolGroups } from "@ctxkit/core"

/**
 * What a compaction planner returned, as the L11 check reads it: a plan (`_tag: "CompactionPlan"`, with
 * `summarized` and `kept`, optionally `cut` and `retained`) or anything else with a `_tag` (no plan; its `reason`,
 * when present, is checked against the open calls).
 *
 * @example
 * ```ts
 * import type { PlanLike } from "@ctxkit/testing/CompactionLaws"
 *
 * const plan: PlanLike<string> = { _tag: "CompactionPlan", cut: 1, summarized: ["a"], kept: ["b"] }
 * const none: PlanLike<string> = { _tag: "NoPlan", reason: "open-call" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PlanLike<M> {
  readonly _tag: string
  readonly cut?: number | undefined
  readonly summarized?: ReadonlyArray<M> | undefined
  readonly kept?: ReadonlyArray<M> | undefined
  readonly retained?: ReadonlyArray<number> | undefined
  readonly reason?: string | undefined
  readonly openCalls?: ReadonlyArray<string> | undefined
}

/**
 * L11 compaction plan (one plan; for the clause "a larger `keepTurns` never keeps fewer messages" see
 * {@link keepTurnsViolations}): `summarized ++ kept` is the input, element by element (the same objects); the cut splits
 * no tool-call group (`toolGroups`: calls, results, approvals, reasoning items), so each part is pair-closed, and
 * the kept part does not start with a tool result nor right after a message that travels with the next one;
 * `retained` indices, when given, are ascending, before the cut, and protected messages without links; and there
 * is no plan while a call is open (a no-plan whose `reason` is `open-call` needs an open call, and lists exactly
 * those in `openCalls` when it has them).
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { planViolations } from "@ctxkit/testing"
 *
 * const input: ReadonlyArray<Message> = [
 *   { role: "user", content: "go" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ls", arguments: "{}" }] },
 *   { role: "tool", toolCallId: "a", content: "x" },
 *   { role: "user", content: "next" }
 * ]
 * planViolations(input, { _tag: "CompactionPlan", cut: 3, summarized: input.slice(0, 3), kept: input.slice(3) }, formats.canonical) // []
 * planViolations(input, { _tag: "CompactionPlan", cut: 2, summarized: input.slice(0, 2), kept: input.slice(2) }, formats.canonical).length > 0 // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const planViolations = <M = unknown>(
  input: ReadonlyArray<NoInfer<M>>,
  plan: PlanLike<NoInfer<M>>,
  format: MessageFormat<M> = formats.auto as unknown as MessageFormat<M>
): Array<string> => {
  const violations: Array<string> = []
  const { diagnostics, groups } = toolGroups(input, format)
  const open = new Set<string>()
  for (const d of diagnostics) {
    if (d._tag === "DanglingCall" || d._tag === "AwaitingExecution") open.add(d.callId)
  }

  if (plan._tag !== "CompactionPlan") {
    if (plan.reason === "open-call") {
      if (open.size === 0) violations.push("L11: no plan because of an open call, but every call has a result")
      if (plan.openCalls !== undefined) {
        const listed = new Set(plan.openCalls)
        if (listed.size !== open.size || [...open].some((id) => !listed.has(id))) {
          violations.push(
            `L11: openCalls lists [${[...listed].join(", ")}] but the open calls are [${[...open].join(", ")}]`
          )
        }
      }
    } else if (plan.reason === "nothing-to-summarize" && open.size > 0) {
      violations.push(`L11: calls [${[...open].join(", ")}] are open, but the reason given is "nothing-to-summarize"`)
    }
    return violations
  }

  if (open.size > 0) violations.push(`L11: a plan was made while calls [${[...open].join(", ")}] are open`)
  const summarized = plan.summarized ?? []
  const kept = plan.kept ?? []
  const cut = summarized.length
  if (plan.cut !== undefined && plan.cut !== cut) {
    violations.push(`L11: cut is ${plan.cut} but ${cut} messages are summarized`)
  }
  if (cut + kept.length !== input.length) {
    violations.push(`L11: summarized (${cut}) + kept (${kept.length}) is not the input's ${input.length} messages`)
  }
  for (let i = 0; i < input.length; i++) {
    const m = i < cut ? summarized[i] : kept[i - cut]
    if (!Object.is(m, input[i])) {
      violations.push(`L11: message ${i} of summarized ++ kept is not the input's message ${i} (same object)`)
      break
    }
  }
  for (const group of groups) {
    const before = group.filter((i) => i < cut).length
    if (before !== 0 && before !== group.length) {
      violations.push(`L11: the cut at ${cut} splits group [${group.join(", ")}]`)
    }
  }
  if (cut > 0 && cut < input.length) {
    const first = input[cut]
    if (first !== undefined && (format.role(first) === "tool" || format.toolResults(first).length > 0)) {
      violations.push(`L11: the kept part starts with a tool result (message ${cut})`)
    }
    const last = input[cut - 1]
    if (last !== undefined && format.attachesToNext(last)) {
      violations.push(`L11: message ${cut - 1} travels with the next one but the cut separates them`)
    }
  }
  let previous = -1
  for (const i of plan.retained ?? []) {
    if (!Number.isInteger(i) || i <= previous || i >= cut) {
      violations.push(`L11: retained index ${i} is not ascending and before the cut`)
      break
    }
    previous = i
    const m = input[i]
    let linked = false
    if (m !== undefined) {
      format.forEachLink(m, () => {
        linked = true
      })
    }
    if (m === undefined || !format.isProtected(m) || linked) {
      violations.push(`L11: retained message ${i} is not a protected message without tool links`)
    }
  }
  return violations
}

/**
 * L11, its last clause: a larger `keepTurns` never keeps fewer messages. `planFor` plans the same history with a
 * given `keepTurns`; it is called for each value of `keepTurns` (ascending; default 0 to 6) and the kept counts are
 * compared with the largest seen before. A no-plan keeps the whole input (nothing is replaced); a no-plan because
 * of invalid options is reported as a violation.
 *
 * @example
 * ```ts
 * import { keepTurnsViolations } from "@ctxkit/testing"
 *
 * const input = ["u1", "a1", "u2", "a2", "u3"]
 * const lastTurns = (keepTurns: number) => {
 *   const cut = Math.max(0, input.length - 2 * keepTurns + 1)
 *   return { _tag: "CompactionPlan", summarized: input.slice(0, cut), kept: input.slice(cut) }
 * }
 * keepTurnsViolations(input, lastTurns) // []
 * keepTurnsViolations(input, (k) => lastTurns(k === 2 ? 0 : k)).length > 0 // true: keepTurns 2 keeps 0
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const keepTurnsViolations = <M>(
  input: ReadonlyArray<M>,
  planFor: (keepTurns: number) => PlanLike<M>,
  keepTurns: ReadonlyArray<number> = [0, 1, 2, 3, 4, 5, 6]
): Array<string> => {
  const violations: Array<string> = []
  let most = -1
  let mostAt = -1
  for (const k of [...keepTurns].sort((a, b) => a - b)) {
    const plan = planFor(k)
    if (plan._tag !== "CompactionPlan" && plan.reason === "invalid-options") {
      violations.push(`L11: keepTurns ${k} was refused as an invalid option`)
      continue
    }
    const kept = plan._tag === "CompactionPlan" ? (plan.kept ?? []).length : input.length
    if (kept < most) {
      violations.push(
        `L11: keepTurns ${k} keeps ${kept} message${kept === 1 ? "" : "s"} but keepTurns ${mostAt} keeps ${most}`
      )
    } else {
      most = kept
      mostAt = k
    }
  }
  return violations
}

/**
 * What a tail reduction returned, as the L12 check reads it: the messages, and optionally the count and indices
 * of the clipped ones, the serialized size and whether it is within target.
 *
 * @example
 * ```ts
 * import type { ReductionLike } from "@ctxkit/testing/CompactionLaws"
 *
 * const reduction: ReductionLike<string> = { messages: ["a"], truncated: 0, clipped: [], chars: 5, withinTarget: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ReductionLike<M> {
  readonly messages: ReadonlyArray<M>
  readonly truncated?: number | undefined
  readonly clipped?: ReadonlyArray<number> | undefined
  readonly chars?: number | undefined
  readonly withinTarget?: boolean | undefined
}

/**
 * Options of {@link reductionViolations}: the marker every cut ends with, and the smallest caps the reduction
 * goes down to (the last round's), which decide what "clipped as far as it goes" means.
 *
 * @example
 * ```ts
 * import type { ReductionLawOptions } from "@ctxkit/testing/CompactionLaws"
 *
 * const options: ReductionLawOptions = { minToolResultChars: 256, minTextChars: 1_024 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ReductionLawOptions {
  /** Default `… [truncated by context budget]`. */
  readonly marker?: string | undefined
  /** The last round's cap on a message's tool result text. Default 512. */
  readonly minToolResultChars?: number | undefined
  /** The last round's cap on a user or assistant message's own text. Default 1,024. */
  readonly minTextChars?: number | undefined
}

const MARKER = "… [truncated by context budget]"

const jsonLength = (value: unknown): number | undefined => {
  try {
    return JSON.stringify(value)?.length
  } catch {
    return undefined
  }
}

const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/**
 * L12 tail reduction: only contents change — same number of messages, and each clipped message keeps its role,
 * id, call ids, result call ids and attachments, and ends a text or a result with the marker; checkpoints and
 * protected messages are the very input objects, and so is every message not reported as clipped (`clipped`,
 * `truncated`); the input array itself when nothing was clipped or the input was already within target; `chars`
 * and `withinTarget` agree with `JSON.stringify(messages)`; and within target when reachable: if the output is
 * still over target, every clippable message (a user or assistant message, or one carrying tool results, that
 * is neither a checkpoint nor protected and whose content the lens can rewrite) is at most the smallest cap plus
 * the marker (plus one marker per later result). Determinism is checked by calling the reduction twice.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { reductionViolations } from "@ctxkit/testing"
 *
 * const input: ReadonlyArray<Message> = [{ role: "user", content: "x".repeat(5_000) }]
 * const marker = "… [truncated by context budget]"
 * const clipped: ReadonlyArray<Message> = [{ role: "user", content: "x".repeat(1_024) + "\n" + marker }]
 * reductionViolations(input, { messages: clipped, clipped: [0], truncated: 1 }, 2_000, formats.canonical) // []
 * reductionViolations(input, { messages: [{ role: "assistant", content: "x" }] }, 2_000, formats.canonical).length > 0 // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const reductionViolations = <M = unknown>(
  input: ReadonlyArray<NoInfer<M>>,
  output: ReductionLike<NoInfer<M>>,
  targetChars: number,
  format: MessageFormat<M> = formats.auto as unknown as MessageFormat<M>,
  options: ReductionLawOptions = {}
): Array<string> => {
  const violations: Array<string> = []
  const marker = options.marker ?? MARKER
  const minTool = options.minToolResultChars ?? 512
  const minText = options.minTextChars ?? 1_024
  const out = output.messages
  if (out.length !== input.length) {
    violations.push(`L12: ${out.length} messages out of ${input.length}: the count changed`)
    return violations
  }
  const changed: Array<number> = []
  for (let i = 0; i < input.length; i++) {
    const a = input[i] as M
    const b = out[i] as M
    if (a === b) continue
    changed.push(i)
    if (format.isSummary(a)) violations.push(`L12: checkpoint ${i} was changed`)
    if (format.isProtected(a)) violations.push(`L12: protected message ${i} was changed`)
    if (format.role(a) !== format.role(b)) violations.push(`L12: message ${i} changed role`)
    if (format.id(a) !== format.id(b)) violations.push(`L12: message ${i} changed id`)
    if (!same(format.toolCalls(a).map((c) => c.id), format.toolCalls(b).map((c) => c.id))) {
      violations.push(`L12: message ${i} changed its call ids`)
    }
    const results = format.toolResults(b)
    if (!same(format.toolResults(a).map((r) => r.callId), results.map((r) => r.callId))) {
      violations.push(`L12: message ${i} changed its result call ids`)
    }
    if (format.attachments(a).length !== format.attachments(b).length) {
      violations.push(`L12: message ${i} changed its attachments`)
    }
    if (!format.ownText(b).endsWith(marker) && !results.some((r) => r.text.endsWith(marker))) {
      violations.push(`L12: clipped message ${i} does not end a text with the marker`)
    }
  }
  if (output.clipped !== undefined && !same(output.clipped.map(String), changed.map(String))) {
    violations.push(`L12: clipped is [${output.clipped.join(", ")}] but messages [${changed.join(", ")}] changed`)
  }
  if (output.truncated !== undefined && output.truncated !== changed.length) {
    violations.push(`L12: truncated is ${output.truncated} but ${changed.length} messages changed`)
  }
  const before = jsonLength(input)
  if (changed.length === 0 && out !== input) violations.push("L12: nothing was clipped but a new array was returned")
  if (before !== undefined && before <= targetChars && out !== input) {
    violations.push(`L12: the input (${before} characters) was within ${targetChars} but a new array was returned`)
  }
  const after = jsonLength(out)
  if (after === undefined) return violations
  if (output.chars !== undefined && output.chars !== after) {
    violations.push(`L12: chars is ${output.chars} but the output serializes to ${after} characters`)
  }
  if (output.withinTarget !== undefined && output.withinTarget !== after <= targetChars) {
    violations.push(
      `L12: withinTarget is ${output.withinTarget} for ${after} characters and a target of ${targetChars}`
    )
  }
  if (after > targetChars) {
    for (let i = 0; i < input.length; i++) {
      const excess = excessOverMinimum(input[i] as M, out[i] as M, format, marker.length, minTool, minText)
      if (excess > 0) {
        violations.push(
          `L12: over target (${after} > ${targetChars}) but message ${i} could still be clipped (${excess} characters over the smallest cap)`
        )
      }
    }
  }
  return violations
}

/** How far the clippable content of `b` (the output for input `a`) is above the smallest cap; 0 when it is not. */
const excessOverMinimum = <M>(
  a: M,
  b: M,
  format: MessageFormat<M>,
  markerLength: number,
  minTool: number,
  minText: number
): number => {
  if (format.isSummary(a) || format.isProtected(a)) return 0
  // A cut adds a newline and the marker; a clip that would save less than that is not made.
  const slack = markerLength + 2
  const original = format.toolResults(a)
  if (original.length > 0) {
    if (original.every((r) => format.withResultText(a, r.callId, "") === a)) return 0
    let total = 0
    for (const r of format.toolResults(b)) total += r.text.length
    return total - (minTool + slack + markerLength * (original.length - 1))
  }
  const role = format.role(a)
  if (role !== "user" && role !== "assistant") return 0
  if (format.withText(a, "") === a) return 0
  return format.ownText(b).length - (minText + slack)
}
