/**
 * Governor-rich generated conversations, shared by the law and the incremental-analysis tests.
 */
import type { Scenario, ScenarioCall, ScenarioResult, ScenarioTurn } from "@ctxkit/testing/Scenario"
import * as fc from "fast-check"

const PATHS = ["src/a.ts", "src/b.ts", "docs/ü 🚀.md"]
const BODIES = [
  "alpha ".repeat(30),
  "beta ".repeat(30),
  "exit 0\nsrc/a.ts:1: match\nelapsed_ms: 3",
  "exit 0\nsrc/a.ts:1: match\nelapsed_ms: 9",
  "{\"next_offset\": 10, \"output\": \"" + "o".repeat(120) + "\"}",
  "ok",
  "",
  "données 数据 — ".repeat(12)
]

type CallPlan = { readonly name: string; readonly args: Record<string, unknown> }

const callPlan: fc.Arbitrary<CallPlan> = fc.oneof(
  fc.record({
    name: fc.constant("read_file"),
    args: fc.record(
      { path: fc.constantFrom(...PATHS), startLine: fc.integer({ min: 1, max: 3 }), limit: fc.constantFrom(10, 50) },
      { requiredKeys: ["path"] }
    )
  }),
  fc.record({ name: fc.constantFrom("edit_file", "write_file"), args: fc.record({ path: fc.constantFrom(...PATHS) }) }),
  fc.record({
    name: fc.constant("bg_output"),
    args: fc.record({ id: fc.constantFrom("t1", "t2"), offset: fc.constantFrom(0, 10) }, { requiredKeys: ["id"] })
  }),
  fc.record({ name: fc.constant("search_text"), args: fc.record({ pattern: fc.constantFrom("x", "y") }) }),
  fc.record({
    name: fc.constant("run_process"),
    args: fc.record({ command: fc.constantFrom("ls src", "cat src/a.ts") })
  })
)

type Step =
  | { readonly kind: "user"; readonly summary: boolean; readonly pinned: boolean }
  | { readonly kind: "say" }
  | {
    readonly kind: "calls"
    readonly calls: ReadonlyArray<CallPlan>
    readonly bodies: ReadonlyArray<number>
    readonly errors: ReadonlyArray<boolean>
    readonly together: boolean
  }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      summary: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      pinned: fc.boolean()
    })
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("say" as const) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      calls: fc.array(callPlan, { minLength: 1, maxLength: 3 }),
      bodies: fc.array(fc.nat(BODIES.length - 1), { minLength: 3, maxLength: 3 }),
      errors: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      together: fc.boolean()
    })
  }
)

/** Governor-rich scenarios: reads, writes, polls and searches over a few paths, tasks and patterns. */
export const governedScenario: fc.Arbitrary<Scenario> = fc.array(step, { minLength: 10, maxLength: 60, size: "max" })
  .map(
    (steps) => {
      const turns: Array<ScenarioTurn> = [{
        kind: "system",
        text: "You are a coding agent.",
        source: "system",
        pinned: false
      }]
      let next = 0
      for (const s of steps) {
        if (s.kind === "user") {
          turns.push({
            kind: "user",
            text: s.summary ? "Summary so far" : "next",
            pinned: s.pinned,
            summary: s.summary
          })
        } else if (s.kind === "say") {
          turns.push({ kind: "assistant", text: "thinking", reasoning: undefined, calls: [] })
        } else {
          const calls: Array<ScenarioCall> = s.calls.map((c) => ({
            id: `call_${next++}`,
            name: c.name,
            arguments: JSON.stringify(c.args)
          }))
          turns.push({ kind: "assistant", text: "", reasoning: undefined, calls })
          const results: Array<ScenarioResult> = calls.map((c, i) => ({
            callId: c.id,
            name: c.name,
            text: BODIES[s.bodies[i] ?? 0] ?? "",
            // Errors now and then (one in three calls at most).
            isError: (s.errors[i] ?? false) && i === 1
          }))
          if (s.together) turns.push({ kind: "results", results })
          else for (const r of results) turns.push({ kind: "results", results: [r] })
        }
      }
      return { turns }
    }
  )
