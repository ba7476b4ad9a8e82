/**
 * `ctxkit demo` through the real bin, in child processes: the text and the JSON document are exactly what the
 * library's runs give in this process, every step of the pipeline did something, the requests stay within the
 * budget, and part 2 shows what the scripted server really did — a wrong answer from a truncated prompt, caught on
 * the first truncated request and not before, and the right answer once the fix is applied.
 */
import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { formats } from "@ctxkit/core"
import { tutorialKeys } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { runOverflow } from "../src/internal/demoOverflow.ts"
import { runPipeline } from "../src/internal/demoPipeline.ts"
import { demoJson, demoLines, stepSummaries } from "../src/internal/demoText.ts"

const BIN = fileURLToPath(new URL("../bin/ctxkit.js", import.meta.url))
const run = (args: ReadonlyArray<string>) =>
  promisify(execFile)(process.execPath, [BIN, ...args], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })

describe("ctxkit demo", () => {
  const library = Effect.runPromise(Effect.all([runPipeline(), runOverflow]))

  it("prints, through the real bin, exactly the lines of the library's runs, and exits 0", async () => {
    const [pipeline, overflow] = await library
    const { stderr, stdout } = await run(["demo"])
    assert.strictEqual(stderr, "")
    assert.deepStrictEqual(stdout.split("\n"), [...demoLines(pipeline, overflow), ""])
  }, 120_000)

  it("--json prints one JSON document: the library's runs", async () => {
    const [pipeline, overflow] = await library
    const { stdout } = await run(["demo", "--json"])
    assert.deepStrictEqual(JSON.parse(stdout), JSON.parse(JSON.stringify(demoJson(pipeline, overflow))))
  }, 120_000)

  it("part 1: every step of the pipeline acts on the session, and every request fits the budget", async () => {
    const [pipeline] = await library
    for (const step of stepSummaries(pipeline)) assert.isAbove(step.requests.length, 0, `${step.step} never acted`)
    for (const r of pipeline.requests) assert.isAtMost(r.requestTokens, pipeline.budget)
    const last = pipeline.requests[pipeline.requests.length - 1]
    if (last === undefined) throw new Error("no request")
    assert.isAbove(last.transcriptTokens, 4 * pipeline.budget, "the session is several windows long")
    // The request really is what the engine counted, and it ends with the user's instructions verbatim.
    const sent = pipeline.finalRequest
    assert.strictEqual(
      conversationCost(sent, { counter: approximateCounter, format: formats.canonical }).total,
      last.requestTokens
    )
    const block = formats.canonical.text(sent[sent.length - 1] ?? { role: "user", content: "" })
    assert.include(block, "Always run the tests before you say you are done.")
    assert.include(block, "Never edit files outside packages/cli.")
  }, 120_000)

  it("part 2: the wrong answer, the detection on the first truncated request, and the fix", async () => {
    const [, overflow] = await library
    assert.isTrue(overflow.naive.served?.truncated)
    assert.notInclude(overflow.naive.answer, tutorialKeys.task)
    assert.include(overflow.naive.answer, tutorialKeys.system)
    assert.strictEqual(overflow.naive.finishReason, "stop")
    const served = overflow.observed.map((o) => o.served?.truncated)
    const flagged = overflow.observed.map((o) => o.truncated)
    assert.deepStrictEqual(flagged, served, "the engine flags exactly the requests the server truncated")
    assert.deepStrictEqual(flagged.slice(-1), [true])
    assert.strictEqual(overflow.outcome?.reason, "context_overflow")
    assert.include(overflow.outcome?.message ?? "", "num_ctx")
    assert.strictEqual(overflow.fixed.window, overflow.serverWindow)
    assert.isFalse(overflow.fixed.call.served?.truncated)
    assert.strictEqual(overflow.fixed.call.answer, `${tutorialKeys.task} ${tutorialKeys.system}`)
  }, 120_000)
})
