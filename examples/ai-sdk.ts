/**
 * `@ctxkit/ai-sdk` in a Vercel AI SDK (`ai` 7) app, offline: an agent with two tools over a small folder — `read`,
 * and `remove`, which needs the user's approval — answers a request at the end of a long conversation in an
 * 8,192-token window, 1,024 of them reserved for the reply. `contextPrepareStep` fits every step before it is
 * sent and prints `ctx used/budget (percent)` for each; the run stops for approval, the user approves, and the
 * approved tool runs in the next call.
 *
 * The model is the SDK's own `MockLanguageModelV4`, scripted, so the example runs without a network: replace it
 * with your provider's model (`openai("gpt-5")`, `anthropic("claude-sonnet-4-5")`, …) and nothing else changes.
 *
 * Run: `npx node --conditions=@ctxkit/source examples/ai-sdk.ts`
 */
import { contextPrepareStep, type StepFit } from "@ctxkit/ai-sdk"
import { TokenBudgetExceeded } from "@ctxkit/core"
import { generateText, isStepCount, type ModelMessage, tool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { resolve } from "node:path"
import { z } from "zod"

/** The model's context window, and the most tokens its reply may take. */
export const WINDOW = 8_192
export const MAX_TOKENS = 1_024

const files: Readonly<Record<string, string>> = {
  "README.md": "# demo\n" + "A small project with a parser and its tests.\n".repeat(30),
  "src/parser.ts": "export const parse = (text: string) => text.split(\"\\n\")\n".repeat(80),
  "dist/parser.js": "exports.parse = (t) => t.split(\"\\n\")\n".repeat(40)
}

type Content = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>["content"]

/** A scripted model: each call answers with the next reply (tool calls, then text). */
const scripted = (replies: ReadonlyArray<Content>): MockLanguageModelV4 => {
  let next = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const content = replies[Math.min(next++, replies.length - 1)] ?? []
      return {
        content,
        finishReason: { unified: content.some((p) => p.type === "tool-call") ? "tool-calls" : "stop", raw: undefined },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined }
        },
        warnings: []
      }
    }
  })
}

const call = (toolCallId: string, toolName: string, input: unknown): Content[number] => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input: JSON.stringify(input)
})

/** An earlier session, as the app stored it: long turns, tool calls and their results. */
const earlier = (): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (let turn = 0; turn < 12; turn++) {
    const id = `old-${turn}`
    out.push(
      { role: "user", content: `Question ${turn}: explain part ${turn} of the parser. ` + "Be thorough. ".repeat(40) },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: id, toolName: "read", input: { path: "src/parser.ts" } }]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: id,
          toolName: "read",
          output: { type: "text", value: files["src/parser.ts"]! }
        }]
      },
      { role: "assistant", content: `Part ${turn} splits the text into lines. ` + "It is simple. ".repeat(40) }
    )
  }
  return out
}

/** What the example did, for its test: each step's fit, what ran, the answers. */
export interface Report {
  readonly fits: ReadonlyArray<StepFit>
  readonly removed: ReadonlyArray<string>
  readonly approvalAsked: boolean
  readonly answer: string
  readonly refusal: string
  readonly models: ReadonlyArray<MockLanguageModelV4>
  readonly lines: ReadonlyArray<string>
}

/** Runs the example; `log` receives each printed line. */
export const main = async (log: (line: string) => void = console.log): Promise<Report> => {
  const lines: Array<string> = []
  const print = (line: string) => {
    lines.push(line)
    log(line)
  }
  const removed: Array<string> = []
  const tools = {
    read: tool({
      description: "Read a file of the project",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => files[path] ?? `no such file: ${path}`
    }),
    remove: tool({
      description: "Remove a file of the project",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        removed.push(path)
        return `removed ${path}`
      }
    })
  }

  // One prepareStep for the whole session: its cache counts each message once, however many steps see it.
  const fits: Array<StepFit> = []
  const prepareStep = contextPrepareStep({
    window: WINDOW,
    maxTokens: MAX_TOKENS,
    onFit: (fit) => {
      fits.push(fit)
      const percent = Math.round((100 * fit.tokens) / fit.budget)
      print(
        `step ${fit.stepNumber}: ctx ${fit.tokens}/${fit.budget} (${percent}%), ` +
          `${fit.fit.kept.length} messages sent, ${fit.fit.excluded.length} left out, max output ${fit.maxOutputTokens}`
      )
    }
  })
  const instructions = "You are a careful coding agent. Read files before you change them."

  print("Call 1: the user asks for a review and a cleanup.")
  const history: Array<ModelMessage> = [
    ...earlier(),
    { role: "user", content: "Read README.md and src/parser.ts, then remove dist/parser.js." }
  ]
  const first = scripted([
    [call("c1", "read", { path: "README.md" }), call("c2", "read", { path: "src/parser.ts" })],
    [call("c3", "remove", { path: "dist/parser.js" })]
  ])
  const one = await generateText({
    model: first,
    instructions,
    messages: history,
    tools,
    stopWhen: isStepCount(5),
    prepareStep
  })
  const request = one.content.find((part) => part.type === "tool-approval-request")
  print(
    `The run stopped: ${
      request?.type === "tool-approval-request" ? `approval asked for ${request.toolCall.toolName}` : "no approval"
    }.`
  )

  print("Call 2: the user approves; the SDK runs the tool, then the model answers.")
  const second = scripted([[{ type: "text", text: "Removed dist/parser.js; the parser splits lines." }]])
  const approved: Array<ModelMessage> = [
    ...history,
    ...one.steps.flatMap((step) => step.response.messages),
    {
      role: "tool",
      content: request?.type === "tool-approval-request"
        ? [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }]
        : []
    }
  ]
  const two = await generateText({ model: second, instructions, messages: approved, tools, prepareStep })
  print(`Ran: ${removed.join(", ")}. Answer: ${two.text}`)

  print("Call 3: a system prompt larger than the window is refused before anything is sent.")
  const third = scripted([[{ type: "text", text: "never sent" }]])
  const refusal = await generateText({
    model: third,
    instructions: "Follow every rule below. ".repeat(2_000),
    messages: [{ role: "user", content: "hi" }],
    prepareStep: contextPrepareStep({ window: WINDOW, maxTokens: MAX_TOKENS })
  }).then(
    () => "sent",
    (error: unknown) => error instanceof TokenBudgetExceeded ? `${error._tag}: ${error.message}` : String(error)
  )
  print(refusal)

  return {
    fits,
    removed,
    approvalAsked: request?.type === "tool-approval-request",
    answer: two.text,
    refusal,
    models: [first, second, third],
    lines
  }
}

// `import.meta.main` is Node ≥ 24.2; the path comparison covers older Nodes that run TypeScript (22.18+).
if (import.meta.main || resolve(process.argv[1] ?? "") === import.meta.filename) await main()
