/**
 * Runs the real `ctxkit` bin (`packages/cli/bin/ctxkit.js`) in a child process, as a user's shell does.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"

/** The bin under test. */
export const BIN = path.resolve(import.meta.dirname, "../bin/ctxkit.js")

/** What a run printed and how it exited. */
export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `ctxkit ...args`; `stdin` is piped in when given, else stdin is /dev/null (never a terminal). */
export const ctxkit = (
  args: ReadonlyArray<string>,
  options: { readonly stdin?: string | Uint8Array; readonly cwd?: string; readonly env?: NodeJS.ProcessEnv } = {}
): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
    })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }))
    if (options.stdin !== undefined) {
      child.stdin?.end(options.stdin)
    }
  })

/** The one JSON document of a `--json` run's stdout. */
export const jsonOf = (run: CliRun): unknown => JSON.parse(run.stdout)

/** The timeout of a test that starts the bin: generous, since a loaded machine slows every process start. */
export const SLOW_TEST_TIMEOUT = 10 * 60_000
