/**
 * The engine's per-turn cost: one `ContextEngine.prepare` after appending a turn to a 10k-message session, against
 * a from-scratch `prepare` of the same session (a new engine and store, the whole history in one append), with
 * the approximate counter and with o200k; and the memory a session holds.
 *
 * The session is `generateConversation(10_000)` (canonical format) with each text cut to 400 characters, so that
 * it fits a 2,000,000-token window below the clearing threshold: the steady state of a long session, where
 * nothing is cleared or compacted and every step runs (cap, governor `on`, trigger checks, fitting, invariants,
 * recount, audit, one store transaction). Preset `recommended`, hard limit raised to 100M characters.
 *
 * Target: a prepare after an append costs at most 5% of a from-scratch prepare, with both counters. Both the
 * wall-clock medians and the CPU time (user + system, interleaved rounds) are reported: on a shared machine the
 * CPU time is the steadier figure.
 */
import { approximateCounter, type Counter } from "@ctxkit/budget"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { formats, type Message } from "@ctxkit/core"
import { ContextEngine, SessionStore, TokenCounter } from "@ctxkit/engine"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { benchSession, instantSummarizer } from "./engineSession.ts"
import { type CaseResult, formatNs, formatRatio, Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "engine"

const SIZE = 10_000
/** Turns per CPU-time sample of append+prepare. */
const CPU_TURNS = 20

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

const engineWith = (counter: Counter) =>
  Effect.runSync(
    Effect.gen(function*() {
      return yield* ContextEngine
    }).pipe(
      Effect.provide(
        ContextEngine.layer({
          format: formats.canonical,
          window: 2_000_000,
          maxTokens: 8_192,
          hardLimit: { maxContextChars: 100_000_000 }
        }).pipe(Layer.provide([SessionStore.layerMemory, instantSummarizer, TokenCounter.layer(counter)]))
      )
    )
  )

const heapMb = (): number => {
  const gc = (globalThis as { readonly gc?: () => void }).gc
  gc?.()
  return process.memoryUsage().heapUsed / 1_048_576
}

/** Runs the benchmark. */
export const run = (h: Harness): void => {
  const history = benchSession(SIZE)
  const counters: ReadonlyArray<readonly [string, Counter]> = [["approx", approximateCounter], ["o200k", o200kCounter]]
  const rows: Array<Array<string>> = []
  const verdicts: Array<string> = []
  for (const [label, counter] of counters) {
    const engine = engineWith(counter)
    const before = heapMb()
    const first = Effect.runSync(engine.prepare<Message>({ session: "s", append: history }))
    const after = heapMb()
    if (first.events.some((e) => e.type === "context_cleared" || e.type === "compaction_completed")) {
      throw new Error("the benchmark session must fit its window without clearing or compaction")
    }
    let turn = 0
    const appendTurn = () =>
      Effect.runSync(
        engine.prepare<Message>({
          session: "s",
          append: [{ role: "user", content: `Turn ${turn++}: run the failing test again and report the line.` }]
        })
      ).tokens
    // The steady state: the JIT has compiled the per-turn path and the first prepare's garbage is collected.
    for (let i = 0; i < 30; i++) appendTurn()
    const [incremental] = h.compare({
      title: `${name} @ ${SIZE}: prepare after appending a turn (${label})`,
      size: SIZE,
      baseline: `append+prepare(${label})`,
      cases: [{
        name: `append+prepare(${label})`,
        fn: appendTurn
      }]
    })
    const few = new Harness(name, { ...h.options, samples: 3, warmupMs: 0 })
    let fresh = 0
    const [scratch] = few.compare({
      title: `${name} @ ${SIZE}: from-scratch prepare (${label}), 3 samples`,
      size: SIZE,
      baseline: `scratch-prepare(${label})`,
      cases: [{
        name: `scratch-prepare(${label})`,
        fn: () =>
          Effect.runSync(engineWith(counter).prepare<Message>({ session: `f${fresh++}`, append: history })).tokens
      }]
    })
    // CPU time (user + system) of the same two operations, interleaved: on a shared machine the wall-clock
    // medians above include time spent descheduled, which CPU time leaves out.
    const cpuTurns: Array<number> = []
    const cpuScratch: Array<number> = []
    for (let round = 0; round < (h.options.quick ? 2 : 3); round++) {
      let t = process.cpuUsage()
      for (let i = 0; i < CPU_TURNS; i++) appendTurn()
      let used = process.cpuUsage(t)
      cpuTurns.push((used.user + used.system) * 1000 / CPU_TURNS)
      t = process.cpuUsage()
      Effect.runSync(engineWith(counter).prepare<Message>({ session: `f${fresh++}`, append: history }))
      used = process.cpuUsage(t)
      cpuScratch.push((used.user + used.system) * 1000)
    }
    const cpuRatio = median(cpuTurns) / median(cpuScratch)
    const results = [incremental, scratch].filter((r): r is CaseResult => r !== undefined)
    h.results.push(...results.filter((r) => r === scratch))
    const ratio = (incremental?.medianNs ?? Number.NaN) / (scratch?.medianNs ?? Number.NaN)
    rows.push([
      label,
      formatNs(incremental?.medianNs ?? Number.NaN),
      formatNs(scratch?.medianNs ?? Number.NaN),
      `${(ratio * 100).toFixed(2)}%`,
      `${formatNs(median(cpuTurns))} / ${formatNs(median(cpuScratch))}: ${(cpuRatio * 100).toFixed(2)}%`,
      formatRatio(1 / ratio),
      `${(after - before).toFixed(1)} MB`
    ])
    verdicts.push(
      `${label}: append+prepare is ${(ratio * 100).toFixed(2)}% of a from-scratch prepare (target ≤ 5%): ${
        ratio <= 0.05 ? "MET" : "NOT MET"
      } (CPU time: ${(cpuRatio * 100).toFixed(2)}%, ${cpuRatio <= 0.05 ? "MET" : "NOT MET"})`
    )
  }
  printTable(`${name}: one prepare after an append vs from scratch, ${SIZE.toLocaleString("en-US")} messages`, [
    "counter",
    "append+prepare",
    "scratch prepare",
    "ratio",
    "CPU: append / scratch",
    "speed-up",
    "session heap (first prepare)"
  ], rows)
  h.log("")
  for (const v of verdicts) h.log(`Target — ${v}`, true)
}
