import { startOllamaLikeServer } from "@ctxkit/testing/OllamaLikeServer"
import { tutorialKeys } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { main } from "../examples/harness/main.ts"
import { eightFilesAgent, SAMPLE_WORKSPACE } from "../examples/harness/offline.ts"
import { confine, listFiles, readFile, search } from "../examples/harness/tools.ts"
import { ROOT, runHarness } from "./harnessRun.ts"

const harness = (args: ReadonlyArray<string>) => runHarness(args)

/** One child run takes a few seconds; on a loaded two-core machine, much more. */
const SLOW = 240_000

/** The README's transcripts are the runs' own output (the port aside). */
const README = fs.readFileSync(path.join(ROOT, "examples/harness/README.md"), "utf8")
const inReadme = (lines: ReadonlyArray<string>): void =>
  assert.include(README, "```text\n" + lines.join("\n").replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>") + "\n```")

const CTX = /^ctx [\d,]+\/([\d,]+) \((\d+)%\)$/

/** The number of model calls of a files run: the `[done] N turns` line. */
const turnsOf = (lines: ReadonlyArray<string>): number => Number(/^\[done\] (\d+) turns/.exec(lines.at(-1) ?? "")?.[1])

// Each case is a child process; run one at a time so the machine's two cores are not oversubscribed.
describe("the example harness, offline (npm run harness -- --offline …)", { concurrent: false }, () => {
  for (const mode of ["plateau", "collapse"] as const) {
    it(
      `${mode}: the eight-files task, with capping, clearing and compaction, a ctx line per turn, and the answer`,
      async () => {
        const { code, lines } = await harness(["--offline", mode])
        assert.strictEqual(code, 0, lines.join("\n"))
        assert.include(lines, "workspace: examples/harness/sample")
        assert.match(lines.find((l) => l.startsWith("window: ")) ?? "", /^window: 4,096 tokens \(discovered: Ollama /)
        const ctx = lines.filter((l) => CTX.test(l))
        assert.strictEqual(ctx.length, turnsOf(lines), "one ctx line per model call")
        for (const line of ctx) {
          const [, window, percent] = CTX.exec(line) ?? []
          assert.strictEqual(window, "4,096")
          assert.isTrue(Number(percent) <= 100)
        }
        assert.isTrue(lines.some((l) => /^~ capped \d+ tool results/.test(l)), "capping is shown")
        assert.isTrue(lines.some((l) => /^~ cleared \d+ old tool results/.test(l)), "clearing is shown")
        assert.isTrue(
          lines.some((l) => /^~ compacted the conversation: [\d,]+ -> [\d,]+ tokens$/.test(l)),
          "compaction"
        )
        assert.strictEqual(lines.filter((l) => l.startsWith("> read_file")).length >= 8, true, "all eight files read")
        assert.include(lines, "The longest of the eight files is warehouse.ts (6,504 bytes).")
        assert.isFalse(lines.some((l) => l.startsWith("[context_overflow]")), "the real window: nothing truncated")
        if (mode === "plateau") inReadme(lines)
      },
      SLOW
    )
  }

  it(
    "plateau --scenario overflow: the 27-message conversation ends with context_overflow and the fix, and the unchecked send answers without the task",
    async () => {
      const { code, lines } = await harness(["--offline", "plateau", "--scenario", "overflow"])
      assert.strictEqual(code, 1, lines.join("\n"))
      assert.include(lines, "window: 32,768 tokens (configured with --context-window)")
      assert.include(
        lines,
        "conversation: 28 messages, about 6,204 estimated tokens (4 characters a token, 4 a message)"
      )
      const end = lines.findIndex((l) => l.startsWith("[context_overflow]"))
      assert.isTrue(end > 0)
      const fix = lines[end + 1] ?? ""
      assert.match(fix, /^The server silently dropped part of the prompt: it reported \d+ prompt tokens/)
      assert.include(fix, "The answer was discarded; the conversation history is kept whole.")
      assert.include(fix, "Set the real context window")
      assert.include(fix, "OLLAMA_CONTEXT_LENGTH")
      // No answer to the question was given: the run stopped before any reply carried keys.
      assert.isFalse(lines.slice(0, end).some((l) => l.includes(tutorialKeys.system)))
      assert.include(
        lines,
        "without the engine, the same 28 messages sent at once: HTTP 200 · finish stop · prompt_tokens 3,725"
      )
      assert.include(lines, `  answer: ${tutorialKeys.system}`)
      assert.include(lines, `  task key (${tutorialKeys.task}): missing`)
      inReadme(lines)
    },
    SLOW
  )

  it("collapse --scenario overflow: the 63-token report ends the run the same way", async () => {
    const { code, lines } = await harness(["--offline", "collapse", "--scenario", "overflow"])
    assert.strictEqual(code, 1, lines.join("\n"))
    const fix = lines[lines.findIndex((l) => l.startsWith("[context_overflow]")) + 1] ?? ""
    assert.match(fix, /it reported 63 prompt tokens/)
    assert.include(fix, "The server answered from almost none of it.")
  }, SLOW)

  it("honest --scenario overflow: a server that keeps everything gets both keys, and the run is done", async () => {
    const { code, lines } = await harness(["--offline", "honest", "--scenario", "overflow"])
    assert.strictEqual(code, 0, lines.join("\n"))
    assert.isTrue(lines.some((l) => l.startsWith(`< ${tutorialKeys.task} ${tutorialKeys.system}`)))
    assert.isFalse(lines.some((l) => l.startsWith("[context_overflow]")))
  }, SLOW)

  it("against a server given by --base-url: the window is discovered and the task answered", async () => {
    // A 16k window: the eight files fit, so no compaction (online, the server itself would summarize).
    const server = await startOllamaLikeServer({ window: 16_384, mode: "plateau", reply: eightFilesAgent })
    try {
      const { code, lines } = await harness([
        "--base-url",
        server.baseUrl,
        "--model",
        server.model,
        "--workspace",
        path.relative(ROOT, SAMPLE_WORKSPACE),
        "Which of these eight files is the longest?"
      ])
      assert.strictEqual(code, 0, lines.join("\n"))
      assert.match(lines.find((l) => l.startsWith("window: ")) ?? "", /^window: 16,384 tokens \(discovered/)
      assert.include(lines, "The longest of the eight files is warehouse.ts (6,504 bytes).")
      assert.isTrue(server.requests.every((r) => !r.truncated), "fitted to the discovered window: nothing dropped")
      assert.isTrue(server.requests.every((r) => r.maxTokens === 1_024), "max_tokens is the reserve")
    } finally {
      await server.close()
    }
  }, SLOW)

  it("bad usage exits with 2 and says what is wrong (a child process)", async () => {
    const { code, stderr } = await harness(["--offline", "sideways"])
    assert.strictEqual(code, 2, stderr)
    assert.include(stderr, "--offline must be one of plateau, collapse, honest")
    assert.include(stderr, "usage: npm run harness")
  }, SLOW)

  it("bad usage, every case: main resolves to 2 before starting anything, naming the problem", async () => {
    for (
      const [args, problem] of [
        [["--offline", "plateau", "--context-window", "lots"], "--context-window must be a whole number"],
        [["--offline", "plateau", "--max-tokens", "0"], "--max-tokens must be a whole number"],
        [["--model", "m", "task"], "--base-url is required"],
        [["--base-url", "http://127.0.0.1:9", "task"], "--model is required"],
        [["--base-url", "http://127.0.0.1:9", "--model", "m"], "give the task"],
        [["--offline", "plateau", "--scenario", "other"], "--scenario must be files or overflow"],
        [["--offline", "plateau", "--unknown"], "Unknown option"]
      ] as const
    ) {
      const printed: Array<string> = []
      const errors: Array<string> = []
      const code = await main(args, (line) => printed.push(line), (line) => errors.push(line))
      assert.strictEqual(code, 2, args.join(" "))
      assert.deepStrictEqual(printed, [], "nothing ran")
      assert.include(errors[0] ?? "", problem)
      assert.include(errors.join("\n"), "usage: npm run harness")
    }
  })
})

describe("the harness's read-only tools", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxkit-harness-"))
  fs.mkdirSync(path.join(root, "src"))
  fs.writeFileSync(path.join(root, "src", "a.ts"), "export const a = 1\nexport const needle = 2\n")
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "ctxkit-outside-"))
  fs.writeFileSync(path.join(outside, "secret.txt"), "do not read")
  fs.symlinkSync(outside, path.join(root, "link"))

  it("list, read and search inside the folder", () => {
    assert.strictEqual(listFiles(root), "src/a.ts  43 bytes")
    assert.strictEqual(readFile(root, "src/a.ts"), "export const a = 1\nexport const needle = 2\n")
    assert.strictEqual(search(root, "needle"), "src/a.ts:2: export const needle = 2")
  })

  it("refuse every path that leaves the folder: .., absolute, a symbolic link pointing out", () => {
    for (const escape of ["../secret.txt", path.join(outside, "secret.txt"), "link/secret.txt", "src/../../x"]) {
      assert.isTrue("refused" in confine(root, escape), escape)
      assert.match(readFile(root, escape), /^error: .* (outside the workspace|absolute path)/)
    }
    assert.match(listFiles(root, "link"), /^error: link is outside the workspace/)
    assert.match(search(root, "("), /^error: .* is not a regular expression/)
  })
})
