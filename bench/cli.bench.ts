/**
 * `npm run bench -- cli`: `ctxkit fit` on the largest corpus conversation, from process start to exit, against
 * what it cannot avoid: a bare `node` start, and a `node` process that does only the library call (import the
 * packages, read and parse the file, count, fit, print the same JSON). Every case is a child process; samples are
 * taken round-robin in one run, so the ratios compare like with like on a shared machine. Wall times and the
 * children's CPU times (user + system) are both recorded.
 *
 * Cases:
 * - `node -e 0`: the floor of any Node program;
 * - `library (built)` / `library (sources)`: the library call as a script, on `dist` or on the TypeScript sources
 *   (`--conditions=@ctxkit/source`, as after `npm ci` before a build);
 * - `ctxkit fit (built)` / `ctxkit fit (sources)`: the real bin, `packages/cli/bin/ctxkit.js` (the sources with
 *   `CTXKIT_FROM_SOURCE=1`).
 * Also printed: the library call alone, in this process (warm), and the target of the issue: `ctxkit fit` within
 * 2× of a bare node start plus the library call.
 */
import { approximateCounter, conversationCost, makeCostCache } from "@ctxkit/budget"
import { detectFormat } from "@ctxkit/core"
import { strategies } from "@ctxkit/fit"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { loadCorpus } from "../tests/corpus.ts"
import type { Harness } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "cli"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = path.join(root, "packages/cli/bin/ctxkit.js")

/** The library call the CLI makes for `fit --budget B --json`, as a standalone script. */
const script = (file: string, budget: number): string => `
import { approximateCounter, conversationCost, makeCostCache } from "@ctxkit/budget"
import { detectFormat } from "@ctxkit/core"
import { strategies } from "@ctxkit/fit"
import { readFileSync } from "node:fs"
const parsed = JSON.parse(readFileSync(${JSON.stringify(file)}, "utf8"))
const messages = Array.isArray(parsed) ? parsed : parsed.messages
const format = detectFormat(messages)
const cache = makeCostCache()
const before = conversationCost(messages, { counter: approximateCounter, format, cache })
const result = strategies.truncate.fit(messages, approximateCounter, ${budget}, { format, cache, countExcluded: true })
const gone = new Set(result.excluded.map((e) => e.index))
process.stdout.write(JSON.stringify({ fits: result.fits, budget: result.budget, tokensBefore: before.total,
  tokens: result.tokens, kept: messages.flatMap((_, i) => gone.has(i) ? [] : [i]),
  excluded: result.excluded.map((e) => ({ index: e.index, reason: e.reason, tokens: e.tokens })),
  truncated: result.truncated.map((t) => t.index), inserted: result.inserted.length, messages: result.kept }, null, 2) + "\\n")
`

interface Spawned {
  readonly wallMs: number
  readonly cpuMs: number
}

/** One child process: wall time from spawn to exit, and its CPU time (user + system, from /proc). */
const spawnOnce = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cwd: string): Spawned => {
  // `process.cpuUsage` cannot see a child; the waited-for children's accounting can.
  const childrenBefore = childCpu()
  const start = performance.now()
  const run = spawnSync(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 1 << 28
  })
  const wallMs = performance.now() - start
  if (run.status !== 0 && run.status !== 1) {
    throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr.toString().slice(0, 400)}`)
  }
  return { wallMs, cpuMs: childCpu() - childrenBefore }
}

/** CPU milliseconds (user + system) of every waited-for child of this process so far, from /proc. */
const childCpu = (): number => {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? []
    // Fields 16 and 17 of stat (cutime, cstime), counted from the state field (3) after the name.
    const ticks = Number(fields[13]) + Number(fields[14])
    return (ticks * 1000) / 100
  } catch {
    return Number.NaN
  }
}

export const run = (harness: Harness): void => {
  const corpus = loadCorpus()
  if (corpus.length === 0) {
    harness.log("The corpus is absent (set CTXKIT_CORPUS to the normalized folder): nothing to measure.", true)
    return
  }
  const largest = corpus.reduce((a, b) => (statSync(b.file).size > statSync(a.file).size ? b : a))
  const messages = largest.messages
  const format = detectFormat(messages)
  const total = conversationCost(messages, { counter: approximateCounter, format }).total
  const budget = Math.floor(total / 2)
  harness.log(
    `${largest.id}: ${messages.length} messages, ${(statSync(largest.file).size / 1024).toFixed(0)} KiB, ` +
      `${total} tokens (approximate); ctxkit fit --budget ${budget} --json`,
    true
  )

  // The library call alone, warm, in this process: what the CLI adds everything else to.
  const callTimes: Array<number> = []
  for (let k = 0; k < 20; k++) {
    const start = performance.now()
    const parsed = JSON.parse(readFileSync(largest.file, "utf8")) as { messages: ReadonlyArray<unknown> }
    const cache = makeCostCache()
    conversationCost(parsed.messages, { counter: approximateCounter, format, cache })
    const result = strategies.truncate.fit(parsed.messages, approximateCounter, budget, {
      format,
      cache,
      countExcluded: true
    })
    JSON.stringify(result.kept)
    callTimes.push(performance.now() - start)
  }
  callTimes.sort((a, b) => a - b)
  const callMs = callTimes[Math.floor(callTimes.length / 2)] ?? Number.NaN

  const built = existsSync(path.join(root, "packages/cli/dist/bin.js")) &&
    existsSync(path.join(root, "packages/fit/dist/index.js"))
  const fitArgs = ["fit", largest.file, "--budget", String(budget), "--json"]
  const cases: Array<{ readonly name: string; readonly args: ReadonlyArray<string>; readonly env: NodeJS.ProcessEnv }> =
    [
      { name: "node -e 0", args: ["-e", "0"], env: {} },
      {
        name: "library (sources)",
        args: ["--conditions=@ctxkit/source", "--input-type=module", "-e", script(largest.file, budget)],
        env: {}
      },
      { name: "ctxkit fit (sources)", args: [bin, ...fitArgs], env: { CTXKIT_FROM_SOURCE: "1" } },
      ...(built
        ? [
          { name: "library (built)", args: ["--input-type=module", "-e", script(largest.file, budget)], env: {} },
          { name: "ctxkit fit (built)", args: [bin, ...fitArgs], env: {} }
        ]
        : [])
    ]
  if (!built) harness.log("dist/ is not built (npx tsc -b): only the sources are measured.", true)

  const samples = Math.max(5, Math.min(harness.options.samples, 15))
  const wall: Array<Array<number>> = cases.map(() => [])
  const cpu: Array<Array<number>> = cases.map(() => [])
  // Warm the file cache and each case once, then sample round-robin.
  for (const c of cases) spawnOnce(c.args, c.env, path.join(root, "packages/cli"))
  for (let s = 0; s < samples; s++) {
    cases.forEach((c, i) => {
      const one = spawnOnce(c.args, c.env, path.join(root, "packages/cli"))
      wall[i]?.push(one.wallMs)
      cpu[i]?.push(one.cpuMs)
    })
  }
  harness.record({
    title: "process start to exit (per run)",
    size: messages.length,
    baseline: "node -e 0",
    names: cases.map((c) => c.name),
    perOp: wall.map((times) => times.map((ms) => ms * 1e6)),
    cpuPerOp: cpu.map((times) => times.map((ms) => ms * 1e6)),
    iterations: cases.map(() => 1)
  })

  const med = (values: ReadonlyArray<number>): number => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
  }
  const medianOf = (label: string, of: ReadonlyArray<ReadonlyArray<number>>): number =>
    med(of[cases.findIndex((c) => c.name === label)] ?? [])
  const node = medianOf("node -e 0", wall)
  harness.log("", true)
  harness.log(`library call alone, warm, in-process: ${callMs.toFixed(1)} ms`, true)
  for (const variant of built ? ["built", "sources"] : ["sources"]) {
    const cli = medianOf(`ctxkit fit (${variant})`, wall)
    const library = medianOf(`library (${variant})`, wall)
    const cliCpu = medianOf(`ctxkit fit (${variant})`, cpu)
    const libraryCpu = medianOf(`library (${variant})`, cpu)
    harness.log(
      `${variant}: ctxkit fit ${cli.toFixed(0)} ms wall (${cliCpu.toFixed(0)} ms CPU); node + the library call as a ` +
        `script ${library.toFixed(0)} ms (${libraryCpu.toFixed(0)} ms CPU): ${(cli / library).toFixed(2)}× wall, ` +
        `${(cliCpu / libraryCpu).toFixed(2)}× CPU; bare node start + the warm call ${(node + callMs).toFixed(0)} ms: ` +
        `${(cli / (node + callMs)).toFixed(2)}×`,
      true
    )
  }
}
