import { defineConfig } from "vitest/config"

export default defineConfig({
  // `@ctxkit/*` imports resolve to the TypeScript sources, so no build is needed before a test run.
  resolve: { conditions: ["@ctxkit/source"] },
  ssr: { resolve: { conditions: ["@ctxkit/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    setupFiles: ["./vitest.setup.ts"],
    reporters: ["default", "./vitest.summary.ts"],
    sequence: { concurrent: true },
    testTimeout: 60_000
  }
})
