#!/usr/bin/env node
// The `ctxkit` bin. It must exist at install time (npm links workspace bins during `npm ci`), so it is plain
// JavaScript: it runs the built CLI when `dist` exists, and the TypeScript sources otherwise.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
if (existsSync(built)) {
  await import(built)
} else {
  const { spawnSync } = await import("node:child_process")
  const source = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
  const run = spawnSync(process.execPath, ["--conditions=@ctxkit/source", source, ...process.argv.slice(2)], {
    stdio: "inherit"
  })
  process.exitCode = run.status ?? 1
}
