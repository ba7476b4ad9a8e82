/**
 * Approvals in every state, and mid-conversation system reminders, laid over a generated scenario. Kept apart
 * from the base generator: each function takes a finished scenario and returns a new one.
 *
 * @internal
 */
import * as fc from "fast-check"
import type { Scenario, ScenarioTurn } from "../Scenario.ts"

/**
 * What happened to one call that asked for approval:
 * - `executed`: approved, and its result is there (the base scenario);
 * - `denied`: denied, answered by an error result (what the AI SDK records as `execution-denied`);
 * - `awaiting`: approved, no result yet (awaiting execution: the AI SDK's normal state between steps);
 * - `denied-awaiting`: denied, the framework's denial result not added yet;
 * - `requested`: asked, neither answered nor run (a dangling call).
 */
export type ApprovalState = "executed" | "denied" | "awaiting" | "denied-awaiting" | "requested"

/** The states to draw from: the ones that leave a call without a result only when dangling calls are allowed. */
export const approvalStateChoices = (dangling: boolean): fc.Arbitrary<ReadonlyArray<ApprovalState>> => {
  const states: ReadonlyArray<ApprovalState> = dangling
    ? ["executed", "denied", "awaiting", "denied-awaiting", "requested"]
    : ["executed", "denied"]
  return fc.array(fc.constantFrom(...states), { maxLength: 8 })
}

/**
 * The scenario with the `k`-th call that asks for approval put in state `states[k]` (`executed` past the end).
 * Removing a result empties its results turn, which then goes.
 */
export const withApprovalStates = (scenario: Scenario, states: ReadonlyArray<ApprovalState>): Scenario => {
  if (states.length === 0) return scenario
  // approval id → its call's id and state
  const byApproval = new Map<string, { readonly callId: string; readonly state: ApprovalState }>()
  let k = 0
  for (const turn of scenario.turns) {
    if (turn.kind !== "assistant") continue
    for (const call of turn.calls) {
      if (call.approvalId === undefined) continue
      byApproval.set(call.approvalId, { callId: call.id, state: states[k] ?? "executed" })
      k++
    }
  }
  const stateOfCall = new Map<string, ApprovalState>()
  for (const { callId, state } of byApproval.values()) stateOfCall.set(callId, state)

  const turns: Array<ScenarioTurn> = []
  for (const turn of scenario.turns) {
    if (turn.kind === "approval") {
      const state = byApproval.get(turn.approvalId)?.state ?? "executed"
      if (state === "requested") continue
      turns.push({ ...turn, approved: state === "executed" || state === "awaiting" })
      continue
    }
    if (turn.kind !== "results") {
      turns.push(turn)
      continue
    }
    const results = turn.results.flatMap((result) => {
      switch (stateOfCall.get(result.callId) ?? "executed") {
        case "executed":
          return [result]
        case "denied":
          return [{ ...result, text: "The user denied this tool call.", isError: true }]
        default:
          return []
      }
    })
    if (results.length > 0) turns.push({ kind: "results", results })
  }
  return { turns }
}

/** Orphan approval responses (no request anywhere) to insert: each a position (a fraction of the length). */
export const orphanResponseChoices: fc.Arbitrary<ReadonlyArray<number>> = fc.array(
  fc.double({ min: 0, max: 1, noNaN: true }),
  { maxLength: 2 }
)

/** The scenario with an approval response that answers no request at each position. */
export const withOrphanResponses = (scenario: Scenario, positions: ReadonlyArray<number>): Scenario => {
  if (positions.length === 0) return scenario
  const turns = [...scenario.turns]
  positions.forEach((at, n) => {
    // Never before the system prompt at index 0.
    const index = 1 + Math.floor(at * turns.length)
    turns.splice(Math.min(index, turns.length), 0, { kind: "approval", approvalId: `appr_orphan_${n}`, approved: true })
  })
  return { turns }
}

/** Mid-conversation system reminders to insert: each a position and a text. */
export const reminderChoices = (body: fc.Arbitrary<string>): fc.Arbitrary<ReadonlyArray<readonly [number, string]>> =>
  fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), body), { maxLength: 4 })

/**
 * The scenario with a system reminder (`source: "reminder"`: not protected, so fitting may drop it) at each
 * position. A reminder never goes between a call and the results that follow it right away, where a provider
 * expects the results.
 */
export const withReminders = (scenario: Scenario, reminders: ReadonlyArray<readonly [number, string]>): Scenario => {
  if (reminders.length === 0) return scenario
  const turns = [...scenario.turns]
  for (const [at, text] of reminders) {
    let index = 1 + Math.floor(at * turns.length)
    while (index < turns.length && (turns[index]!.kind === "results" || turns[index]!.kind === "approval")) index++
    turns.splice(Math.min(index, turns.length), 0, { kind: "system", text, source: "reminder", pinned: false })
  }
  return { turns }
}
