/**
 * `npm run bench [-- [--quick] [--samples=N] [name…]]`: runs every `bench/*.bench.ts` module, or only those
 * named (`npm run bench -- toolGroups`). A module exports `run(harness)` (sync or async) and optionally
 * `name` (default: the file name without `.bench.ts`). Each benchmark prints its tables and writes
 * `bench/results/<name>-<timestamp>.json` and its entry in `bench/results/latest.json`.
 */
import { readdirSync } from "node:fs"
import { cpus } from "node:os"
import { fileURLToPath } from "node:url"
import { defaultOptions, gcBetweenSamples, Harness, type HarnessOptions, sinkChecksum } from "./harness.ts"

const usage = "usage: npm run bench -- [--quick] [--samples=N] [benchmark…]"

const parseArgs = (argv: ReadonlyArray<string>): { readonly options: HarnessOptions; readonly only: Set<string> } => {
  const quick = argv.includes("--quick")
  let options = defaultOptions(quick)
  const only = new Set<string>()
  for (const arg of argv) {
    if (arg === "--quick") continue
    const samples = /^--samples=(\d+)$/.exec(arg)?.[1]
    if (samples !== undefined && Number(samples) > 0) {
      options = { ...options, samples: Number(samples) }
      continue
    }
    if (arg.startsWith("-")) {
      process.stderr.write(`unknown option ${arg}\n${usage}\n`)
      process.exit(2)
    }
    only.add(arg.replace(/\.bench(\.ts)?$/, ""))
  }
  return { options, only }
}

type RunFn = (harness: Harness) => unknown

const loadModule = async (url: string): Promise<{ readonly run: RunFn; readonly name: string | undefined }> => {
  const mod: unknown = await import(url)
  if (typeof mod !== "object" || mod === null || !("run" in mod) || typeof mod.run !== "function") {
    throw new Error(`${url} does not export run(harness)`)
  }
  const run = mod.run as RunFn
  const name = "name" in mod && typeof mod.name === "string" ? mod.name : undefined
  return { run, name }
}

const main = async (): Promise<void> => {
  const { only, options } = parseArgs(process.argv.slice(2))
  const dir = fileURLToPath(new URL(".", import.meta.url))
  const files = readdirSync(dir).filter((f) => f.endsWith(".bench.ts")).sort()
  const available = files.map((f) => f.slice(0, -".bench.ts".length))
  const unknown = [...only].filter((n) => !available.includes(n))
  if (unknown.length > 0) {
    process.stderr.write(`no benchmark named ${unknown.join(", ")}; available: ${available.join(", ")}\n${usage}\n`)
    process.exit(2)
  }
  const selected = files.filter((_, i) => only.size === 0 || only.has(available[i] ?? ""))

  process.stdout.write(
    `ctxkit bench — node ${process.version}, ${cpus()[0]?.model.trim() ?? "unknown cpu"} ×${cpus().length}; ` +
      `${options.samples} samples/case, ≥${options.minSampleMs} ms/sample, ${options.warmupMs} ms warm-up` +
      `${options.quick ? " (--quick)" : ""}; GC between samples: ${gcBetweenSamples() ? "yes" : "no"}\n`
  )
  const started = performance.now()
  let failed = 0
  for (const file of selected) {
    const fallback = file.slice(0, -".bench.ts".length)
    const t0 = performance.now()
    try {
      const mod = await loadModule(new URL(file, import.meta.url).href)
      const harness = new Harness(mod.name ?? fallback, options)
      process.stdout.write(`\n=== ${harness.benchmark} ===\n`)
      await mod.run(harness)
      const written = harness.save()
      process.stdout.write(
        `\n${harness.benchmark}: ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote ${written}\n`
      )
    } catch (error) {
      failed++
      process.stderr.write(
        `\n${fallback} FAILED: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`
      )
    }
  }
  process.stdout.write(
    `\nBench: ${selected.length - failed} ran, ${failed} failed in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s` +
      ` (checksum ${sinkChecksum() % 1e9})\n`
  )
  if (failed > 0) process.exitCode = 1
}

await main()
