/**
 * The generators produce the real-traffic shapes of issue 11 that `formats.auto` once misread: Anthropic API
 * response objects (with and without tool_use) and AI SDK assistant messages whose only parts are reasoning and
 * text — so every law run on `conversation("anthropic")` or `conversation("aiSdk")` covers them.
 */
import { conversation } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const sample = (name: "anthropic" | "aiSdk") =>
  fc.sample(conversation(name, { huge: false }), { numRuns: 200, seed: 11 }).flatMap((r) => r.messages)

const record = (m: unknown): Readonly<Record<string, unknown>> =>
  typeof m === "object" && m !== null ? m as Readonly<Record<string, unknown>> : {}
const partTypes = (m: unknown): Array<unknown> => {
  const content = record(m)["content"]
  return Array.isArray(content) ? content.map((part) => record(part)["type"]) : []
}

describe("generated real-traffic shapes", () => {
  it("Anthropic: assistant turns stored as API response objects, some issuing tool_use", () => {
    const objects = sample("anthropic").filter((m) => record(m)["type"] === "message")
    assert.isAbove(objects.length, 0)
    for (const m of objects) {
      assert.strictEqual(record(m)["role"], "assistant")
      assert.isTrue(["model", "stop_reason", "usage", "id"].every((key) => key in record(m)))
    }
    assert.isTrue(objects.some((m) => partTypes(m).includes("tool_use")))
    assert.isTrue(objects.some((m) => !partTypes(m).includes("tool_use")))
  })

  it("AI SDK: assistant messages of reasoning and text only, and of reasoning alone", () => {
    const assistants = sample("aiSdk").filter((m) => record(m)["role"] === "assistant")
    const only = (types: ReadonlyArray<string>) =>
      assistants.some((m) => JSON.stringify(partTypes(m)) === JSON.stringify(types))
    assert.isTrue(only(["reasoning", "text"]))
    assert.isTrue(only(["reasoning"]))
  })
})
