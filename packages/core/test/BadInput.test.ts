import { decodeConversation, formats, type MessageFormat, repairPairs, toolGroups } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const allFormats = Object.values(formats) as ReadonlyArray<MessageFormat<unknown>>

// Values that break naive readers: wrong types where strings are expected, cycles, deep nesting, hostile text.
const cyclic: Record<string, unknown> = { role: "assistant", content: "loop" }
cyclic["self"] = cyclic
cyclic["tool_calls"] = [cyclic]
const hostile: ReadonlyArray<unknown> = [
  null,
  undefined,
  0,
  Number.NaN,
  "plain string",
  [],
  {},
  { role: 42, content: { not: "content" } },
  { role: "tool", toolCallId: 7, tool_call_id: [], call_id: {}, content: null },
  { role: "assistant", toolCalls: "nope", tool_calls: [null, 1, { id: 5 }], content: [null, 3, { type: 9 }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: null, content: [[[]]] }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: {}, input: undefined }] },
  { type: "function_call", call_id: null, arguments: 3 },
  { lc: 1, type: "constructor", id: "not-an-array", kwargs: null },
  { type: "ai", data: "nope" },
  { role: "user", content: "\uD83D lone \uDE00 e\u0301\u0301 \u0000 nul" },
  cyclic
]

describe("every lens is total on hostile values", () => {
  for (const format of allFormats) {
    it(`${format.name}: no method throws, on fixed and on arbitrary values`, () => {
      const exercise = (m: unknown) => {
        format.role(m)
        format.links(m)
        format.forEachLink(m, () => undefined)
        format.toolCalls(m)
        format.toolResults(m)
        format.attachesToNext(m)
        format.isPinned(m)
        format.isProtected(m)
        format.isSummary(m)
        format.source(m)
        format.id(m)
        format.meta(m)
        assert.isString(format.text(m))
        format.withText(m, "x")
        format.withResultText(m, "id", "x")
        format.withoutToolParts(m, new Set(["id", "5"]))
        format.makeToolResults(m, [{ id: "c", name: "n", arguments: "{}" }], "x", { isError: true })
        format.validate(m, "messages[0]")
      }
      for (const m of hostile) assert.doesNotThrow(() => exercise(m))
      fc.assert(
        fc.property(fc.anything({ maxDepth: 4, withNullPrototype: true, withBigInt: true }), (m) => {
          exercise(m)
        }),
        { numRuns: runs.many }
      )
    })
  }
})

describe("public functions on hostile conversations", () => {
  it("toolGroups, repairPairs and decodeConversation never throw and never mutate", () => {
    const frozen = deepFreeze([...hostile])
    for (const format of allFormats) {
      assert.strictEqual(toolGroups(frozen, format).groupOf.length, frozen.length)
      const repaired = repairPairs(frozen, { format })
      assert.isArray(repaired.messages)
      const decoded = decodeConversation(frozen, { format })
      assert.isTrue(Result.isFailure(decoded), format.name)
      if (Result.isFailure(decoded)) assert.isAbove(decoded.failure.issues.length, 0)
    }
  })

  it("non-array input gives empty groups, an empty repair and a typed decoding error", () => {
    for (const input of [null, undefined, 42, "[]x", { messages: 3 }]) {
      assert.deepStrictEqual(toolGroups(input as unknown as ReadonlyArray<unknown>).groups, [])
      assert.isTrue(Result.isFailure(decodeConversation(input)))
    }
    assert.deepStrictEqual(repairPairs(null as never, {}).messages, [])
  })

  it("a 50 MB message is grouped, repaired and decoded without copying it", () => {
    const huge = "y".repeat(50 * 1024 * 1024)
    const messages = [
      {
        role: "assistant",
        content: huge,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }]
      }
    ]
    assert.deepStrictEqual(toolGroups(messages, formats.openaiChat).diagnostics.map((d) => d._tag), ["DanglingCall"])
    const repaired = repairPairs(messages, { format: formats.openaiChat })
    assert.strictEqual(repaired.messages[0], messages[0])
    assert.isTrue(Result.isSuccess(decodeConversation(messages, { format: formats.openaiChat })))
  })

  for (const name of formatNames) {
    it(`${name}: duplicate ids, orphans and dangling calls are diagnostics, not exceptions`, () => {
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true }), (rendered) => {
          // Doubling the conversation reuses every id.
          const doubled = deepFreeze([...rendered.messages, ...rendered.messages])
          const format = formats[name] as MessageFormat<unknown>
          const { diagnostics } = toolGroups(doubled, format)
          const calls = rendered.messages.reduce<number>((n, m) => n + format.toolCalls(m).length, 0)
          assert.strictEqual(diagnostics.filter((d) => d._tag === "ReusedCallId").length, calls)
          assert.doesNotThrow(() => repairPairs(doubled, { format }))
        }),
        { numRuns: runs.standard }
      )
    })
  }
})
