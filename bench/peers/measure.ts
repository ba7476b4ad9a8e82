/**
 * A comparison for cases `Harness.compare` cannot time: asynchronous ones (LangChain's `trimMessages` returns a
 * promise) and slow ones (a fit with o200k over 100k messages takes seconds, so 21 samples of it do not fit in
 * a benchmark run). Same method as the harness — warm-up that calibrates the loop count, samples taken
 * round-robin so drift hits every case alike, a collected heap before every sample, medians, ratios to a
 * baseline, growth against the same case at the previous size — but each case may cap its own number of
 * samples and warm-up runs, and a promise returned by a case is awaited inside the timed region.
 *
 * The results go into `harness.results` (so they are in the benchmark's JSON and in `harness.growth`) and are
 * printed as the harness prints its own tables.
 */
import { runInNewContext } from "node:vm"
import { type CaseResult, guard, type Harness } from "../harness.ts"

/** One case: a name, the operation, and optional caps for slow operations. */
export interface TimedCase {
  readonly name: string
  /** The operation; a returned promise is awaited (its time counts), its value guarded. */
  readonly fn: () => unknown
  /** Timed samples for this case (default: the run's `samples`). */
  readonly samples?: number | undefined
  /**
   * Warm-up runs before sampling. Default: run for the harness's `warmupMs` (at least 3 runs). A slow case sets
   * 1, or 0 when the code is already warm from a smaller size; the loop count is then 1.
   */
  readonly warmupRuns?: number | undefined
}

// harness.ts has already enabled `--expose-gc`; the function is fetched the same way it does.
const collect = ((): (() => void) | undefined => {
  try {
    const gc: unknown = runInNewContext("gc")
    return typeof gc === "function" ? () => void gc() : undefined
  } catch {
    return undefined
  }
})()

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && "then" in value && typeof value.then === "function"

/** Wall and CPU time of one batch, in nanoseconds. */
interface Batch {
  readonly wallNs: number
  readonly cpuNs: number
}

/**
 * Runs `fn` `iterations` times, awaiting promises; returns the elapsed wall time and this process's CPU time
 * (user + system): on a machine shared with other jobs the CPU time leaves out the time spent descheduled.
 */
const timeBatch = async (fn: () => unknown, iterations: number): Promise<Batch> => {
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) {
    const value = fn()
    guard(isThenable(value) ? await value : value)
  }
  const wallNs = Number(process.hrtime.bigint() - start)
  const used = process.cpuUsage(cpu)
  return { wallNs, cpuNs: (used.user + used.system) * 1000 }
}

/** Warms `theCase` up and returns its loop count (operations per sample). */
const warmUp = async (theCase: TimedCase, h: Harness): Promise<number> => {
  const targetNs = h.options.minSampleMs * 1e6
  if (theCase.warmupRuns !== undefined) {
    let spent = 0
    for (let i = 0; i < theCase.warmupRuns; i++) spent += (await timeBatch(theCase.fn, 1)).wallNs
    if (theCase.warmupRuns === 0) return 1
    return Math.max(1, Math.ceil((targetNs * 1.1) / Math.max(spent / theCase.warmupRuns, 1)))
  }
  const warmupNs = h.options.warmupMs * 1e6
  let iterations = 1
  let spent = 0
  let calls = 0
  for (;;) {
    const elapsed = (await timeBatch(theCase.fn, iterations)).wallNs
    spent += elapsed
    calls += iterations
    const next = Math.max(1, Math.ceil((targetNs * 1.1) / Math.max(elapsed / iterations, 1)))
    if (spent >= warmupNs && calls >= 3 && elapsed >= targetNs * 0.5) return next
    iterations = Math.min(next, Math.max(iterations * 10, 1))
  }
}

/**
 * Measures `cases` on one input of `size` elements: warm-up per case, then samples round-robin until every case
 * has its own number of samples. Prints a table, records the results in `h.results`, and returns them.
 */
export const compareTimed = async (h: Harness, params: {
  readonly title?: string
  readonly size: number
  readonly baseline: string
  readonly cases: ReadonlyArray<TimedCase>
}): Promise<ReadonlyArray<CaseResult>> => {
  const { baseline, cases } = params
  if (!cases.some((c) => c.name === baseline)) throw new Error(`baseline "${baseline}" is not one of the cases`)
  const iterations: Array<number> = []
  for (const c of cases) {
    collect?.()
    iterations.push(await warmUp(c, h))
  }
  const wanted = cases.map((c) => Math.max(1, c.samples ?? h.options.samples))
  const perOp: Array<Array<number>> = cases.map(() => [])
  const cpuPerOp: Array<Array<number>> = cases.map(() => [])
  const rounds = Math.max(...wanted)
  for (let s = 0; s < rounds; s++) {
    for (let c = 0; c < cases.length; c++) {
      const theCase = cases[c]
      const times = perOp[c]
      const cpuTimes = cpuPerOp[c]
      if (theCase === undefined || times === undefined || cpuTimes === undefined || s >= (wanted[c] ?? 0)) continue
      const iters = iterations[c] ?? 1
      collect?.()
      const batch = await timeBatch(theCase.fn, iters)
      times.push(batch.wallNs / iters)
      cpuTimes.push(batch.cpuNs / iters)
    }
  }
  return h.record({ ...params, names: cases.map((c) => c.name), perOp, cpuPerOp, iterations })
}
