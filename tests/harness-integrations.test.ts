import { tutorialKeys } from "@ctxkit/testing/Tutorial"
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { main as effectAiApp } from "../examples/effect-ai-app.ts"
import { main as ownLoop } from "../examples/harness/own-loop.ts"

const ROOT = path.resolve(import.meta.dirname, "..")
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), "utf8")
const docs = read("docs/integrations.md")

/** The top-level declaration `export const <name>` of a file, to its closing line. */
const declaration = (file: string, name: string, end: string): string => {
  const text = read(file)
  const start = text.indexOf(`export const ${name}`)
  assert.isTrue(start >= 0, `${file} declares ${name}`)
  return text.slice(start, text.indexOf(end, start) + end.length)
}

describe("docs/integrations.md: In an effect/ai app", () => {
  it("shows the example's layers word for word", () => {
    assert.include(docs, "## In an effect/ai app")
    assert.include(docs, declaration("examples/effect-ai-app.ts", "appModel", "\n}\n"))
  })

  it("runs: a Chat of three questions, each call through the engine (the history appended, max_tokens the reserve)", async () => {
    const lines: Array<string> = []
    await effectAiApp([], (line) => lines.push(line))
    assert.deepStrictEqual(lines, [
      "> What changed in the release?",
      "I was sent 2 messages; the last: What changed in the release?",
      "> Who owns the migration?",
      "I was sent 4 messages; the last: Who owns the migration?",
      "> When is the summary due?",
      "I was sent 6 messages; the last: When is the summary due?",
      // The window came from the server (4,096): the reserve is min(512, 25% of it).
      "max_tokens sent: 512, 512, 512"
    ])
  })
})

describe("docs/integrations.md: In your own loop", () => {
  it("shows the loop word for word", () => {
    assert.include(docs, "## In your own loop")
    assert.include(docs, declaration("examples/harness/own-loop.ts", "ownLoop", "\n  })\n"))
  })

  it("runs: context_overflow and its fix at the truncated turn, then the question answered with both keys", async () => {
    const lines: Array<string> = []
    await ownLoop((line) => lines.push(line))
    const overflow = lines.findIndex((l) => l.endsWith("-> context_overflow"))
    assert.strictEqual(lines[overflow], "turn 9: 18 messages sent -> context_overflow")
    assert.match(
      lines[overflow + 1] ?? "",
      /^The server silently dropped part of the prompt: it reported 3695 prompt tokens/
    )
    assert.isFalse(lines.slice(0, overflow).some((l) => l.includes(tutorialKeys.system)))
    assert.match(lines.at(-1) ?? "", new RegExp(`-> ${tutorialKeys.task} ${tutorialKeys.system}$`))
    // After the overflow every request is smaller than the window the plateau showed (3,730 tokens).
    for (const line of lines.slice(overflow + 2)) {
      const tokens = Number(/, (\d+) tokens ->/.exec(line)?.[1])
      assert.isTrue(tokens < 3_730, line)
    }
  })
})
