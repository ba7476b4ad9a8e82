/**
 * Issue 11, defect 5: passing a format explicitly gives back the caller's own message type, in every format, and a
 * lens is usable where options are typed for `unknown`. The assertions are checked by `tsc -b` (this file is part
 * of the tests project) and the calls run under vitest.
 */
import { approximateCounter } from "@ctxkit/budget"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { type FitOptions, type FitResult, shiftContext } from "@ctxkit/fit"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
import type { ModelMessage } from "ai"
import { Prompt } from "effect/ai"
import { pipe } from "effect/Function"

// The OpenAI and Anthropic callers' own types, written here from each API's documented shape (those SDKs are not
// dependencies); the AI SDK's ModelMessage is the real one from `ai` 7.
interface ChatCompletionMessage {
  role: "system" | "user" | "assistant" | "tool"
  content: string | null
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>
  tool_call_id?: string
}
type ResponsesItem =
  | { type: "message"; role: "user" | "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
interface AnthropicParam {
  role: "user" | "assistant"
  content:
    | string
    | Array<
      | { type: "text"; text: string }
      | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
      | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
    >
}
const fit = <M>(messages: ReadonlyArray<M>, format: MessageFormat<unknown>) =>
  shiftContext(messages, approximateCounter, 1_000, { format })

describe("the caller's type comes back (defect 5)", () => {
  it("canonical, OpenAI Chat, OpenAI Responses and Anthropic messages of the caller's own types", () => {
    const canonical: Array<Message> = [{ role: "user", content: "hi" }]
    const chat: Array<ChatCompletionMessage> = [{ role: "user", content: "hi" }]
    const responses: Array<ResponsesItem> = [{ type: "message", role: "user", content: "hi" }]
    const anthropic: Array<AnthropicParam> = [{ role: "user", content: "hi" }]
    expectTypeOf(shiftContext(canonical, approximateCounter, 100, { format: formats.canonical })).toEqualTypeOf<
      FitResult<Message>
    >()
    expectTypeOf(shiftContext(chat, approximateCounter, 100, { format: formats.openaiChat }).kept).toEqualTypeOf<
      ReadonlyArray<ChatCompletionMessage>
    >()
    expectTypeOf(shiftContext(responses, approximateCounter, 100, { format: formats.openaiResponses }).kept)
      .toEqualTypeOf<ReadonlyArray<ResponsesItem>>()
    const byAnthropic = shiftContext(anthropic, approximateCounter, 100, { format: formats.anthropic })
    expectTypeOf(byAnthropic.kept).toEqualTypeOf<ReadonlyArray<AnthropicParam>>()
    assert.strictEqual(byAnthropic.kept[0], anthropic[0])
  })

  it("AI SDK ModelMessages, effect/ai Prompt messages and LangChain BaseMessages, data-first and data-last", () => {
    const sdk: Array<ModelMessage> = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "which queue?" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "weighing" },
          { type: "tool-call", toolCallId: "c1", toolName: "rm", input: { path: "q" } },
          { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }
        ]
      },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "rm", output: { type: "text", value: "ok" } }]
      }
    ]
    const bySdk = shiftContext(sdk, approximateCounter, 100, { format: formats.aiSdk })
    expectTypeOf(bySdk.kept).toEqualTypeOf<ReadonlyArray<ModelMessage>>()
    const prompt = Prompt.make("list the files")
    const byEffect = pipe(prompt.content, shiftContext(approximateCounter, 100, { format: formats.effectAi }))
    expectTypeOf(byEffect.kept).toEqualTypeOf<ReadonlyArray<Prompt.Message>>()
    assert.strictEqual(byEffect.kept[0], prompt.content[0])
    const lc: Array<BaseMessage> = [
      new HumanMessage("list the files"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] }),
      new ToolMessage({ content: "a.ts", tool_call_id: "c1" }),
      new HumanMessage("read a.ts")
    ]
    const byLangChain = shiftContext(lc, approximateCounter, 1_000, { format: formats.langchain })
    expectTypeOf(byLangChain.kept).toEqualTypeOf<ReadonlyArray<BaseMessage>>()
    assert.instanceOf(byLangChain.kept[0], HumanMessage)
    assert.strictEqual(byLangChain.kept.length, 4)
  })

  it("a lens is usable where options are typed for unknown (MessageFormat is not invariant)", () => {
    const options: FitOptions<unknown> = { format: formats.openaiChat }
    expectTypeOf(formats.anthropic).toExtend<MessageFormat<unknown>>()
    expectTypeOf(formats.langchain).toExtend<MessageFormat<unknown>>()
    const chat = [{ role: "user", content: "hi" }]
    assert.strictEqual(fit(chat, formats.openaiChat).kept[0], chat[0])
    assert.isTrue(shiftContext(chat, approximateCounter, 100, options).fits)
  })
})
