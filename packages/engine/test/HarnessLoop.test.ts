import { Summarizer } from "@ctxkit/compaction"
import type { Message } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { agent, type CallModel, engineLayer, type RunTools } from "./HarnessLoop.ts"

const summarizer = Layer.succeed(
  Summarizer,
  Summarizer.of({
    summarize: () =>
      Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"Read the files and report\"}}", finishReason: "stop" })
  })
)

const count = (messages: ReadonlyArray<Message>) =>
  messages.reduce((sum, m) => sum + Math.ceil(JSON.stringify(m.content).length / 4) + 4, 0)

/** A model that reads forty large files, one per step, then answers. */
const reader = (truncateAbove?: number): CallModel => {
  let step = 0
  return (messages) =>
    Effect.sync(() => {
      const tokens = count(messages)
      const usage = { prompt_tokens: truncateAbove !== undefined && tokens > truncateAbove ? 3_725 : tokens }
      step++
      const reply: Message = step <= 40
        ? {
          role: "assistant",
          content: "",
          toolCalls: [{ id: `c${step}`, name: "read_file", arguments: `{"path":"f${step}.ts"}` }]
        }
        : { role: "assistant", content: "All forty files read." }
      return { reply, usage }
    })
}

const tools: RunTools = (reply) =>
  Effect.succeed(
    (reply.role === "assistant" ? reply.toolCalls ?? [] : []).map((call): Message => ({
      role: "tool",
      toolCallId: call.id,
      content: `// ${call.arguments}\n${"export const x = 1\n".repeat(300)}`
    }))
  )

describe("docs/engine.md: the harness loop", () => {
  it("is the code of docs/engine.md, word for word", () => {
    const docs = fs.readFileSync(path.join(import.meta.dirname, "../../../docs/engine.md"), "utf8")
    const code = fs.readFileSync(path.join(import.meta.dirname, "HarnessLoop.ts"), "utf8")
    assert.include(docs, "```ts\n" + code + "```")
  })

  it("runs forty tool steps that outgrow a 32k window, and answers", async () => {
    const answer = await Effect.runPromise(
      agent("Read every file and report.", reader(), tools).pipe(Effect.provide(engineLayer(summarizer)))
    )
    assert.strictEqual(answer, "All forty files read.")
  })

  it("stops with the fix-it message when the server truncates the prompt", async () => {
    const answer = await Effect.runPromise(
      agent("Read every file and report.", reader(6_000), tools).pipe(Effect.provide(engineLayer(summarizer)))
    )
    assert.include(answer, "Set the real context window")
  })
})
