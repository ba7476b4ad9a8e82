import { defineConfig } from "vitest/config"

// `npm run test:servers`: the opt-in suite against a real llama-server (built once and cached, see
// scripts/servers/build.ts). The root vitest.config.ts excludes tests/servers, so `npm test` never runs it.
export default defineConfig({
  resolve: { conditions: ["@ctxkit/source"] },
  ssr: { resolve: { conditions: ["@ctxkit/source"] } },
  test: {
    include: ["tests/servers/*.test.ts"],
    reporters: ["default", "./scripts/servers/summaryReporter.ts"],
    // One server with one slot: the checks run one after another.
    sequence: { concurrent: false },
    fileParallelism: false,
    testTimeout: 300_000,
    // The first run compiles llama-server (about 10 minutes on 2 idle cores, longer on a busy machine).
    hookTimeout: 120 * 60_000
  }
})
