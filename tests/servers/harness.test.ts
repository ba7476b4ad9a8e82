/**
 * The example harness (`npm run harness`) against a real llama-server (opt-in: `npm run test:servers`). The tiny
 * random-weight model answers noise, so what is checked is the wire, on the overflow scenario (the experiment's
 * conversation replayed turn by turn; no tools, whose calls the noise could not form): with the window discovered
 * from the server, one `ctx used/window (percent)` line per model call, all within it, and the run answered; with
 * a wrong window, the server's HTTP 400 ending the run as `context_overflow` with the window it reported.
 */
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type RunningLlamaServer, startLlamaServer } from "../../scripts/servers/llamaServer.ts"
import { runHarness } from "../harnessRun.ts"

const N_CTX = 2_048

let server: RunningLlamaServer
beforeAll(async () => {
  // No tools are sent, so the plain (non-Jinja) template is enough, and its output is never parsed for calls.
  server = await startLlamaServer({ nCtx: N_CTX, alias: "ctxkit-tiny-harness", args: ["--no-jinja", "--temp", "0"] })
})
afterAll(async () => {
  await server?.stop()
})

const harness = (args: ReadonlyArray<string>) => runHarness(args, 280_000)

const CTX = /^ctx ([\d,]+)\/([\d,]+) \((\d+)%\)$/
const num = (text: string) => Number(text.replace(/,/g, ""))

describe("the example harness against a real llama-server", () => {
  // The conversation of the overflow experiment, replayed turn by turn (no tools: the tiny model's noise would not
  // parse as a tool call). llama.cpp rejects an over-window prompt instead of truncating it.
  it("the window discovered from the server: every request fitted inside it, and the run ends answered", async () => {
    const { code, lines, stderr } = await harness([
      "--base-url",
      server.baseUrl,
      "--model",
      server.model,
      "--max-tokens",
      "16",
      "--scenario",
      "overflow"
    ])
    const output = `${lines.join("\n")}\n${stderr}\n--- server log ---\n${server.log().slice(-2_000)}`
    assert.strictEqual(code, 0, output)
    assert.match(lines.find((l) => l.startsWith("window: ")) ?? "", /^window: 2,048 tokens \(discovered/, output)
    const ctx = lines.map((l) => CTX.exec(l)).filter((m) => m !== null)
    assert.isAbove(ctx.length, 10, output)
    for (const m of ctx) {
      assert.strictEqual(num(m[2]!), N_CTX, output)
      assert.isAtMost(num(m[1]!), N_CTX, output)
    }
    assert.isFalse(lines.some((l) => l.startsWith("[context_overflow]")), output)
  })

  it("a wrong window: the server's 400 ends the run with context_overflow and the window it reported", async () => {
    const { code, lines, stderr } = await harness([
      "--base-url",
      server.baseUrl,
      "--model",
      server.model,
      "--context-window",
      "32768",
      "--max-tokens",
      "16",
      "--scenario",
      "overflow"
    ])
    const output = `${lines.join("\n")}\n${stderr}`
    assert.strictEqual(code, 1, output)
    assert.isTrue(lines.some((l) => l.startsWith("[context_overflow]")), output)
    assert.include(output, "2048", output)
  })
})
