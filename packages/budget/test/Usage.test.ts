import { assert, describe, it } from "@effect/vitest"
import { Response } from "effect/ai"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { promptTokens, readUsage, ReportedUsage } from "./all.ts"
import { nonFiniteNumbers } from "./helpers.ts"

const usage = (
  shape: ReportedUsage["shape"],
  input: number,
  cacheRead: number,
  cacheWrite: number,
  output: number
): ReportedUsage =>
  new ReportedUsage({ input, cacheRead, cacheWrite, output, prompt: input + cacheRead + cacheWrite, shape })

describe("readUsage and promptTokens: input + cache read + cache write, whatever the shape", () => {
  it("OpenAI Chat Completions: prompt_tokens already includes the cached part (never counted twice)", () => {
    assert.deepStrictEqual(
      readUsage({ prompt_tokens: 3_520, completion_tokens: 90, prompt_tokens_details: { cached_tokens: 3_000 } }),
      usage("openai-chat", 520, 3_000, 0, 90)
    )
    // The tutorial's Ollama (OpenAI-compatible) run: 3,725 prompt tokens, 0 cached.
    assert.strictEqual(promptTokens({ prompt_tokens: 3_725, completion_tokens: 8, total_tokens: 3_733 }), 3_725)
    assert.strictEqual(promptTokens({ prompt_tokens: 10, prompt_tokens_details: null }), 10)
  })

  it("OpenAI Responses: input_tokens includes input_tokens_details.cached_tokens", () => {
    assert.deepStrictEqual(
      readUsage({ input_tokens: 3_520, output_tokens: 90, input_tokens_details: { cached_tokens: 3_000 } }),
      usage("openai-responses", 520, 3_000, 0, 90)
    )
  })

  it("Anthropic: cache reads and writes are reported next to input_tokens, and summed", () => {
    assert.deepStrictEqual(
      readUsage({
        input_tokens: 20,
        cache_read_input_tokens: 3_000,
        cache_creation_input_tokens: 500,
        output_tokens: 90
      }),
      usage("anthropic", 20, 3_000, 500, 90)
    )
    assert.strictEqual(promptTokens({ input_tokens: 20, cache_read_input_tokens: null, output_tokens: 1 }), 20)
  })

  it("AI SDK 6: inputTokens is the total, inputTokenDetails splits it", () => {
    assert.deepStrictEqual(
      readUsage({
        inputTokens: 3_520,
        inputTokenDetails: { noCacheTokens: 20, cacheReadTokens: 3_000, cacheWriteTokens: 500 },
        outputTokens: 90,
        outputTokenDetails: { textTokens: 80, reasoningTokens: 10 },
        totalTokens: 3_610,
        cachedInputTokens: 3_000
      }),
      usage("ai-sdk", 20, 3_000, 500, 90)
    )
    assert.strictEqual(
      promptTokens({
        inputTokens: undefined,
        inputTokenDetails: { noCacheTokens: 20, cacheReadTokens: 30, cacheWriteTokens: undefined }
      }),
      50
    )
  })

  it("AI SDK 5: cachedInputTokens is included in inputTokens unless it is larger", () => {
    assert.deepStrictEqual(
      readUsage({ inputTokens: 3_520, outputTokens: 90, totalTokens: 3_610, cachedInputTokens: 3_000 }),
      usage("ai-sdk", 520, 3_000, 0, 90)
    )
    // Anthropic through AI SDK 5 reported the uncached input only: the cached part is added.
    assert.strictEqual(promptTokens({ inputTokens: 20, outputTokens: 90, cachedInputTokens: 3_000 }), 3_020)
  })

  it("effect/ai Response.Usage: inputTokens.total, else uncached + cacheRead + cacheWrite", () => {
    const withTotal = new Response.Usage({
      inputTokens: { uncached: 20, total: 3_520, cacheRead: 3_000, cacheWrite: 500 },
      outputTokens: { total: 90, text: undefined, reasoning: undefined }
    })
    assert.deepStrictEqual(readUsage(withTotal), usage("effect-ai", 20, 3_000, 500, 90))
    const parts = new Response.Usage({
      inputTokens: { uncached: 20, total: undefined, cacheRead: 3_000, cacheWrite: undefined },
      outputTokens: { total: undefined, text: 80, reasoning: 10 }
    })
    assert.deepStrictEqual(readUsage(parts), usage("effect-ai", 20, 3_000, 0, 90))
  })

  it("Ollama native, Gemini, and flat records with separate cache fields", () => {
    assert.deepStrictEqual(readUsage({ prompt_eval_count: 3_725, eval_count: 8 }), usage("ollama", 3_725, 0, 0, 8))
    assert.deepStrictEqual(
      readUsage({
        promptTokenCount: 3_520,
        cachedContentTokenCount: 3_000,
        candidatesTokenCount: 80,
        thoughtsTokenCount: 10
      }),
      usage("gemini", 520, 3_000, 0, 90)
    )
    assert.deepStrictEqual(
      readUsage({ inputTokens: 20, outputTokens: 90, cacheReadInputTokens: 3_000, cacheWriteInputTokens: 500 }),
      usage("separate-cache", 20, 3_000, 500, 90)
    )
    // The tutorial's own normalized usage.
    assert.strictEqual(promptTokens({ inputTokens: 20, cacheReadTokens: 3_000, cacheWriteTokens: 500 }), 3_520)
  })

  it("reads through a response object carrying usage or usageMetadata", () => {
    assert.strictEqual(promptTokens({ id: "chatcmpl-1", choices: [], usage: { prompt_tokens: 42 } }), 42)
    assert.strictEqual(promptTokens({ candidates: [], usageMetadata: { promptTokenCount: 7 } }), 7)
  })

  it("no usage, or garbage, is the all-zero `none` usage (which never calibrates)", () => {
    const none = usage("none", 0, 0, 0, 0)
    for (
      const value of [
        undefined,
        null,
        0,
        "12",
        [],
        {},
        { prompt_tokens: -1 },
        { prompt_tokens: Number.NaN },
        {
          prompt_tokens: "12"
        },
        { input_tokens: Infinity },
        { usage: null }
      ]
    ) {
      assert.deepStrictEqual(readUsage(value), none, JSON.stringify(value))
    }
  })

  it("never returns a non-finite number and prompt = input + cacheRead + cacheWrite, for anything", () => {
    const count = fc.oneof(fc.nat(1_000_000), fc.constant(null), fc.constant(undefined), fc.double())
    const record = fc.record(
      {
        prompt_tokens: count,
        completion_tokens: count,
        input_tokens: count,
        output_tokens: count,
        cache_read_input_tokens: count,
        cache_creation_input_tokens: count,
        inputTokens: fc.oneof(count, fc.record({ total: count, uncached: count, cacheRead: count })),
        cachedInputTokens: count,
        prompt_tokens_details: fc.oneof(fc.constant(null), fc.record({ cached_tokens: count }))
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(fc.oneof(record, fc.anything()), (value) => {
        const read = readUsage(value)
        assert.deepStrictEqual(nonFiniteNumbers(read), [])
        assert.strictEqual(read.prompt, read.input + read.cacheRead + read.cacheWrite)
        assert.isTrue(read.input >= 0 && read.cacheRead >= 0 && read.cacheWrite >= 0 && read.output >= 0)
      }),
      { numRuns: runs.most }
    )
  })
})
