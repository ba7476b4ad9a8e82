/**
 * Runs the example harness's main module in a child process, as `npm run harness -- …args` does: its exit code,
 * its stdout lines and its stderr. Shared by the offline tests and the real-server suite.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"

export const ROOT = path.resolve(import.meta.dirname, "..")

export const runHarness = (args: ReadonlyArray<string>, timeout = 120_000) =>
  new Promise<{ readonly code: number; readonly lines: ReadonlyArray<string>; readonly stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        ["--conditions=@ctxkit/source", "examples/harness/main.ts", ...args],
        { cwd: ROOT, timeout },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
          resolve({ code, lines: stdout.replace(/\n$/, "").split("\n"), stderr })
        }
      )
    }
  )
