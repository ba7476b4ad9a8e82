/**
 * The scripted Ollama-like server over real HTTP on 127.0.0.1: what it keeps, what it reports, and its wire shapes.
 */
import { approximateCounter } from "@ctxkit/budget"
import {
  COLLAPSE_PROMPT_TOKENS,
  type RunningServer,
  serverTokens,
  startOllamaLikeServer,
  type WireMessage
} from "@ctxkit/testing/OllamaLikeServer"
import { keysReply, tutorialConversation, tutorialKeys, tutorialServer } from "@ctxkit/testing/Tutorial"
import { afterEach, assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

// Tests in a file run concurrently here, so each test closes the servers it started (no shared afterEach).
const open = new WeakMap<object, Array<RunningServer>>()
const start = async (context: object, options: Parameters<typeof startOllamaLikeServer>[0]) => {
  const server = await startOllamaLikeServer(options)
  const list = open.get(context) ?? []
  list.push(server)
  open.set(context, list)
  return server
}
afterEach(async (context) => {
  await Promise.all((open.get(context.task) ?? []).map((server) => server.close()))
})

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
}

// Sizes by a tokenizer that counts characters, and no template: easy to reason about.
const chars = { tokenizer: (text: string) => text.length, templateTokens: 0 }
const prompt: ReadonlyArray<WireMessage> = [
  { role: "system", content: "s".repeat(20) },
  { role: "user", content: "t".repeat(30) },
  { role: "assistant", content: "a".repeat(16) },
  { role: "user", content: "u".repeat(40) }
]

describe("the Ollama-like server", () => {
  it("answers a prompt that fits with its whole size and sends the reply script everything", async ({ task }) => {
    let seen = 0
    const server = await start(task, {
      ...chars,
      window: 1_000,
      reply: (kept) => ({ content: `saw ${(seen = kept.length)}` })
    })
    const { status, text } = await post(`${server.baseUrl}/v1/chat/completions`, { model: "m", messages: prompt })
    const body = JSON.parse(text)
    assert.strictEqual(status, 200)
    assert.strictEqual(body.usage.prompt_tokens, 106)
    assert.strictEqual(body.choices[0].message.content, "saw 4")
    assert.strictEqual(body.choices[0].finish_reason, "stop")
    assert.strictEqual(seen, 4)
    assert.deepStrictEqual(server.requests[0], {
      path: "/v1/chat/completions",
      received: 4,
      kept: 4,
      promptTokens: 106,
      trueTokens: 106,
      truncated: false,
      maxTokens: undefined
    })
  })

  it("plateau: drops the oldest non-system messages until it fits, keeps the latest, reports what it kept", async ({ task }) => {
    const kept: Array<ReadonlyArray<WireMessage>> = []
    const server = await start(task, { ...chars, window: 80, reply: (k) => (kept.push(k), { content: "ok" }) })
    const body = JSON.parse(
      (await post(`${server.baseUrl}/v1/chat/completions`, { model: "m", messages: prompt, max_tokens: 32 })).text
    )
    // 20 + 30 + 16 + 40 = 106 > 80: the task (30) goes, 76 remains.
    assert.strictEqual(body.usage.prompt_tokens, 76)
    assert.deepStrictEqual(kept[0]!.map((m) => m.role), ["system", "assistant", "user"])
    assert.strictEqual(server.requests[0]!.truncated, true)
    assert.strictEqual(server.requests[0]!.maxTokens, 32)
  })

  it("collapse reports 63 tokens; honest never truncates", async ({ task }) => {
    const collapse = await start(task, { ...chars, window: 80, mode: "collapse" })
    const honest = await start(task, { ...chars, window: 80, mode: "honest" })
    const a = JSON.parse((await post(`${collapse.baseUrl}/v1/chat/completions`, { messages: prompt })).text)
    const b = JSON.parse((await post(`${honest.baseUrl}/v1/chat/completions`, { messages: prompt })).text)
    assert.strictEqual(a.usage.prompt_tokens, COLLAPSE_PROMPT_TOKENS)
    assert.strictEqual(b.usage.prompt_tokens, 106)
    assert.strictEqual(honest.requests[0]!.truncated, false)
  })

  it("plateau law: the system messages and the latest message always stay, the report never exceeds the window, and the kept ones are a suffix of the rest", async ({ task }) => {
    const server = await start(task, { ...chars, window: 200, reply: (kept) => ({ content: JSON.stringify(kept) }) })
    const message = fc.record({
      role: fc.constantFrom("system", "user", "assistant"),
      content: fc.string({ minLength: 0, maxLength: 120 })
    })
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 12 }), async (messages) => {
        const body = JSON.parse((await post(`${server.baseUrl}/v1/chat/completions`, { messages })).text)
        const kept: Array<WireMessage> = JSON.parse(body.choices[0].message.content)
        const total = messages.reduce((sum, m) => sum + m.content.length, 0)
        assert.isAtMost(body.usage.prompt_tokens, Math.max(200, total > 200 ? 200 : total))
        assert.deepStrictEqual(kept.at(-1), messages.at(-1))
        const systems = messages.slice(0, -1).filter((m) => m.role === "system")
        assert.deepStrictEqual(kept.slice(0, -1).filter((m) => m.role === "system"), systems)
        const others = messages.slice(0, -1).filter((m) => m.role !== "system")
        const keptOthers = kept.slice(0, -1).filter((m) => m.role !== "system")
        assert.deepStrictEqual(keptOthers, others.slice(others.length - keptOthers.length))
        if (total <= 200) assert.strictEqual(kept.length, messages.length)
      }),
      { numRuns: runs.few }
    )
  })

  it("speaks tool calls in the OpenAI shape, streamed or not, with usage in the last chunk when asked", async ({ task }) => {
    const server = await start(task, {
      window: 4_096,
      reply: () => ({
        content: "Reading.",
        toolCalls: [{ id: "call_7", name: "read_file", arguments: { path: "a.ts" } }]
      })
    })
    const plain = JSON.parse((await post(`${server.baseUrl}/v1/chat/completions`, { messages: prompt })).text)
    assert.strictEqual(plain.choices[0].finish_reason, "tool_calls")
    assert.deepStrictEqual(plain.choices[0].message.tool_calls, [
      { id: "call_7", type: "function", function: { name: "read_file", arguments: "{\"path\":\"a.ts\"}" } }
    ])
    const streamed = await post(`${server.baseUrl}/v1/chat/completions`, {
      messages: prompt,
      stream: true,
      stream_options: { include_usage: true }
    })
    assert.strictEqual(streamed.type, "text/event-stream")
    const events = streamed.text.split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => e.slice(6))
    assert.strictEqual(events.at(-1), "[DONE]")
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e))
    assert.strictEqual(chunks.at(-1).choices[0].finish_reason, "tool_calls")
    assert.strictEqual(chunks.at(-1).usage.prompt_tokens, plain.usage.prompt_tokens)
    assert.strictEqual(chunks[1].choices[0].delta.tool_calls[0].function.name, "read_file")
  })

  it("answers Ollama's own endpoints: /api/chat (NDJSON or not), /api/ps, /api/show with num_ctx, /api/tags, /v1/models", async ({ task }) => {
    const server = await start(task, { window: 2_048, model: "qwen2.5:3b" })
    const streamed = await post(`${server.baseUrl}/api/chat`, { model: "qwen2.5:3b", messages: prompt })
    assert.strictEqual(streamed.type, "application/x-ndjson")
    const last = JSON.parse(streamed.text.trim().split("\n").at(-1)!)
    assert.strictEqual(last.done, true)
    assert.strictEqual(last.prompt_eval_count, server.requests[0]!.promptTokens)
    const plain = JSON.parse((await post(`${server.baseUrl}/api/chat`, { messages: prompt, stream: false })).text)
    assert.strictEqual(plain.message.role, "assistant")
    const ps = JSON.parse(await (await fetch(`${server.baseUrl}/api/ps`)).text())
    assert.strictEqual(ps.models[0].context_length, 2_048)
    const show = JSON.parse((await post(`${server.baseUrl}/api/show`, { model: "qwen2.5:3b" })).text)
    assert.match(show.parameters, /^num_ctx\s+2048$/m)
    const models = JSON.parse(await (await fetch(`${server.baseUrl}/v1/models`)).text())
    assert.strictEqual(models.data[0].id, "qwen2.5:3b")
    assert.strictEqual((await fetch(`${server.baseUrl}/nope`)).status, 404)
    assert.strictEqual((await post(`${server.baseUrl}/v1/chat/completions`, "{")).status, 400)
  })

  it("refuses a body that is not a JSON object with HTTP 400", async ({ task }) => {
    const server = await start(task, {})
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, { method: "POST", body: "not json" })
    assert.strictEqual(response.status, 400)
    assert.strictEqual(server.requests.length, 0)
  })

  it("its default tokenizer stays between 1.00 and 1.48 times characters / 4", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const base = Math.ceil(text.length / 4)
        const tokens = serverTokens(text)
        assert.isAtLeast(tokens, base)
        assert.isAtMost(tokens, Math.ceil(base * 1.48))
      })
    )
  })
})

describe("the tutorial's conversation", () => {
  it("is the system prompt and 27 messages, about 6,204 estimated tokens", () => {
    assert.strictEqual(tutorialConversation.length - 1, 27)
    const estimate = tutorialConversation.reduce(
      (sum, m) => sum + approximateCounter.count(m.content as string) + 4,
      0
    )
    assert.strictEqual(estimate, 6_204)
    assert.isTrue(Object.isFrozen(tutorialConversation) && Object.isFrozen(tutorialConversation[0]))
  })

  it("through the tutorial's server: 3,725 prompt tokens reported, the task dropped, a confident answer without it", async ({ task }) => {
    const server = await start(task, tutorialServer)
    const body = JSON.parse(
      (await post(`${server.baseUrl}/v1/chat/completions`, { model: server.model, messages: tutorialConversation }))
        .text
    )
    assert.strictEqual(body.usage.prompt_tokens, 3_725)
    assert.strictEqual(body.choices[0].message.content, tutorialKeys.system)
    assert.strictEqual(server.requests[0]!.truncated, true)
    assert.isAbove(server.requests[0]!.trueTokens, 6_204)
  })

  it("a server with room for it answers with both keys", async ({ task }) => {
    const server = await start(task, { ...tutorialServer, window: 16_384 })
    const body = JSON.parse(
      (await post(`${server.baseUrl}/v1/chat/completions`, { messages: tutorialConversation })).text
    )
    assert.strictEqual(body.choices[0].message.content, `${tutorialKeys.task} ${tutorialKeys.system}`)
    assert.deepStrictEqual(keysReply([{ role: "user", content: "hello" }]), { content: "Understood." })
  })
})
