import type { Reporter, TestModule } from "vitest/node"

/**
 * The closing line of `npm run test:servers`: exactly `N passed, N failed` (a test that did not run, because
 * the server could not be built or started, counts as failed: this suite is never silently skipped).
 */
export default class ServersSummary implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.result().state === "passed") passed++
        else failed++
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
  }
}
