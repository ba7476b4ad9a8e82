import { contextPrepareStep, type StepFit } from "@ctxkit/ai-sdk"
import { AiSdkOptionAdjusted } from "@ctxkit/ai-sdk/Diagnostics"
import { InvalidAiSdkOption } from "@ctxkit/ai-sdk/Errors"
import { approximateCounter, available, conversationCost, reserve } from "@ctxkit/budget"
import { formats, TokenBudgetExceeded } from "@ctxkit/core"
import { strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import { generateText, isStepCount, type ModelMessage, simulateReadableStream, streamText, tool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { z } from "zod"
import { type ModelPrompt, pairProblems, promptPairProblems, promptText } from "./checks.ts"

type Content = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>["content"]

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}

/** A mock model that answers each call with the next scripted content (tool calls, then text). */
const scripted = (replies: ReadonlyArray<Content>): MockLanguageModelV4 => {
  let next = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const content = replies[Math.min(next++, replies.length - 1)] ?? []
      const calls = content.some((part) => part.type === "tool-call")
      return {
        content,
        finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
        usage,
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

const INSTRUCTIONS = "You are a careful coding agent. Read before you write."
const REQUEST = "Now read src/b.ts and tell me what it exports."

/** An earlier session: long turns, reasoning, tool calls with their results, and an approved, executed call. */
const history: ReadonlyArray<ModelMessage> = [
  { role: "user", content: "Look at the repository layout. ".repeat(100) },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "I should list the folder first. ".repeat(20) },
      { type: "tool-call", toolCallId: "old-1", toolName: "list", input: { dir: "." } }
    ]
  },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "old-1",
      toolName: "list",
      output: { type: "text", value: "src/\n".repeat(200) }
    }]
  },
  { role: "assistant", content: "The repository has a src folder with many files. ".repeat(20) },
  { role: "user", content: "Remove the build folder. ".repeat(30) },
  {
    role: "assistant",
    content: [
      { type: "tool-call", toolCallId: "old-2", toolName: "remove", input: { path: "build" } },
      { type: "tool-approval-request", approvalId: "ap-old", toolCallId: "old-2" }
    ]
  },
  { role: "tool", content: [{ type: "tool-approval-response", approvalId: "ap-old", approved: true }] },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "old-2",
      toolName: "remove",
      output: { type: "text", value: "removed build/" }
    }]
  },
  { role: "assistant", content: "Removed. ".repeat(40) },
  { role: "user", content: REQUEST }
]

const cost = (messages: ReadonlyArray<unknown>): number =>
  conversationCost(messages, { counter: approximateCounter, format: formats.aiSdk }).total

/** What each step's prompt, as the mock received it, costs with the same counter. */
const promptCost = (prompt: ModelPrompt): number => cost(prompt)

const readFile = tool({
  description: "Read a file",
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\n` + "export const value = 1\n".repeat(60)
})

describe("contextPrepareStep through generateText (ai 7, MockLanguageModelV4)", () => {
  it("every step's prompt fits the budget, keeps the instructions and the request, and never splits a pair", async () => {
    const model = scripted([
      [call("c1", "readFile", { path: "src/b.ts" })],
      [call("c2", "readFile", { path: "src/a.ts" }), call("c3", "readFile", { path: "src/c.ts" })],
      [call("c4", "readFile", { path: "src/d.ts" })],
      [{ type: "text", text: "b.ts exports value." }]
    ])
    const window = 2_048
    const fits: Array<StepFit> = []
    const prepareStep = contextPrepareStep({ window, maxTokens: 512, onFit: (fit) => fits.push(fit) })
    const before = JSON.stringify(history)
    const result = await generateText({
      model,
      instructions: INSTRUCTIONS,
      messages: [...history],
      tools: { readFile },
      stopWhen: isStepCount(6),
      prepareStep
    })
    const budget = available(window, 512)
    assert.strictEqual(result.text, "b.ts exports value.")
    assert.strictEqual(model.doGenerateCalls.length, 4)
    assert.strictEqual(fits.length, 4)
    // The whole history costs more than the budget: fitting had work to do from the first step.
    assert.isAbove(cost(history) + cost([{ role: "system", content: INSTRUCTIONS }]), budget)
    for (const [step, sent] of model.doGenerateCalls.entries()) {
      assert.isAtMost(promptCost(sent.prompt), budget, `step ${step} fits`)
      assert.deepStrictEqual(promptPairProblems(sent.prompt), [], `step ${step} pairs`)
      assert.deepStrictEqual(sent.prompt[0], { role: "system", content: INSTRUCTIONS })
      assert.isTrue(sent.prompt.some((m) => m.role === "user" && promptText(m) === REQUEST), `step ${step} request`)
      assert.strictEqual(sent.maxOutputTokens, reserve(window, 512))
      const fit = fits[step]!
      assert.isTrue(fit.fits)
      assert.strictEqual(fit.stepNumber, step)
      assert.strictEqual(fit.budget, budget)
      assert.isAtMost(fit.tokens, budget)
      assert.deepStrictEqual(pairProblems([...history], fit.fit.kept), [])
    }
    assert.isAbove(fits[0]!.fit.excluded.length, 0, "the first step already dropped old turns")
    // The last step saw the results of every call the model made in this run.
    const last = model.doGenerateCalls[3]!.prompt
    const resultIds = last.flatMap((m) =>
      m.role === "tool" ? m.content.map((p) => p.type === "tool-result" ? p.toolCallId : "") : []
    )
    assert.includeMembers(resultIds, ["c4"])
    assert.strictEqual(JSON.stringify(history), before, "the caller's messages are not mutated")
    assert.strictEqual(prepareStep.lastFit, fits[3])
  })

  it("an approved tool still runs after approval, and its request, response and result travel together", async () => {
    let removed: Array<string> = []
    const remove = tool({
      description: "Remove a path",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        removed = [...removed, path]
        return `removed ${path}`
      }
    })
    const tools = { readFile, remove }
    const budget = 1_000
    const fits: Array<StepFit> = []
    const prepareStep = contextPrepareStep({ budget, onFit: (fit) => fits.push(fit) })

    // First call: the model asks to remove a file; the SDK stops for approval.
    const first = await generateText({
      model: scripted([[call("rm-1", "remove", { path: "dist" })]]),
      instructions: INSTRUCTIONS,
      messages: [...history.slice(0, -1), { role: "user", content: "Remove dist." }],
      tools,
      prepareStep
    })
    const request = first.content.find((part) => part.type === "tool-approval-request")
    assert.isDefined(request)
    if (request?.type !== "tool-approval-request") return
    assert.deepStrictEqual(removed, [], "nothing runs before approval")

    // Second call: the user approves; the SDK runs the tool, then the model answers.
    const model = scripted([[{ type: "text", text: "dist is gone." }]])
    const conversation: Array<ModelMessage> = [
      ...history.slice(0, -1),
      { role: "user", content: "Remove dist." },
      ...first.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] }
    ]
    const second = await generateText({ model, instructions: INSTRUCTIONS, messages: conversation, tools, prepareStep })
    assert.deepStrictEqual(removed, ["dist"], "the approved tool ran")
    assert.strictEqual(second.text, "dist is gone.")
    const sent = model.doGenerateCalls[0]!.prompt
    assert.isAtMost(promptCost(sent), budget)
    assert.deepStrictEqual(promptPairProblems(sent), [])
    const answered = sent.some((m) =>
      m.role === "tool" && m.content.some((p) => p.type === "tool-result" && p.toolCallId === "rm-1")
    )
    assert.isTrue(answered, "the model received the approved call with its result")
    const kept = fits.at(-1)!.fit.kept
    assert.isAbove(fits.at(-1)!.fit.excluded.length, 0, "old turns were dropped to fit")
    assert.deepStrictEqual(pairProblems(conversation, kept), [], "approval request, response, call and result together")
    assert.isTrue(
      kept.some((m) =>
        m.role === "tool" && typeof m.content !== "string" &&
        m.content.some((p) => p.type === "tool-approval-response" && p.approvalId === request.approvalId)
      )
    )
    // The old approved call went whole or stayed whole.
    const oldParts = kept.flatMap((m): ReadonlyArray<object> => typeof m.content === "string" ? [] : m.content)
      .filter((p) =>
        ("toolCallId" in p && p.toolCallId === "old-2") || ("approvalId" in p && p.approvalId === "ap-old")
      )
    assert.include([0, 4], oldParts.length)
  })

  it("the deprecated system option is counted as the instructions", async () => {
    const model = scripted([[{ type: "text", text: "ok" }]])
    const prepareStep = contextPrepareStep({ budget: 800 })
    await generateText({ model, system: INSTRUCTIONS, messages: [...history], prepareStep })
    assert.strictEqual(prepareStep.lastFit!.instructionTokens, cost([{ role: "system", content: INSTRUCTIONS }]))
    assert.isAtMost(promptCost(model.doGenerateCalls[0]!.prompt), 800)
  })

  it("refuses with TokenBudgetExceeded when the instructions and the request alone do not fit: nothing is sent", async () => {
    const model = scripted([[{ type: "text", text: "never" }]])
    const fits: Array<StepFit> = []
    const error = await generateText({
      model,
      instructions: "Rules. ".repeat(400),
      messages: [...history],
      prepareStep: contextPrepareStep({ budget: 500, onFit: (fit) => fits.push(fit) })
    }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, TokenBudgetExceeded)
    if (!(error instanceof TokenBudgetExceeded)) return
    assert.strictEqual(error.code, "TOKEN_BUDGET_EXCEEDED")
    assert.strictEqual(error.contextLimit, 500)
    assert.strictEqual(error.reservedForReply, 0)
    assert.strictEqual(error.promptTokens, fits[0]!.tokens)
    assert.isAbove(error.promptTokens, 500)
    assert.isFalse(fits[0]!.fits)
    assert.strictEqual(model.doGenerateCalls.length, 0, "no prompt reached the model")
  })

  it("with a window, the refusal reports the window and the reserve", async () => {
    const error = await contextPrepareStep({ window: 1_000, maxTokens: 100 })({
      stepNumber: 0,
      instructions: "x".repeat(8_000),
      messages: [{ role: "user", content: "hi" }]
    }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, TokenBudgetExceeded)
    if (!(error instanceof TokenBudgetExceeded)) return
    assert.strictEqual(error.contextLimit, 1_000)
    assert.strictEqual(error.reservedForReply, 100)
  })

  it("bad budgets and windows (0, negative, NaN, Infinity, both, neither) refuse every step with InvalidAiSdkOption", async () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ budget: 0 }, "budget"],
      [{ budget: -5 }, "budget"],
      [{ budget: Number.NaN }, "budget"],
      [{ budget: Number.POSITIVE_INFINITY }, "budget"],
      [{ budget: "4000" }, "budget"],
      [{ window: 0 }, "window"],
      [{ window: Number.NaN }, "window"],
      [{ window: 3_000_000 }, "window"],
      [{ window: 8_192, budget: 4_000 }, "budget | window"],
      [{}, "budget | window"],
      [null, "budget | window"]
    ]
    for (const [options, option] of cases) {
      const model = scripted([[{ type: "text", text: "never" }]])
      const error = await generateText({
        model,
        messages: [{ role: "user", content: "hi" }],
        prepareStep: contextPrepareStep(options as never)
      }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, InvalidAiSdkOption, JSON.stringify(options))
      if (!(error instanceof InvalidAiSdkOption)) return
      assert.strictEqual(error.option, option)
      assert.include(error.message, "Set it to")
      assert.strictEqual(model.doGenerateCalls.length, 0)
    }
  })

  it("options with a default (counter, strategy, maxTokens, onFit) fall back to it and say so", async () => {
    const prepareStep = contextPrepareStep({
      window: 8_192,
      maxTokens: -1,
      counter: 42 as never,
      strategy: "shift" as never,
      onFit: "log" as never
    })
    const model = scripted([[{ type: "text", text: "ok" }]])
    await generateText({ model, messages: [...history], prepareStep })
    const fit = prepareStep.lastFit!
    const adjusted = fit.diagnostics.filter((d) => d instanceof AiSdkOptionAdjusted)
    assert.deepStrictEqual(adjusted.map((d) => d.option), ["counter", "strategy", "maxTokens", "onFit"])
    assert.include(adjusted[1]!.message, "Option strategy = \"shift\" cannot be used; used truncate instead.")
    // The defaults were used: a quarter of the window is the reply reserve, the approximate counter counted.
    assert.strictEqual(model.doGenerateCalls[0]!.maxOutputTokens, 2_048)
    assert.strictEqual(fit.budget, 8_192 - 2_048)
    assert.strictEqual(fit.tokens, cost(fit.fit.kept))
  })

  it("the summarize strategy inserts its summary before the request, within the budget", async () => {
    const model = scripted([[{ type: "text", text: "ok" }]])
    const prepareStep = contextPrepareStep({ budget: 1_200, strategy: "summarize" })
    await generateText({ model, instructions: INSTRUCTIONS, messages: [...history], prepareStep })
    const fit = prepareStep.lastFit!
    assert.isTrue(fit.fit.summaryCreated)
    const sent = model.doGenerateCalls[0]!.prompt
    assert.isAtMost(promptCost(sent), 1_200)
    const at = sent.findIndex((m) => m.role === "user" && promptText(m).startsWith("[Summary of earlier context]"))
    assert.isAbove(at, 0)
    assert.strictEqual(promptText(sent[at + 1]!), REQUEST)
  })

  it("a strategy that throws falls back to truncate; one that keeps too much is recounted and refused", async () => {
    const throwing = {
      id: "boom",
      fit: () => {
        throw new Error("no")
      }
    }
    const step = contextPrepareStep({ budget: 1_000, strategy: throwing })
    const out = await step({ stepNumber: 0, messages: [...history] })
    assert.isAtMost(cost(out.messages), 1_000)
    assert.isTrue(step.lastFit!.diagnostics.some((d) => d instanceof AiSdkOptionAdjusted && d.option === "strategy"))

    const greedy = {
      id: "greedy",
      fit: <M>(
        messages: ReadonlyArray<M>,
        countTokens: Parameters<typeof strategies.truncate.fit>[1],
        budget: number
      ) => ({
        // Keeps everything and claims it costs 1 token.
        ...strategies.truncate.fit(messages, countTokens, 1_000_000),
        tokens: 1,
        budget
      })
    }
    const model = scripted([[{ type: "text", text: "never" }]])
    const error = await generateText({
      model,
      messages: [...history],
      prepareStep: contextPrepareStep({ budget: 1_000, strategy: greedy })
    }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, TokenBudgetExceeded)
    assert.strictEqual(model.doGenerateCalls.length, 0)
  })

  it("counts each message once across steps (counts cached by identity)", async () => {
    const counted: Array<string> = []
    const counter = (text: string) => {
      counted.push(text)
      return Math.ceil(text.length / 4)
    }
    const model = scripted([
      [call("c1", "readFile", { path: "a.ts" })],
      [call("c2", "readFile", { path: "b.ts" })],
      [call("c3", "readFile", { path: "c.ts" })],
      [{ type: "text", text: "done" }]
    ])
    await generateText({
      model,
      instructions: INSTRUCTIONS,
      messages: [...history],
      tools: { readFile },
      stopWhen: isStepCount(6),
      prepareStep: contextPrepareStep({ budget: 3_000, counter })
    })
    // history (10) + instructions (1) + 3 assistant calls + 3 tool results: each counted at most once.
    assert.isAtMost(counted.length, history.length + 1 + 6)
    assert.strictEqual(new Set(counted).size, counted.length)
  })
})

describe("contextPrepareStep through streamText", () => {
  const streaming = (text: string): MockLanguageModelV4 =>
    new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: text },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage }
          ]
        })
      })
    })

  it("streams a fitted prompt: within the budget, the instructions and the request kept", async () => {
    const model = streaming("b.ts exports value.")
    const result = streamText({
      model,
      instructions: INSTRUCTIONS,
      messages: [...history],
      prepareStep: contextPrepareStep({ budget: 800 })
    })
    assert.strictEqual(await result.text, "b.ts exports value.")
    const sent = model.doStreamCalls[0]!.prompt
    assert.isAtMost(promptCost(sent), 800)
    assert.deepStrictEqual(sent[0], { role: "system", content: INSTRUCTIONS })
    assert.strictEqual(promptText(sent.at(-1)!), REQUEST)
  })

  it("a refusal reaches onError and nothing is streamed from the model", async () => {
    const model = streaming("never")
    const errors: Array<unknown> = []
    const result = streamText({
      model,
      instructions: "Rules. ".repeat(400),
      messages: [...history],
      prepareStep: contextPrepareStep({ budget: 500 }),
      onError: ({ error }) => {
        errors.push(error)
      }
    })
    await result.consumeStream()
    assert.strictEqual(model.doStreamCalls.length, 0)
    assert.strictEqual(errors.length, 1)
    assert.instanceOf(errors[0], TokenBudgetExceeded)
  })
})

describe("contextPrepareStep, direct calls", () => {
  it("the TSDoc example: the long old question goes, the request stays, the reserve is sent", async () => {
    const prepareStep = contextPrepareStep({ window: 8_192, maxTokens: 1_024 })
    const messages: Array<ModelMessage> = [
      { role: "user", content: "Summarize the log. ".repeat(4_000) },
      { role: "assistant", content: "Done." },
      { role: "user", content: "Now list the files." }
    ]
    const step = await prepareStep({ stepNumber: 0, instructions: "You are a coding agent.", messages })
    assert.deepStrictEqual(step.messages, [messages[1], messages[2]])
    assert.strictEqual(step.messages[1], messages[2])
    assert.strictEqual(step.maxOutputTokens, 1_024)
    assert.strictEqual(prepareStep.lastFit?.fit.excluded[0]?.message, messages[0])
    assert.strictEqual(prepareStep.lastFit?.fit.excluded[0]?.reason, "context-shift")
    assert.strictEqual(messages.length, 3, "the input array is not changed")
  })

  it("instructions given as system messages are counted as such; a budget alone sends no maxOutputTokens", async () => {
    const system = [
      { role: "system" as const, content: "You are terse. ".repeat(50) },
      { role: "system" as const, content: "Never delete files." }
    ]
    const prepareStep = contextPrepareStep({ budget: 2_000 })
    const step = await prepareStep({ stepNumber: 3, instructions: system, messages: [{ role: "user", content: "hi" }] })
    const fit = prepareStep.lastFit!
    assert.strictEqual(fit.stepNumber, 3)
    assert.strictEqual(fit.instructionTokens, cost(system))
    assert.strictEqual(fit.tokens, cost(system) + cost(step.messages))
    assert.isFalse("maxOutputTokens" in step)
    const single = contextPrepareStep({ budget: 2_000 })
    await single({ instructions: system[0], messages: [{ role: "user", content: "hi" }] })
    assert.strictEqual(single.lastFit!.instructionTokens, cost([system[0]]))
    assert.strictEqual(single.lastFit!.stepNumber, 0)
  })

  it("a counter that throws falls back to the approximate count and says so; a step without messages is refused", async () => {
    const throwing = {
      id: "broken",
      approximate: false,
      count: (): number => {
        throw new Error("vocabulary missing")
      }
    }
    const prepareStep = contextPrepareStep({ budget: 1_000, counter: throwing })
    const step = await prepareStep({ stepNumber: 0, instructions: INSTRUCTIONS, messages: [...history] })
    assert.isAtMost(cost(step.messages) + cost([{ role: "system", content: INSTRUCTIONS }]), 1_000)
    assert.isTrue(prepareStep.lastFit!.diagnostics.some((d) => d._tag === "CounterFailed"))

    for (const bad of [{ stepNumber: 0 }, { messages: "hi" }, null]) {
      const error = await prepareStep(bad as never).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, InvalidAiSdkOption)
      if (error instanceof InvalidAiSdkOption) assert.strictEqual(error.option, "messages")
    }
  })
})
