/**
 * A tiny, dependency-free measurement library for `npm run bench`.
 *
 * - {@link Harness.compare} measures several cases on the same input in one run, interleaving their samples
 *   (round-robin) so that drift (thermal, other tenants of the machine, GC state) hits every case alike, and
 *   reports each case's median and min per-op time and its ratio to a baseline case.
 * - Each sample loops the case enough times to last at least `minSampleMs` (timed with
 *   `process.hrtime.bigint()`), after a warm-up that also calibrates the loop count.
 * - {@link Harness.growth} turns the cases measured at several sizes into per-element times and growth factors.
 * - {@link guard} keeps results alive so the JIT cannot drop the work being measured.
 * - {@link Harness.save} writes `bench/results/<benchmark>-<timestamp>.json` and updates `bench/results/latest.json`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

// ---------------------------------------------------------------------------------------------------------------
// Dead-code-elimination guard

const SLOTS = 64
const slots: Array<unknown> = Array.from({ length: SLOTS }, () => undefined)
let slot = 0
let checksum = 0

/**
 * Keeps `value` observable: numbers and string lengths are added to a checksum, and the value itself is
 * stored in a ring of slots that outlives the measurement, so the work producing it cannot be eliminated.
 * Returns `value`.
 */
export const guard = <T>(value: T): T => {
  if (typeof value === "number") checksum += value
  else if (typeof value === "string") checksum += value.length
  slots[slot] = value
  slot = (slot + 1) % SLOTS
  return value
}

/** The checksum of every guarded number (printed once per run, so it is observably used). */
export const sinkChecksum = (): number => checksum

// ---------------------------------------------------------------------------------------------------------------
// Optional explicit GC between samples (each sample then starts from a similar heap)

const loadGc = (): (() => void) | undefined => {
  try {
    setFlagsFromString("--expose-gc")
    const gc: unknown = runInNewContext("gc")
    if (typeof gc !== "function") return undefined
    return () => {
      gc()
    }
  } catch {
    return undefined
  }
}
const collect = loadGc()

// ---------------------------------------------------------------------------------------------------------------
// Model

/** Run options, shared by every benchmark of one `npm run bench`. */
export interface HarnessOptions {
  /** Timed samples per case. */
  readonly samples: number
  /** Warm-up time per case, before sampling (also calibrates the loop count). */
  readonly warmupMs: number
  /** Minimum duration of one sample; the case is looped until a sample lasts at least this long. */
  readonly minSampleMs: number
  /** `--quick`: fewer samples and a shorter warm-up. */
  readonly quick: boolean
}

/** Defaults for a full run and for `--quick`. */
export const defaultOptions = (quick: boolean): HarnessOptions =>
  quick
    ? { samples: 5, warmupMs: 100, minSampleMs: 20, quick }
    : { samples: 21, warmupMs: 250, minSampleMs: 25, quick }

/** One case of a comparison: a name and the operation to time (its result is guarded). */
export interface Case {
  readonly name: string
  readonly fn: () => unknown
}

/** The measurement of one case at one size. */
export interface CaseResult {
  readonly name: string
  /** Input size (messages, elements…), used by {@link Harness.growth}. */
  readonly size: number
  /** Median per-op time over the samples, in nanoseconds. */
  readonly medianNs: number
  /** Fastest sample's per-op time, in nanoseconds. */
  readonly minNs: number
  /** Slowest sample's per-op time, in nanoseconds. */
  readonly maxNs: number
  /** Number of timed samples. */
  readonly samples: number
  /** Operations per sample. */
  readonly iterations: number
  /** `medianNs / size`. */
  readonly perElementNs: number
  /** The baseline case of the comparison this result belongs to. */
  readonly baseline: string
  /** `medianNs / baseline's medianNs` (1 for the baseline itself). */
  readonly ratioToBaseline: number
  /**
   * Median per-op CPU time of this process (user + system, `process.cpuUsage`), in nanoseconds, when the
   * comparison measured it: on a shared machine, time spent descheduled is not in it.
   */
  readonly cpuMedianNs?: number
  /** `cpuMedianNs / baseline's cpuMedianNs`. */
  readonly cpuRatioToBaseline?: number
  /** `medianNs / other's medianNs` for every case of the same comparison. */
  readonly ratios: Readonly<Record<string, number>>
  /** `medianNs / medianNs of the same case at the previous (smaller) size`, when there is one. */
  readonly growth?: number
  /** Size factor that `growth` corresponds to. */
  readonly sizeFactor?: number
}

/** One step of a growth series. */
export interface GrowthStep {
  readonly size: number
  readonly medianNs: number
  readonly perElementNs: number
  /** `undefined` for the smallest size. */
  readonly growth: number | undefined
  readonly sizeFactor: number | undefined
}

/** What a benchmark's JSON file holds. */
export interface BenchmarkReport {
  readonly benchmark: string
  readonly node: string
  readonly cpu: string
  readonly cpus: number
  readonly date: string
  readonly quick: boolean
  readonly options: HarnessOptions
  readonly cases: ReadonlyArray<CaseResult>
  readonly notes: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------------------------
// Timing

const nowNs = (): bigint => process.hrtime.bigint()

/** Runs `fn` `iterations` times; returns the elapsed nanoseconds. */
const timeBatch = (fn: () => unknown, iterations: number): number => {
  const start = nowNs()
  for (let i = 0; i < iterations; i++) guard(fn())
  return Number(nowNs() - start)
}

/** Warms `fn` up for about `warmupMs` and returns the loop count that makes a sample last `minSampleMs`. */
const warmUp = (fn: () => unknown, options: HarnessOptions): number => {
  const targetNs = options.minSampleMs * 1e6
  const warmupNs = options.warmupMs * 1e6
  let iterations = 1
  let spent = 0
  let calls = 0
  for (;;) {
    const elapsed = timeBatch(fn, iterations)
    spent += elapsed
    calls += iterations
    const perOp = Math.max(elapsed / iterations, 1)
    const next = Math.max(1, Math.ceil((targetNs * 1.1) / perOp))
    if (spent >= warmupNs && calls >= 3 && elapsed >= targetNs * 0.5) return Math.max(next, 1)
    // Grow quickly while calibrating, but never run one batch much longer than a sample.
    iterations = Math.min(next, Math.max(iterations * 10, 1))
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

/** `123 ns`, `12.3 µs`, `1.23 ms`, `1.23 s`. */
export const formatNs = (ns: number): string => {
  if (!Number.isFinite(ns)) return String(ns)
  if (ns < 1e3) return `${ns.toFixed(ns < 10 ? 2 : ns < 100 ? 1 : 0)} ns`
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`
  return `${(ns / 1e9).toPrecision(3)} s`
}

/** `1.23×`. */
export const formatRatio = (ratio: number | undefined): string =>
  ratio === undefined || !Number.isFinite(ratio) ? "—" : `${ratio.toFixed(2)}×`

/** `1,000`, `100,000`. */
export const formatSize = (size: number): string => size.toLocaleString("en-US")

/** How a case's growth compares with linear time and with its floor's growth, measured in the same run. */
export interface GrowthCheck {
  /** Every step grew by at most `tolerance` × the size factor. */
  readonly linear: boolean
  /** Every step grew by at most `tolerance` × the floor's growth at the same size. */
  readonly likeFloor: boolean
  /** The case's growth per step, `12.7, 11.9`. */
  readonly shown: string
  /** The floor's growth per step. */
  readonly floorShown: string
}

const showGrowth = (series: ReadonlyArray<GrowthStep>): string =>
  series.filter((s) => s.growth !== undefined).map((s) => (s.growth ?? 0).toFixed(1)).join(", ")

/** Compares a growth series with linear time and with the floor's series from the same run. */
export const growthCheck = (
  steps: ReadonlyArray<GrowthStep>,
  floorSteps: ReadonlyArray<GrowthStep>,
  tolerance: number
): GrowthCheck => {
  const grown = steps.filter((s) => s.growth !== undefined)
  return {
    linear: grown.every((s) => (s.growth ?? Infinity) <= (s.sizeFactor ?? 0) * tolerance),
    likeFloor: grown.every((s) => {
      const floorGrowth = floorSteps.find((f) => f.size === s.size)?.growth
      return floorGrowth !== undefined && (s.growth ?? Infinity) <= floorGrowth * tolerance
    }),
    shown: showGrowth(steps),
    floorShown: showGrowth(floorSteps)
  }
}

/** Prints a table with a title, right-aligning every column but the first. */
export const printTable = (
  title: string,
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>
): void => {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? "").length)))
  const line = (cells: ReadonlyArray<string>): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  ")
  const out = [`\n${title}`, line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)]
  process.stdout.write(out.join("\n") + "\n")
}

// ---------------------------------------------------------------------------------------------------------------
// Harness

const resultsDir = fileURLToPath(new URL("./results/", import.meta.url))

const cpuModel = (): string => {
  const list = cpus()
  return list[0]?.model.trim() ?? "unknown"
}

/** Per-benchmark measurement state: collects results, prints tables, writes JSON. */
export class Harness {
  readonly benchmark: string
  readonly options: HarnessOptions
  readonly results: Array<CaseResult> = []
  readonly notes: Array<string> = []

  constructor(benchmark: string, options: HarnessOptions) {
    this.benchmark = benchmark
    this.options = options
  }

  /** Prints a line (and keeps it in the JSON's `notes` when `keep` is true). */
  log(line: string, keep = false): void {
    process.stdout.write(line + "\n")
    if (keep) this.notes.push(line)
  }

  /**
   * Measures `cases` on one input of `size` elements, in the same run: each case is warmed up, then the
   * samples of all cases are taken round-robin. Ratios are relative to the case named `baseline`.
   * Prints a table and records the results.
   */
  compare(params: {
    readonly title?: string
    readonly size: number
    readonly baseline: string
    readonly cases: ReadonlyArray<Case>
  }): ReadonlyArray<CaseResult> {
    const { baseline, cases } = params
    if (!cases.some((c) => c.name === baseline)) throw new Error(`baseline "${baseline}" is not one of the cases`)
    const iterations = cases.map((c) => {
      collect?.()
      return warmUp(c.fn, this.options)
    })
    const perOp: Array<Array<number>> = cases.map(() => [])
    for (let s = 0; s < this.options.samples; s++) {
      for (let c = 0; c < cases.length; c++) {
        const iters = iterations[c] ?? 1
        const theCase = cases[c]
        if (theCase === undefined) continue
        collect?.()
        perOp[c]?.push(timeBatch(theCase.fn, iters) / iters)
      }
    }
    return this.record({ ...params, names: cases.map((c) => c.name), perOp, iterations })
  }

  /**
   * Turns per-operation sample times into results (medians, ratios to every other case, growth from the
   * previous size), records them in {@link results}, prints the table and returns them. `compare` uses it; so
   * can a benchmark that takes its samples its own way (asynchronous cases, per-case sample counts).
   */
  record(params: {
    readonly title?: string | undefined
    readonly size: number
    readonly baseline: string
    readonly names: ReadonlyArray<string>
    readonly perOp: ReadonlyArray<ReadonlyArray<number>>
    /** Per-op CPU times of the same samples, when measured. */
    readonly cpuPerOp?: ReadonlyArray<ReadonlyArray<number>> | undefined
    readonly iterations: ReadonlyArray<number>
  }): ReadonlyArray<CaseResult> {
    const { baseline, cpuPerOp, iterations, names, perOp, size } = params
    const medians = perOp.map(median)
    const cpuMedians = cpuPerOp?.map(median)
    const cpuBaseline = cpuMedians?.[names.indexOf(baseline)] ?? Number.NaN
    const medianOf = (name: string): number => medians[names.indexOf(name)] ?? Number.NaN
    const results = names.map((name, i): CaseResult => {
      const times = perOp[i] ?? []
      const med = medians[i] ?? Number.NaN
      const ratios: Record<string, number> = {}
      for (const other of names) if (other !== name) ratios[other] = med / medianOf(other)
      const previous = this.previousSize(name, size)
      const growthFields = previous === undefined
        ? {}
        : { growth: med / previous.medianNs, sizeFactor: size / previous.size }
      return {
        name,
        size,
        medianNs: med,
        minNs: Math.min(...times),
        maxNs: Math.max(...times),
        samples: times.length,
        iterations: iterations[i] ?? 1,
        perElementNs: med / size,
        baseline,
        ratioToBaseline: med / medianOf(baseline),
        ratios,
        ...(cpuMedians === undefined ? {} : {
          cpuMedianNs: cpuMedians[i] ?? Number.NaN,
          cpuRatioToBaseline: (cpuMedians[i] ?? Number.NaN) / cpuBaseline
        }),
        ...growthFields
      }
    })
    this.results.push(...results)
    printTable(
      params.title ?? `${this.benchmark} @ ${formatSize(size)} (baseline: ${baseline})`,
      [
        "case",
        "median",
        "min",
        "max",
        "per element",
        "samples×iters",
        `vs ${baseline}`,
        ...(cpuMedians === undefined ? [] : ["CPU median", "CPU vs baseline"])
      ],
      results.map((r) => [
        r.name,
        formatNs(r.medianNs),
        formatNs(r.minNs),
        formatNs(r.maxNs),
        formatNs(r.perElementNs),
        `${r.samples}×${r.iterations}`,
        formatRatio(r.ratioToBaseline),
        ...(cpuMedians === undefined ? [] : [
          formatNs(r.cpuMedianNs ?? Number.NaN),
          formatRatio(r.cpuRatioToBaseline)
        ])
      ])
    )
    return results
  }

  private previousSize(name: string, size: number): CaseResult | undefined {
    let best: CaseResult | undefined
    for (const r of this.results) {
      if (r.name !== name || r.size >= size) continue
      if (best === undefined || r.size > best.size) best = r
    }
    return best
  }

  /** The growth series of one case over every size it was measured at, smallest first. */
  growth(name: string): ReadonlyArray<GrowthStep> {
    const series = this.results.filter((r) => r.name === name).sort((a, b) => a.size - b.size)
    return series.map((r, i): GrowthStep => {
      const prev = i > 0 ? series[i - 1] : undefined
      return {
        size: r.size,
        medianNs: r.medianNs,
        perElementNs: r.perElementNs,
        growth: prev === undefined ? undefined : r.medianNs / prev.medianNs,
        sizeFactor: prev === undefined ? undefined : r.size / prev.size
      }
    })
  }

  /** Prints the growth of each named case: per-element time at each size and the factor from size to size. */
  printGrowth(names: ReadonlyArray<string>): void {
    const rows: Array<Array<string>> = []
    for (const name of names) {
      for (const step of this.growth(name)) {
        rows.push([
          name,
          formatSize(step.size),
          formatNs(step.medianNs),
          formatNs(step.perElementNs),
          step.growth === undefined ? "—" : `${step.growth.toFixed(1)} (size ×${step.sizeFactor ?? "?"})`
        ])
      }
    }
    printTable(`${this.benchmark}: growth (≈ size factor when linear)`, [
      "case",
      "size",
      "median",
      "per element",
      "growth"
    ], rows)
  }

  /** The report written to JSON. */
  report(): BenchmarkReport {
    return {
      benchmark: this.benchmark,
      node: process.version,
      cpu: cpuModel(),
      cpus: cpus().length,
      date: new Date().toISOString(),
      quick: this.options.quick,
      options: this.options,
      cases: this.results,
      notes: this.notes
    }
  }

  /**
   * Writes `bench/results/<benchmark>-<timestamp>.json` (the timestamp is ISO 8601 with `:` and `.` replaced
   * by `-`, so the name is valid on every file system) and updates this benchmark's entry in
   * `bench/results/latest.json` (an object keyed by benchmark name). Returns the path written.
   */
  save(): string {
    const report = this.report()
    mkdirSync(resultsDir, { recursive: true })
    const stamp = report.date.replace(/[:.]/g, "-")
    const file = `${resultsDir}${this.benchmark}-${stamp}.json`
    writeFileSync(file, JSON.stringify(report, null, 2) + "\n")
    const latestFile = `${resultsDir}latest.json`
    let latest: Record<string, unknown> = {}
    try {
      const parsed: unknown = JSON.parse(readFileSync(latestFile, "utf8"))
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        latest = { ...(parsed as Record<string, unknown>) }
      }
    } catch {
      // No previous latest.json (or an unreadable one): start afresh.
    }
    latest[this.benchmark] = report
    writeFileSync(latestFile, JSON.stringify(latest, null, 2) + "\n")
    return file
  }
}

/** Whether samples start from a collected heap (the `--expose-gc` trick worked). */
export const gcBetweenSamples = (): boolean => collect !== undefined
