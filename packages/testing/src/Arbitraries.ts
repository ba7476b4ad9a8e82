/**
 * fast-check arbitraries of well-formed agent conversations, as wire-format-neutral {@link Scenario}s and
 * rendered into every wire format ctxkit ships.
 *
 * @since 0.1.0
 */
import * as fc from "fast-check"
import {
  approvalStateChoices,
  orphanResponseChoices,
  reminderChoices,
  withApprovalStates,
  withOrphanResponses,
  withReminders
} from "./internal/approvalStates.ts"
import { type FormatName, render } from "./Render.ts"
import type { Rendered, Scenario, ScenarioCall, ScenarioResult, ScenarioTurn } from "./Scenario.ts"

/**
 * What generated scenarios contain. Every feature is on by default except orphans and dangling calls,
 * which a well-formed conversation does not have: ask for them.
 *
 * @example
 * ```ts
 * import type { ScenarioOptions } from "@ctxkit/testing/Arbitraries"
 *
 * const options: ScenarioOptions = { maxTurns: 40, orphans: true, dangling: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ScenarioOptions {
  /** Upper bound on generated steps (a step is one turn or one batch of results). Default 24. */
  readonly maxTurns?: number | undefined
  /** At most this many parallel calls per assistant turn. Default 4. */
  readonly maxParallelCalls?: number | undefined
  /** Results that answer no call. Default false. */
  readonly orphans?: boolean | undefined
  /** Calls left without a result. Default false. */
  readonly dangling?: boolean | undefined
  /** Calls that ask for approval first. Default true. */
  readonly approvals?: boolean | undefined
  /**
   * Approvals in every state: approved and executed, denied (answered by an error result) and, when `dangling`
   * is on, requested and never answered, approved and awaiting execution, denied with no result yet; when
   * `orphans` is on, approval responses whose request is nowhere. Default true.
   */
  readonly approvalStates?: boolean | undefined
  /** Mid-conversation system reminders (`source: "reminder"`, not protected). Default true. */
  readonly reminders?: boolean | undefined
  /** Reasoning before assistant replies. Default true. */
  readonly reasoning?: boolean | undefined
  /** Results delivered several turns after their call. Default true. */
  readonly farResults?: boolean | undefined
  /** Pinned messages, memory and lorebook blocks, summaries. Default true. */
  readonly blocks?: boolean | undefined
  /** Now and then a huge text (20k–120k characters). Default true. */
  readonly huge?: boolean | undefined
  /** Now and then a user turn logged as two user messages, a slash command and its expansion. Default true. */
  readonly doubledUserTurns?: boolean | undefined
}

const HUGE_SOURCE = "Zeile 🚀 données 数据 — ".repeat(6_000)

/**
 * Message texts with the shapes that break naive code: empty, whitespace, ASCII, non-ASCII (combining
 * marks, surrogate pairs, CJK, RTL), NUL and control characters, and — when `huge` — 20k to 120k
 * characters.
 *
 * @example
 * ```ts
 * import { text } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * fc.sample(text(), 3)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const text = (options: { readonly huge?: boolean | undefined } = {}): fc.Arbitrary<string> => {
  const choices: Array<fc.WeightedArbitrary<string>> = [
    { weight: 2, arbitrary: fc.constant("") },
    { weight: 10, arbitrary: fc.string({ maxLength: 80 }) },
    { weight: 6, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
    { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("e\u0301\u0301", "👩‍👩‍👧", "\u0000nul\u0000", "مرحبا", "  \n\t ", "\uD83D\uDE80".repeat(9))
    },
    { weight: 4, arbitrary: fc.lorem({ maxCount: 60, mode: "sentences" }) }
  ]
  if (options.huge !== false) {
    choices.push({
      weight: 1,
      arbitrary: fc.integer({ min: 20_000, max: 120_000 }).map((n) => HUGE_SOURCE.slice(0, n))
    })
  }
  return fc.oneof(...choices)
}

type Step =
  | {
    readonly kind: "system"
    readonly text: string
    readonly source: "system" | "memory" | "lorebook"
    readonly pinned: boolean
  }
  | { readonly kind: "user"; readonly text: string; readonly pinned: boolean; readonly summary: boolean }
  | {
    readonly kind: "assistant"
    readonly text: string
    readonly reasoning: string | undefined
    readonly calls: ReadonlyArray<{ readonly name: string; readonly arguments: string; readonly approval: boolean }>
    /** Deliver the results now, one message for all (true) or one batch per result (false), or later. */
    readonly delivery: "together" | "split" | "later"
    readonly danglingMask: number
  }
  | { readonly kind: "deliver"; readonly count: number }
  | { readonly kind: "orphan"; readonly text: string }

const TOOL_NAMES = ["read_file", "edit_file", "run_command", "search", "list_dir", "web_fetch"] as const

/**
 * Generated {@link Scenario}s: a system prompt, then user, assistant and result turns with parallel calls,
 * results far from their call, multi-result turns, approvals, reasoning, pinned/memory/lorebook blocks and
 * summaries — and, on demand, orphan results and dangling calls. Ids are unique within a scenario.
 *
 * @example
 * ```ts
 * import { scenario } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * fc.assert(fc.property(scenario({ maxTurns: 10 }), (s) => s.turns.length >= 1))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const scenario = (options: ScenarioOptions = {}): fc.Arbitrary<Scenario> => {
  const maxCalls = Math.max(0, options.maxParallelCalls ?? 4)
  const blocks = options.blocks !== false
  const body = text({ huge: options.huge })
  const call = fc.record({
    name: fc.constantFrom(...TOOL_NAMES),
    arguments: fc.oneof(
      fc.string({ maxLength: 30 }).map((path) => JSON.stringify({ path })),
      fc.constant("{}"),
      fc.constant("{\"command\":\"ls -la\"") // truncated JSON: models do produce it
    ),
    approval: options.approvals === false ? fc.constant(false) : fc.boolean()
  })
  const steps: Array<fc.WeightedArbitrary<Step>> = [
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant("user" as const),
        text: body,
        pinned: blocks ? fc.boolean() : fc.constant(false),
        summary: blocks ? fc.boolean() : fc.constant(false)
      })
    },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("assistant" as const),
        text: body,
        reasoning: options.reasoning === false
          ? fc.constant(undefined)
          : fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
        calls: fc.array(call, { maxLength: maxCalls }),
        delivery: options.farResults === false
          ? fc.constantFrom("together" as const, "split" as const)
          : fc.constantFrom("together" as const, "split" as const, "later" as const),
        danglingMask: options.dangling === true ? fc.nat(15) : fc.constant(0)
      })
    },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("deliver" as const), count: fc.integer({ min: 1, max: 3 }) })
    }
  ]
  if (blocks) {
    steps.push({
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("system" as const),
        text: body,
        source: fc.constantFrom("system" as const, "memory" as const, "lorebook" as const),
        pinned: fc.boolean()
      })
    })
  }
  if (options.orphans === true) {
    steps.push({ weight: 1, arbitrary: fc.record({ kind: fc.constant("orphan" as const), text: body }) })
  }
  const states = options.approvalStates !== false
  const built = fc.tuple(body, fc.array(fc.oneof(...steps), { minLength: 0, maxLength: options.maxTurns ?? 24 }), body)
    .map(([systemText, plan, resultText]) => build(systemText, plan, resultText))
  const base = options.doubledUserTurns === false ? built : withDoubledUserTurns(built)
  return fc.tuple(
    base,
    states && options.approvals !== false ? approvalStateChoices(options.dangling === true) : fc.constant([]),
    states && options.orphans === true ? orphanResponseChoices : fc.constant([]),
    options.reminders !== false ? reminderChoices(body) : fc.constant([])
  ).map(([built, approvalStates, orphanAt, reminderAt]) =>
    withReminders(withOrphanResponses(withApprovalStates(built, approvalStates), orphanAt), reminderAt)
  )
}

const build = (systemText: string, plan: ReadonlyArray<Step>, resultText: string): Scenario => {
  const turns: Array<ScenarioTurn> = [{ kind: "system", text: systemText, source: "system", pinned: false }]
  // Batches of results waiting to be delivered, and approvals waiting to be answered before them.
  const later: Array<ReadonlyArray<ScenarioResult>> = []
  let nextId = 0
  let orphanId = 0
  const results = (calls: ReadonlyArray<ScenarioCall>, mask: number): Array<ScenarioResult> =>
    calls
      .filter((_, i) => (mask & (1 << i)) === 0)
      .map((c, i) => ({ callId: c.id, name: c.name, text: i === 0 ? resultText : `${c.name} ok`, isError: i === 2 }))
  const approvalsFor = (calls: ReadonlyArray<ScenarioCall>): Array<ScenarioTurn> =>
    calls.flatMap((c) =>
      c.approvalId === undefined ? [] : [{ kind: "approval" as const, approvalId: c.approvalId, approved: true }]
    )
  for (const step of plan) {
    switch (step.kind) {
      case "system":
      case "user":
        turns.push(step)
        break
      case "orphan":
        turns.push({
          kind: "results",
          results: [{ callId: `orphan_${orphanId++}`, name: "read_file", text: step.text, isError: false }]
        })
        break
      case "deliver":
        for (let k = 0; k < step.count && later.length > 0; k++) {
          // `later` is non-empty: checked by the loop condition.
          turns.push({ kind: "results", results: later.shift()! })
        }
        break
      case "assistant": {
        const calls: Array<ScenarioCall> = step.calls.map((c) => {
          const id = `call_${nextId++}`
          return { id, name: c.name, arguments: c.arguments, ...(c.approval ? { approvalId: `appr_${id}` } : {}) }
        })
        turns.push({ kind: "assistant", text: step.text, reasoning: step.reasoning, calls })
        const answers = results(calls, step.danglingMask)
        if (answers.length === 0) break
        const approvals = approvalsFor(calls.filter((c) => answers.some((a) => a.callId === c.id)))
        if (step.delivery === "later") {
          for (const a of approvals) turns.push(a)
          later.push(answers)
        } else {
          for (const a of approvals) turns.push(a)
          if (step.delivery === "together") turns.push({ kind: "results", results: answers })
          else for (const a of answers) turns.push({ kind: "results", results: [a] })
        }
        break
      }
    }
  }
  for (const batch of later) turns.push({ kind: "results", results: batch })
  return { turns }
}

/**
 * Generated conversations in one wire format: a {@link scenario} rendered with {@link render}, with the
 * link keys each message was rendered from (an independent grouping oracle, see {@link groupsFromKeys}).
 *
 * @example
 * ```ts
 * import { toolGroups } from "@ctxkit/core"
 * import { conversation, formatOf, groupsFromKeys } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * fc.assert(fc.property(conversation("anthropic"), (rendered) => {
 *   const { groups } = toolGroups(rendered.messages, formatOf("anthropic"))
 *   return JSON.stringify(groups) === JSON.stringify(groupsFromKeys(rendered))
 * }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const conversation = (format: FormatName, options: ScenarioOptions = {}): fc.Arbitrary<Rendered<unknown>> =>
  scenario(options).map((s) => render(format, s))

/**
 * The groups a rendered conversation must have, computed from its keys alone (messages sharing a key
 * are together; a `next` key joins a message to the following one), in `toolGroups`' layout: ascending
 * indices, groups ordered by first index.
 *
 * @example
 * ```ts
 * import { groupsFromKeys } from "@ctxkit/testing"
 *
 * groupsFromKeys({ messages: [1, 2, 3], keys: [["call:a"], [], ["call:a"]] }) // [[0, 2], [1]]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const groupsFromKeys = (rendered: Rendered<unknown>): ReadonlyArray<ReadonlyArray<number>> => {
  const n = rendered.messages.length
  const label = Array.from({ length: n }, (_, i) => i)
  // Naive relabelling until stable: quadratic, deliberately unlike the union–find under test.
  let changed = true
  while (changed) {
    changed = false
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const ki = rendered.keys[i] ?? []
        const kj = rendered.keys[j] ?? []
        const linked = (j === i + 1 && ki.includes("next")) || ki.some((k) => k !== "next" && kj.includes(k))
        if (linked && label[i] !== label[j]) {
          const low = Math.min(label[i]!, label[j]!)
          const high = Math.max(label[i]!, label[j]!)
          for (let k = 0; k < n; k++) if (label[k] === high) label[k] = low
          changed = true
        }
      }
    }
  }
  const byLabel = new Map<number, Array<number>>()
  for (let i = 0; i < n; i++) {
    const members = byLabel.get(label[i]!)
    if (members === undefined) byLabel.set(label[i]!, [i])
    else members.push(i)
  }
  return [...byLabel.values()].sort((a, b) => a[0]! - b[0]!)
}

const SLASH_COMMANDS = ["review", "init", "fix-tests", "compact-notes"] as const

/**
 * Scenarios in which some user turns are logged the way several harnesses (Claude Code among them) log a slash
 * command: two consecutive user messages, the command as typed (`<command-name>/review</command-name>`) and then
 * its expansion (the original turn). About one plain user turn in four is doubled; checkpoints and pinned turns
 * never are. Two user turns in a row are two turn starts, which is what trips a plan that counts turns naively.
 *
 * @example
 * ```ts
 * import { scenario, withDoubledUserTurns } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * const doubled = withDoubledUserTurns(scenario({ doubledUserTurns: false }))
 * fc.assert(fc.property(doubled, (s) => s.turns.length >= 1))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const withDoubledUserTurns = (base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(base, fc.array(fc.nat(3), { minLength: 1, maxLength: 8 }), fc.constantFrom(...SLASH_COMMANDS)).map(
    ([s, draws, command]) => {
      const turns: Array<ScenarioTurn> = []
      let k = 0
      for (const turn of s.turns) {
        if (turn.kind === "user" && !turn.summary && !turn.pinned && draws[k++ % draws.length] === 0) {
          turns.push({ kind: "user", text: `<command-name>/${command}</command-name>`, pinned: false, summary: false })
        }
        turns.push(turn)
      }
      return { turns }
    }
  )
