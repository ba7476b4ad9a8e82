import { formats } from "@ctxkit/core"
import { acceptQuotes } from "@ctxkit/invariants"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"

// The one rule (docs/architecture.md): every pure function whose first parameter is the conversation is `dual`.
describe("acceptQuotes is dual: both forms give equal results", () => {
  it("on generated user texts and quotes (property)", () => {
    const words = fc.constantFrom("use", "tabs", "never", "semicolons", "in", "code", "please")
    const sentence = fc.array(words, { minLength: 1, maxLength: 6 }).map((w) => w.join(" "))
    fc.assert(
      fc.property(fc.array(sentence, { maxLength: 4 }), fc.array(sentence, { maxLength: 4 }), (texts, quotes) => {
        const summarized = texts.map((content) => ({ role: "user", content }))
        const format = formats.openaiChat
        assert.deepStrictEqual(
          pipe(summarized, acceptQuotes(quotes, { format })),
          acceptQuotes(summarized, quotes, { format })
        )
        assert.deepStrictEqual(pipe(summarized, acceptQuotes(quotes)), acceptQuotes(summarized, quotes))
      })
    )
  })

  it("data-first with two arguments is the conversation and its quotes", () => {
    const summarized = [{ role: "user", content: "Never use semicolons" }]
    assert.deepStrictEqual(acceptQuotes(summarized, ["Never use semicolons"]).instructions, ["Never use semicolons"])
  })
})
