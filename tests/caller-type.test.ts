/**
 * Issue 11, defect 5: passing a format explicitly gives back the caller's own message type, in every format, and a
 * lens is usable where options are typed for `unknown`. The assertions are checked by `tsc -b` (this file is part
 * of the tests project) and the calls run under vitest.
 */
import { approximateCounter, conversationCost, messageCost } from "@ctxkit/budget"
import {
  capToolResults,
  clearOldToolResults,
  compact,
  type CompactionOutcome,
  type CompactionPlan,
  ensureWithinBudget,
  type NoPlan,
  planCompaction,
  recoverUncertainResults,
  reduceToBudget
} from "@ctxkit/compaction"
import {
  formats,
  type Message,
  type MessageFormat,
  type OpenAiChatMessage,
  repairPairs,
  type ToolGroups,
  toolGroups
} from "@ctxkit/core"
import {
  type ContextStrategy,
  type FitOptions,
  fitOrFail,
  type FitResult,
  pruneMessages,
  shiftContext,
  strategies
} from "@ctxkit/fit"
import { govern } from "@ctxkit/governor"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
import type { ModelMessage } from "ai"
import { Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import { pipe } from "effect/Function"
import * as Option from "effect/Option"

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

// A type-level equality that fails to compile when the two types differ in either direction (not mere
// assignability: `any`, a supertype or the lens's own type are all told apart).
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertEqual = <A, B>(..._proof: Equal<A, B> extends true ? [] : ["the types differ"]): void => undefined
type ElementOf<R> = R extends ReadonlyArray<infer E> ? E : never
type Elements<R> = { readonly [K in keyof R]: ElementOf<R[K]> }
type All<R, M> = { readonly [K in keyof R]: M }
const planned = <M>(plan: CompactionPlan<M> | NoPlan): ReadonlyArray<M> =>
  plan._tag === "CompactionPlan" ? [...plan.summarized, ...plan.kept] : []

// A compaction that would not save anything fails: those runs have no messages to compare.
const compacted = <M>(outcome: Option.Option<CompactionOutcome<M>>): ReadonlyArray<M> =>
  Option.isSome(outcome) && outcome.value._tag === "Compacted" ? outcome.value.messages : []
const summarize = () =>
  Effect.succeed({ text: `{"checkpoint":{"goal":"list the files"}}`, finishReason: "stop" as const })

const count = approximateCounter
const BUDGET = 1_000

/**
 * Every function that takes messages and a format and gives messages back, called on `messages` with the format
 * given explicitly: what each gives back, as an array, so that the element types can be compared.
 */
const everyResult = <R extends Record<string, ReadonlyArray<unknown>>>(results: R): R => results

describe("every function gives back the caller's type with an explicit format (defect 5)", () => {
  it("OpenAI Chat: the caller's ChatCompletionMessage", () => {
    const m: Array<ChatCompletionMessage> = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" }
    ]
    const format = formats.openaiChat
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, ChatCompletionMessage>>()
    // @ts-expect-error the lens's own message type is not the caller's: the assertion can fail
    assertEqual<Elements<typeof results>, All<typeof results, OpenAiChatMessage>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[1])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[1])
    const grouped: ToolGroups = toolGroups(m, format)
    assert.deepStrictEqual(grouped.groups, [[0], [1]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 2)
    assert.isAbove(messageCost(m[1]!, { format }).tokens, 0)
  })

  it("OpenAI Responses: the caller's item union", () => {
    const m: ReadonlyArray<ResponsesItem> = [
      { type: "message", role: "user", content: "hi" },
      { type: "function_call", call_id: "c1", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "a.ts" },
      { type: "message", role: "user", content: "thanks" }
    ]
    const format = formats.openaiResponses
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, ResponsesItem>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[3])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[3])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2], [3]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 4)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("Anthropic: the caller's MessageParam", () => {
    const m: ReadonlyArray<AnthropicParam> = [
      { role: "user", content: "list" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }] },
      { role: "user", content: "thanks" }
    ]
    const format = formats.anthropic
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, AnthropicParam>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[3])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[3])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2], [3]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 4)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("AI SDK: ai 7's ModelMessage", () => {
    const m: ReadonlyArray<ModelMessage> = [
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
      },
      { role: "user", content: "thanks" }
    ]
    const format = formats.aiSdk
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, ModelMessage>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[4])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[4])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2, 3], [4]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 5)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("effect/ai: Prompt.Message", () => {
    const m: ReadonlyArray<Prompt.Message> = Prompt.make([
      { role: "user", content: "list" },
      {
        role: "assistant",
        content: [{ type: "tool-call", id: "c1", name: "ls", params: {}, providerExecuted: false }]
      },
      { role: "tool", content: [{ type: "tool-result", id: "c1", name: "ls", isFailure: false, result: "a.ts" }] },
      { role: "user", content: "thanks" }
    ]).content
    const format = formats.effectAi
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, Prompt.Message>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[3])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[3])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2], [3]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 4)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("LangChain: BaseMessage", () => {
    const m: ReadonlyArray<BaseMessage> = [
      new HumanMessage("list"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] }),
      new ToolMessage({ content: "a.ts", tool_call_id: "c1" }),
      new HumanMessage("thanks")
    ]
    const format = formats.langchain
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, BaseMessage>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[3])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[3])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2], [3]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 4)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("canonical: Message", () => {
    const m: ReadonlyArray<Message> = [
      { role: "user", content: "list" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: "a.ts" },
      { role: "user", content: "thanks" }
    ]
    const format = formats.canonical
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET, { format }).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET, { format }).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET, { format }).kept,
      manual: strategies.manual.fit(m, count, BUDGET, { format }).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET, { format }).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET, { format })).kept,
      pruneMessages: pruneMessages(m, { format }).messages,
      repairPairs: repairPairs(m, { format }).messages,
      planCompaction: planned(planCompaction(m, { format })),
      reduceToBudget: reduceToBudget(m, 10_000, { format }).messages,
      capToolResults: capToolResults(m, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m, { format }).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m, { format })).messages,
      govern: govern(m, { format }).messages,
      recoverUncertainResults: recoverUncertainResults(m, { format }).messages,
      compact: compacted(
        Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, format, keepTurns: 1 })))
      )
    })
    assertEqual<Elements<typeof results>, All<typeof results, Message>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[3])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[3])
    assert.deepStrictEqual(toolGroups(m, format).groups, [[0], [1, 2], [3]])
    assert.strictEqual(conversationCost(m, { format }).costs.length, 4)
    assert.isAbove(messageCost(m[0]!, { format }).tokens, 0)
  })

  it("auto (no format): the caller's own type, whatever it is", () => {
    interface Mine {
      readonly role: "user" | "assistant"
      readonly content: string
      readonly at: number
    }
    const m: ReadonlyArray<Mine> = [{ role: "user", content: "hi", at: 1 }, { role: "user", content: "and?", at: 2 }]
    const results = everyResult({
      shiftContext: shiftContext(m, count, BUDGET).kept,
      truncate: strategies.truncate.fit(m, count, BUDGET).kept,
      summarize: strategies.summarize.fit(m, count, BUDGET).kept,
      manual: strategies.manual.fit(m, count, BUDGET).kept,
      vectorRecall: strategies["vector-recall"].fit(m, count, BUDGET).kept,
      fitOrFail: Effect.runSync(fitOrFail(m, count, BUDGET)).kept,
      pruneMessages: pruneMessages(m).messages,
      repairPairs: repairPairs(m).messages,
      planCompaction: planned(planCompaction(m)),
      reduceToBudget: reduceToBudget(m, 10_000).messages,
      capToolResults: capToolResults(m, { overChars: 100, keepChars: 50, marker: "…" }).messages,
      clearOldToolResults: clearOldToolResults(m).messages,
      ensureWithinBudget: Effect.runSync(ensureWithinBudget(m)).messages,
      govern: govern(m).messages,
      recoverUncertainResults: recoverUncertainResults(m).messages,
      compact: compacted(Effect.runSync(Effect.option(compact(m, { reason: "manual", summarize, keepTurns: 1 }))))
    })
    assertEqual<Elements<typeof results>, All<typeof results, Mine>>()
    // The caller's own objects come back (a plan of a short conversation has none to give).
    for (const kept of Object.values(results)) if (kept.length > 0) assert.strictEqual(kept[kept.length - 1], m[1])
    assert.strictEqual(results.shiftContext[results.shiftContext.length - 1], m[1])
    assert.deepStrictEqual(toolGroups(m).groups, [[0], [1]])
  })

  it("data-last forms give back the caller's type too", () => {
    const m: ReadonlyArray<BaseMessage> = [new HumanMessage("hi")]
    const format = formats.langchain
    const results = everyResult({
      shiftContext: pipe(m, shiftContext(count, BUDGET, { format })).kept,
      fitOrFail: Effect.runSync(pipe(m, fitOrFail(count, BUDGET, { format }))).kept,
      pruneMessages: pipe(m, pruneMessages({ format })).messages,
      repairPairs: pipe(m, repairPairs({ format })).messages,
      govern: pipe(m, govern({ format })).messages
    })
    assertEqual<Elements<typeof results>, All<typeof results, BaseMessage>>()
    assert.strictEqual(conversationCost({ format })(m).costs.length, 1)
  })

  it("a generic caller (its own M and MessageFormat<M>) still compiles without casts", () => {
    const generic = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>) => ({
      groups: toolGroups(messages, format).groups,
      kept: strategies.truncate.fit(messages, count, BUDGET, { format }).kept,
      plan: planned(planCompaction(messages, { format })),
      reduced: reduceToBudget(messages, 10_000, { format }).messages,
      capped: capToolResults(messages, { format, overChars: 100, keepChars: 50, marker: "…" }).messages,
      cleared: clearOldToolResults(messages, { format }).messages,
      governed: govern(messages, { format }).messages,
      cost: conversationCost(messages, { format }).total
    })
    // A plugin strategy passing its own options through, with a callback typed from them.
    const toolsFirst: ContextStrategy = {
      id: "tools-first",
      fit: (messages, countTokens, budget, options) =>
        strategies.truncate.fit(messages, countTokens, budget, {
          ...options,
          removalPriority: (group) => group.messages.some((m) => options?.format?.role(m) === "tool") ? 0 : 1
        })
    }
    const m: Array<Message> = [{ role: "user", content: "hi" }]
    assert.strictEqual(toolsFirst.fit(m, count, BUDGET).kept[0], m[0])
    // A format that may be absent (an optional option passed through) is accepted too.
    const maybe = (given?: MessageFormat<Message>): MessageFormat<Message> | undefined => given
    assert.deepStrictEqual(toolGroups(m, maybe()).groups, [[0]])
    assert.deepStrictEqual(toolGroups(m, maybe(formats.canonical)).groups, [[0]])
    const sdk: Array<ModelMessage> = [{ role: "user", content: "hi" }]
    const withCallback = strategies.truncate.fit(sdk, count, BUDGET, {
      format: formats.aiSdk,
      removalPriority: (group) => group.messages.length
    })
    expectTypeOf(withCallback.kept).toEqualTypeOf<ReadonlyArray<ModelMessage>>()
    const out = generic(m, formats.canonical)
    expectTypeOf(out.kept).toEqualTypeOf<ReadonlyArray<Message>>()
    assert.deepStrictEqual(out.groups, [[0]])
    assert.strictEqual(out.governed[0], m[0])
  })
})
