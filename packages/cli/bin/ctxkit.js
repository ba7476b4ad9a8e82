#!/usr/bin/env node
// The `ctxkit` bin. It must exist at install time (npm links workspace bins during `npm ci`), so it is plain
// JavaScript: it runs the built CLI when `dist` exists, and the TypeScript sources otherwise (a fresh clone before
// `npm run build`). For the sources, the `@ctxkit/source` export condition is added in this same process by a
// module resolve hook (Node >= 22.15), so that no second Node process has to start.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
if (existsSync(built) && process.env["CTXKIT_FROM_SOURCE"] !== "1") {
  await import(built)
} else {
  const { registerHooks } = await import("node:module")
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, "@ctxkit/source"] })
  })
  await import(new URL("../src/bin.ts", import.meta.url).href)
}
