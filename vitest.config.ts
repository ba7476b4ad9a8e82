import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  // `@ctxkit/*` imports resolve to the TypeScript sources, so no build is needed before a test run.
  resolve: { conditions: ["@ctxkit/source"] },
  ssr: { resolve: { conditions: ["@ctxkit/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    // The real llama-server suite is opt-in: `npm run test:servers` (vitest.servers.config.ts).
    exclude: [...configDefaults.exclude, "tests/servers/**"],
    setupFiles: ["./vitest.setup.ts"],
    reporters: ["default", "./vitest.summary.ts"],
    sequence: { concurrent: true },
    testTimeout: 60_000
  }
})
