/**
 * Issue 11, defect 6: a wrong input is named, never an empty conversation that fits; an effect/ai Prompt is read
 * as its messages. And issue 12's one MessageFormat check: a format is used by every entry point or by none.
 */
import { approximateCounter } from "@ctxkit/budget"
import { conversationMessages, decodeConversation, formats, isMessageFormat, type MessageFormat } from "@ctxkit/core"
import { runStrategy } from "@ctxkit/engine"
import { type ContextStrategy, shiftContext, strategies } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"

const messages = [{ role: "user", content: "list the files" }]

describe("a wrong input never fits (defect 6)", () => {
  it("an object with a messages array, a string, undefined: fits false, nothing kept, a diagnostic naming it", () => {
    for (
      const [bad, named] of [
        [{ messages }, "\"messages\" array"],
        ["hello", "\"hello\""],
        [undefined, "got undefined"],
        [{ role: "user", content: "hi" }, "an object"]
      ] as const
    ) {
      const result = shiftContext(bad as never, approximateCounter, 1_000)
      assert.isFalse(result.fits)
      assert.deepStrictEqual(result.kept, [])
      assert.strictEqual(result.diagnostics[0]?._tag, "NotAConversation")
      assert.include(result.diagnostics[0]?.message, named)
    }
  })

  it("an effect/ai Prompt is read as its messages, by fitting and by decodeConversation", () => {
    const prompt = Prompt.make([{ role: "user", content: "list the files" }])
    const result = shiftContext(prompt as never, approximateCounter, 1_000, { format: formats.effectAi })
    assert.isTrue(result.fits)
    assert.deepStrictEqual(result.kept, prompt.content)
    assert.isTrue(Result.isSuccess(decodeConversation(prompt, { format: formats.effectAi })))
  })

  it("conversationMessages: the one input check, with a typed error naming the input and the fix", () => {
    assert.isTrue(Result.isSuccess(conversationMessages(messages)))
    const wrong = conversationMessages({ input: messages })
    assert.isTrue(Result.isFailure(wrong))
    if (Result.isFailure(wrong)) {
      assert.strictEqual(wrong.failure._tag, "InvalidConversation")
      assert.include(wrong.failure.issues[0]?.message, "pass its input (value.input)")
    }
  })
})

describe("one MessageFormat check (issue 12)", () => {
  // A hand-written lens without `links`: main's shiftContext used it while the host replaced it with auto.
  const { links: _links, ...partial } = formats.canonical as MessageFormat<unknown>
  const complete: MessageFormat<unknown> = {
    ...(formats.canonical as MessageFormat<unknown>),
    name: "protect-everything",
    isProtected: () => true
  }
  // A plugin strategy, so that the host checks its result with the host's own reading of the format.
  const plugin: ContextStrategy = { id: "plugin", fit: strategies.truncate.fit }
  const conversation = [
    { role: "user", content: "a".repeat(400) },
    { role: "assistant", content: "b".repeat(400) },
    { role: "user", content: "now" }
  ]

  it("isMessageFormat accepts every shipped lens and a complete hand-written one, and refuses a partial one", () => {
    for (const format of Object.values(formats)) assert.isTrue(isMessageFormat(format), format.name)
    assert.isTrue(isMessageFormat(complete))
    assert.isFalse(isMessageFormat(partial))
    assert.isFalse(isMessageFormat("openaiChat"))
  })

  it.effect("shiftContext and the host (runStrategy) read the same format: both use a complete one, neither a partial one", () =>
    Effect.gen(function*() {
      for (const format of [complete, partial]) {
        const direct = shiftContext(conversation, approximateCounter, 50, { format: format as MessageFormat<unknown> })
        const hosted = yield* runStrategy(plugin, conversation, approximateCounter, 50, {
          format: format as MessageFormat<unknown>
        })
        assert.deepStrictEqual(hosted.result.kept, direct.kept)
        assert.strictEqual(hosted.result.fits, direct.fits)
      }
      assert.isFalse(shiftContext(conversation, approximateCounter, 50, { format: complete }).fits)
    }))
})
