/**
 * The plugin host is caller-typed like `shiftContext`: given a format, `runStrategy`, `runInterceptors`,
 * `fitPrompt`, `preview` and `startAudit` take the caller's own message type and give it back (OpenAI Chat, the AI
 * SDK's `ModelMessage`, `effect/ai` `Prompt.Message`, LangChain `BaseMessage`), with interceptors typed for
 * them. The type assertions are checked by `tsc -b` (this file is part of the tests project); the calls run under
 * vitest and check that the caller's own objects come back.
 */
import { approximateCounter } from "@ctxkit/budget"
import { formats } from "@ctxkit/core"
import { fitPrompt, preview, type PromptInterceptor, runInterceptors, runStrategy, startAudit } from "@ctxkit/engine"
import type { PreparedPrompt } from "@ctxkit/engine/Preview"
import type { InterceptorRun } from "@ctxkit/engine/RunInterceptors"
import type { StrategyRun } from "@ctxkit/engine/RunStrategy"
import { shiftContext, strategies } from "@ctxkit/fit"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import type { ModelMessage } from "ai"
import { Prompt } from "effect/ai"
import * as Effect from "effect/Effect"

// The OpenAI caller's own type, written from the API's documented shape (the SDK is not a dependency).
interface ChatCompletionMessage {
  role: "system" | "user" | "assistant" | "tool"
  content: string | null
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

const chat: Array<ChatCompletionMessage> = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "List the files. ".repeat(40) },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "c1", content: "a.ts\nb.ts\n".repeat(40) },
  { role: "user", content: "Now read b.ts." }
]

const lc: Array<BaseMessage> = [
  new SystemMessage("You are a coding agent."),
  new HumanMessage("list the files ".repeat(40)),
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] }),
  new ToolMessage({ content: "a.ts", tool_call_id: "c1" }),
  new HumanMessage("read a.ts")
]

const sdk: Array<ModelMessage> = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "which queue? ".repeat(40) },
  {
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: "c1", toolName: "rm", input: { path: "q" } }]
  },
  {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "c1", toolName: "rm", output: { type: "text", value: "ok" } }]
  },
  { role: "user", content: "and now?" }
]

// A format-generic interceptor: it only uses the format it is handed, so it is made for any message type.
const note = <M>(): PromptInterceptor<M> => ({
  id: "test/note",
  intercept: (messages, { format }) => [
    ...messages.slice(0, -1),
    format.makeNote("[retrieved] The build uses tsc -b.", { role: "user", kind: "note" }),
    ...messages.slice(-1)
  ]
})

const promptOptions = {
  countTokens: approximateCounter,
  contextLimit: 200,
  reservedForReply: 50,
  generationId: "gen-1",
  provider: "openai",
  model: "gpt-4.1-mini"
} as const

describe("the plugin host gives back the caller's type", () => {
  it("runStrategy and runInterceptors: OpenAI Chat and LangChain, with a typed and a format-generic interceptor", () => {
    const run = Effect.runSync(
      runStrategy(strategies.truncate, chat, approximateCounter, 150, { format: formats.openaiChat })
    )
    expectTypeOf(run).toEqualTypeOf<StrategyRun<ChatCompletionMessage>>()
    assert.isTrue(run.result.kept.every((m) => chat.includes(m)))
    const mine: PromptInterceptor<ChatCompletionMessage> = {
      id: "test/mine",
      intercept: (messages) => messages.filter((m) => m.role !== "tool" || m.content !== "")
    }
    const intercepted = Effect.runSync(
      runInterceptors(run.result, [mine, note()], approximateCounter, 150, { format: formats.openaiChat })
    )
    expectTypeOf(intercepted).toEqualTypeOf<InterceptorRun<ChatCompletionMessage>>()
    assert.strictEqual(intercepted.result.kept.at(-1), chat.at(-1))

    const byLangChain = Effect.runSync(
      runStrategy(strategies.truncate, lc, approximateCounter, 60, { format: formats.langchain })
    )
    expectTypeOf(byLangChain.result.kept).toEqualTypeOf<ReadonlyArray<BaseMessage>>()
    assert.instanceOf(byLangChain.result.kept[0], SystemMessage)
    assert.instanceOf(byLangChain.result.kept.at(-1), HumanMessage)
    const lcRun = Effect.runSync(
      runInterceptors(byLangChain.result, [], approximateCounter, 60, { format: formats.langchain })
    )
    expectTypeOf(lcRun.result.kept).toEqualTypeOf<ReadonlyArray<BaseMessage>>()
    assert.strictEqual(lcRun.result.kept.at(-1), lc.at(-1))
  })

  it("fitPrompt and preview: the AI SDK's ModelMessage and effect/ai Prompt messages", () => {
    const prepared = Effect.runSync(fitPrompt(sdk, { ...promptOptions, format: formats.aiSdk, interceptors: [note()] }))
    expectTypeOf(prepared).toEqualTypeOf<PreparedPrompt<ModelMessage>>()
    assert.isTrue(prepared.fits)
    assert.strictEqual(prepared.messages.at(-1), sdk.at(-1))
    assert.strictEqual(prepared.messages[0], sdk[0])

    const prompt = Prompt.make([
      { role: "system", content: "Be brief." },
      { role: "user", content: "An old question. ".repeat(60) },
      { role: "user", content: "Now?" }
    ])
    const shown = Effect.runSync(preview(prompt.content, { ...promptOptions, format: formats.effectAi }))
    expectTypeOf(shown.messages).toEqualTypeOf<ReadonlyArray<Prompt.Message>>()
    assert.deepStrictEqual(shown.messages, [prompt.content[0], prompt.content[2]])
  })

  it("startAudit reads the caller's messages through the format", () => {
    const options = { format: formats.langchain }
    const fitted = shiftContext(lc, approximateCounter, 60, options)
    const strategy = Effect.runSync(runStrategy(strategies.truncate, lc, approximateCounter, 60, options))
    const audit = startAudit({
      generationId: "gen-2",
      provider: "anthropic",
      model: "claude",
      contextLimit: 100,
      reservedForReply: 40,
      messages: lc,
      strategy,
      countTokens: approximateCounter,
      options
    })
    assert.deepStrictEqual(audit.blocks.map((b) => b.role), ["system", "user", "assistant", "tool", "user"])
    assert.strictEqual(audit.blocks.filter((b) => b.included).length, fitted.kept.length)
  })
})
