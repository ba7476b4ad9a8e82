/**
 * Child processes for the SQLite store tests: `SqliteEngineChild.ts` bundled once into one ES module (loading
 * the engine's sources file by file costs a child about a second of CPU; the bundle about a quarter), and
 * helpers to start it, read its lines and kill it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "vite"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** Bundles the child into a fresh folder (readable by every user: a test runs it as another one) and names it. */
export const bundleChild = async (): Promise<{ readonly script: string; readonly remove: () => void }> => {
  const folder = mkdtempSync(join(tmpdir(), "ctxkit-child-"))
  chmodSync(folder, 0o755)
  const conditions = ["@ctxkit/source"]
  await build({
    configFile: false,
    logLevel: "silent",
    root,
    resolve: { conditions },
    ssr: { noExternal: true, resolve: { conditions, externalConditions: conditions } },
    build: {
      ssr: fileURLToPath(new URL("./SqliteEngineChild.ts", import.meta.url)),
      outDir: folder,
      emptyOutDir: false,
      minify: false,
      target: "node22",
      rolldownOptions: { output: { format: "esm", entryFileNames: "child.mjs" } }
    }
  })
  return { script: join(folder, "child.mjs"), remove: () => rmSync(folder, { recursive: true, force: true }) }
}

/** A running child: its stdout lines so far, and its end. */
export interface Running {
  readonly process: ChildProcess
  readonly lines: Array<string>
  /** Resolves with the first line that starts with `prefix`, or passes `test` (rejects when the child ends first). */
  readonly waitFor: (prefix: string, test?: (line: string) => boolean) => Promise<string>
  /** Resolves when the child has exited, with its code (null when killed) and its stderr. */
  readonly exited: Promise<{ readonly code: number | null; readonly stderr: string }>
}

export const start = (
  script: string,
  args: ReadonlyArray<string>,
  options: { readonly uid?: number | undefined } = {}
): Running => {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    // Each child reuses the code the first one compiled (a tenth or so of its start).
    env: { ...process.env, NODE_COMPILE_CACHE: join(dirname(script), "compile-cache") },
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid })
  })
  const lines: Array<string> = []
  const waiters: Array<
    { prefix: string; test: (line: string) => boolean; resolve: (line: string) => void; reject: (error: Error) => void }
  > = []
  let buffered = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    const parts = buffered.split("\n")
    buffered = parts.pop() ?? ""
    for (const line of parts) {
      lines.push(line)
      for (const waiter of waiters.splice(0)) {
        if (line.startsWith(waiter.prefix) && waiter.test(line)) waiter.resolve(line)
        else waiters.push(waiter)
      }
    }
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    // A child that cannot start at all (EACCES, ENOENT) ends here with its error, never as an uncaught exception.
    child.on("error", (error) => {
      stderr += String(error)
      for (const waiter of waiters.splice(0)) waiter.reject(error)
      resolve({ code: -1, stderr })
    })
    child.on("close", (code) => {
      if (buffered !== "") lines.push(buffered)
      for (const waiter of waiters.splice(0)) {
        waiter.reject(new Error(`the child ended (code ${code}) before printing "${waiter.prefix}": ${stderr}`))
      }
      resolve({ code, stderr })
    })
  })
  const waitFor = (prefix: string, test: (line: string) => boolean = () => true) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => line.startsWith(prefix) && test(line))
      if (seen !== undefined) resolve(seen)
      else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`the child already ended`))
      else waiters.push({ prefix, test, resolve, reject })
    })
  return { process: child, lines, waitFor, exited }
}

/** Runs a child to its end and returns its lines; rejects when it fails. */
export const run = async (
  script: string,
  args: ReadonlyArray<string>,
  options: { readonly uid?: number | undefined } = {}
) => {
  const child = start(script, args, options)
  const end = await child.exited
  if (end.code !== 0) throw new Error(`the child failed (code ${end.code}): ${end.stderr}`)
  return child.lines
}
