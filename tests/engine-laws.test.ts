/**
 * L15–L17 over simulated sessions in every wire format: the engine loop (every request pair-valid, protected
 * context kept, within `window − reserve`, `max_tokens` = reserve, the transcript whole, deterministic), durability
 * under a store that fails at step k, and the overflow end (truncation and over-window errors).
 */
import { conversation, formatNames, formatOf } from "@ctxkit/testing"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  appendsOf,
  failingStore,
  type ProviderMode,
  requestViolations,
  serverCount,
  simulate,
  transcriptViolations
} from "./engineSim.ts"
import { runs } from "./runs.ts"

const scenarioOptions = { maxTurns: 40, huge: true, blocks: true, approvals: true, farResults: true }

const arbitrary = (name: (typeof formatNames)[number]) =>
  fc.record({
    rendered: conversation(name, scenarioOptions),
    windowShare: fc.double({ min: 0.2, max: 1.2, noNaN: true }),
    preset: fc.constantFrom("recommended" as const, "tutorial" as const, "alisio" as const, "neotavern" as const)
  })

describe("engine laws", () => {
  for (const name of formatNames) {
    const format = formatOf(name)

    it(`L15 engine loop (${name}): honest provider, governor on, invariants active`, async () => {
      const seen = new Map<string, number>()
      await fc.assert(
        fc.asyncProperty(arbitrary(name), async ({ preset, rendered, windowShare }) => {
          const appends = appendsOf(rendered.messages, format)
          const size = serverCount(rendered.messages, format)
          const window = Math.max(1_200, Math.round(size * windowShare))
          const engine = { format, window, maxTokens: 512, preset, governor: { mode: "on" as const } }
          const first = await simulate(appends, { format, engine, mode: "honest" })
          for (const event of first.events) {
            const key = event.type === "context_fitted" && event.data.excluded > 0 ? "excluded" : event.type
            seen.set(key, (seen.get(key) ?? 0) + 1)
          }
          const violations: Array<string> = []
          for (const turn of first.turns) {
            violations.push(...requestViolations(turn, format, 512))
            if (
              turn.failed !== undefined && turn.failed !== "TokenBudgetExceeded" &&
              turn.failed !== "ContextBudgetExceeded"
            ) {
              violations.push(`unexpected failure ${turn.failed}`)
            }
            if (turn.truncated === true) violations.push("L14: an honest request was flagged")
          }
          const last = first.turns.at(-1)?.state
          violations.push(...transcriptViolations(appends, last, first.turns.length))
          // The same session replayed gives the same requests.
          const second = await simulate(appends, { format, engine, mode: "honest" })
          const requests = (r: typeof first) => JSON.stringify(r.turns.map((t) => t.result?.messages ?? t.failed))
          if (requests(first) !== requests(second)) violations.push("L15: the replay sent different requests")
          expect(violations).toEqual([])
        }),
        { numRuns: runs.fewest }
      )
      expect(seen.get("context_fitted") ?? 0).toBeGreaterThan(0)
    })

    it(`L15 on long seeded sessions (${name}): every rewriting step fires and the laws hold`, async () => {
      const seen = new Set<string>()
      const violations: Array<string> = []
      const samples = fc.sample(conversation(name, { ...scenarioOptions, maxTurns: 120 }), { seed: 42, numRuns: 6 })
      for (const rendered of samples) {
        const appends = appendsOf(rendered.messages, format)
        const window = Math.max(1_200, Math.round(serverCount(rendered.messages, format) * 0.3))
        const engine = { format, window, maxTokens: 512, preset: "recommended" as const }
        const sim = await simulate(appends, { format, engine, mode: "honest" })
        for (const event of sim.events) {
          seen.add(event.type === "context_fitted" && event.data.excluded > 0 ? "excluded" : event.type)
        }
        for (const turn of sim.turns) violations.push(...requestViolations(turn, format, 512))
        violations.push(...transcriptViolations(appends, sim.turns.at(-1)?.state, sim.turns.length))
      }
      expect(violations).toEqual([])
      expect(["compaction_completed", "context_governed"].filter((t) => !seen.has(t))).toEqual([])
    })

    it(`L16 durability (${name}): a store failing at step k loses nothing and never half-applies`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary(name), fc.integer({ min: 1, max: 30 }), async ({ rendered, windowShare }, k) => {
          const appends = appendsOf(rendered.messages, format)
          const size = serverCount(rendered.messages, format)
          const window = Math.max(2_000, Math.round(size * windowShare))
          const engine = { format, window, maxTokens: 512, preset: "recommended" as const }
          // Every apply (prepare's and observe's) counts; the k-th one fails, the call is retried.
          const sim = await simulate(appends, {
            format,
            engine,
            mode: "honest",
            store: failingStore(new Set([k])),
            retryStoreErrors: true
          })
          const completed = sim.turns.filter((t) => t.failed !== "SessionStoreError")
          const last = sim.turns.at(-1)?.state
          const budgetStop = sim.turns.some((t) =>
            t.failed === "TokenBudgetExceeded" || t.failed === "ContextBudgetExceeded"
          )
          const violations = transcriptViolations(appends, last, completed.length)
          if (!budgetStop && completed.length !== appends.length) violations.push("L16: a turn was lost")
          expect(violations).toEqual([])
        }),
        { numRuns: runs.fewest }
      )
    })

    it(`L17 overflow end (${name}): truncation and over-window errors end with context_overflow`, async () => {
      let overflows = 0
      await fc.assert(
        fc.asyncProperty(
          arbitrary(name),
          fc.constantFrom<ProviderMode>("plateau", "collapse", "llama"),
          fc.double({ min: 0.2, max: 0.8, noNaN: true }),
          async ({ preset, rendered, windowShare }, mode, serverShare) => {
            const appends = appendsOf(rendered.messages, format)
            const size = serverCount(rendered.messages, format)
            const window = Math.max(1_200, Math.round(size * windowShare))
            // Relative to what is sent, so that most sessions outgrow the server.
            const serverWindow = Math.max(60, Math.round(Math.min(window, size) * serverShare))
            const engine = { format, window, maxTokens: 512, preset, governor: { mode: "on" as const } }
            const sim = await simulate(appends, { format, engine, mode, serverWindow })
            const violations: Array<string> = []
            for (const turn of sim.turns) {
              const result = turn.result
              if (result === undefined) continue
              const over = serverCount(result.messages, format) > serverWindow
              if (turn.overflow === true) overflows++
              if (turn.truncated === true || turn.overflow === true) {
                if (turn.overflow !== true) violations.push("L17: truncated without context_overflow")
                if (turn.calibrationAfter !== turn.calibrationBefore) {
                  violations.push("L17: a truncated response calibrated")
                }
              }
              if (over && mode === "llama") {
                if (turn.overflow !== true) violations.push("L17: an over-window error was not classified")
                if (turn.state.meta.learnedWindow?.tokens !== serverWindow) {
                  violations.push("L17: n_ctx was not learned")
                }
              }
              if (!over && turn.truncated === true) violations.push("L14: an intact request was flagged")
            }
            // The transcript holds exactly what was appended: no response was ever added by the engine.
            const done = sim.turns.filter((t) => t.result !== undefined || t.failed !== undefined).length
            violations.push(...transcriptViolations(appends, sim.turns.at(-1)?.state, done))
            expect(violations).toEqual([])
          }
        ),
        { numRuns: runs.fewest }
      )
      expect(overflows).toBeGreaterThan(0)
    })
  }
})
