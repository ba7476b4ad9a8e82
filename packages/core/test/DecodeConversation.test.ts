import { decodeConversation, formats, InvalidConversation, type Message, toolGroups } from "@ctxkit/core"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"

const failure = (result: Result.Result<unknown, InvalidConversation>): InvalidConversation => {
  if (Result.isSuccess(result)) throw new Error("expected a failure")
  return result.failure
}

describe("decodeConversation", () => {
  it("returns the input's own array and objects when valid", () => {
    const input: ReadonlyArray<Message> = [{ role: "user", content: "hi", meta: { origin: "ui" } }]
    const result = decodeConversation(input, { format: formats.canonical })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) assert.strictEqual(result.success, input)
  })

  it("names the path of every problem", () => {
    const error = failure(decodeConversation([
      { role: "user", content: "ok" },
      { role: "tool", toolCallId: 42, content: "x" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ls" }] }
    ], { format: formats.canonical }))
    assert.strictEqual(error._tag, "InvalidConversation")
    assert.strictEqual(error.code, "INVALID_CONVERSATION")
    assert.deepStrictEqual(error.issues.map((i) => i.path), [
      "messages[1].toolCallId",
      "messages[2].toolCalls[0].arguments"
    ])
    assert.include(error.message, "messages[1].toolCallId")
    assert.include(error.message, "format")
  })

  it("reports malformed JSON, wrong shapes and unusable values as typed errors", () => {
    assert.deepStrictEqual(failure(decodeConversation("[{\"role\":")).issues.map((i) => i.path), ["input"])
    assert.include(failure(decodeConversation("[{\"role\":")).issues[0]!.message, "malformed JSON")
    assert.include(failure(decodeConversation(42)).issues[0]!.message, "expected an array of messages")
    assert.include(failure(decodeConversation({ messages: "no" })).message, "expected an array")
    assert.deepStrictEqual(failure(decodeConversation([null], { format: formats.canonical })).issues.length > 0, true)
    assert.deepStrictEqual(
      failure(decodeConversation([{ role: "wizard", content: "x" }], { format: formats.canonical })).issues.length > 0,
      true
    )
  })

  it("reads request bodies: { messages } and Responses { input }, as text too", () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }] }
    assert.isTrue(Result.isSuccess(decodeConversation(body)))
    assert.isTrue(Result.isSuccess(decodeConversation(JSON.stringify(body))))
    const responses = { input: [{ type: "function_call_output", call_id: 7, output: "x" }] }
    assert.deepStrictEqual(failure(decodeConversation(responses)).issues.map((i) => i.path), ["input[0].call_id"])
  })

  it("takes hostile text: 50 MB, surrogate halves, combining marks, NUL, deep nesting", () => {
    const huge = "x".repeat(50 * 1024 * 1024)
    const hostile = [
      { role: "user", content: huge },
      { role: "user", content: "\uD83D lone high, lone low \uDE00, e\u0301, \u0000" },
      { role: "user", content: [{ type: "weird", nested: JSON.parse("[".repeat(2000) + "]".repeat(2000)) }] }
    ]
    const result = decodeConversation(hostile, { format: formats.canonical })
    assert.isTrue(Result.isSuccess(result))
    assert.deepStrictEqual(toolGroups(hostile).groups, [[0], [1], [2]])
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    assert.strictEqual(Result.isFailure(decodeConversation(deep)) || Result.isSuccess(decodeConversation(deep)), true)
  })

  it("is data-last and lifts into Effect with a typed failure", async () => {
    const decode = decodeConversation({ format: formats.openaiChat })
    const program = Effect.gen(function*() {
      return yield* Effect.fromResult(decode([{ role: "tool", content: "x" }]))
    })
    const error = await Effect.runPromise(Effect.flip(program))
    assert.instanceOf(error, InvalidConversation)
    assert.deepStrictEqual(error.issues.map((i) => i.path), ["messages[0].tool_call_id"])
  })
})
