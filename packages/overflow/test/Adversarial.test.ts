/**
 * Honest conversations whose tool results the characters / 4 estimate gets badly wrong — runs of spaces and
 * blank lines (o200k reports 1/32 and 1/4 of the estimate), repeated lines, base64 and CJK (2.5–2.7×),
 * minified JSON — replayed as OpenAI Chat and Anthropic messages through an honest o200k server: never
 * flagged, with either counter. The tutorial's own rule, `looksTruncated`, would flag some of them: that is
 * why the detector asks for more than it.
 */
import { approximateCounter, messageCost } from "@ctxkit/budget"
import { tokenFloor } from "@ctxkit/budget/TokenFloor"
import { formats, type MessageFormat } from "@ctxkit/core"
import { looksTruncated, OverflowDetector } from "@ctxkit/overflow"
import { assert, describe, it } from "@effect/vitest"
import { messageFloor, replay, type ScriptedServer } from "./ScriptedServer.ts"
import {
  ADVERSARIAL,
  adversarialConversation,
  exactCounter,
  serverTokenizer,
  template,
  toAnthropic,
  toOpenAiChat
} from "./WireReplay.ts"

const honest: ScriptedServer = {
  window: Number.MAX_SAFE_INTEGER,
  mode: "plateau",
  tokenizer: serverTokenizer,
  template
}

const estimate = (exact: boolean) => <M>(format: MessageFormat<M>, message: M): number =>
  messageCost(message, exact ? { format, counter: exactCounter } : { format, counter: approximateCounter }).tokens

describe("adversarial honest content", () => {
  it("the floor of every adversarial tool result stays under its o200k count (whitespace 0, base64 and minified JSON 0)", () => {
    const floors = Object.entries(ADVERSARIAL).map(([name, make]) => {
      const text = make(1)
      assert.isAtMost(tokenFloor(text), serverTokenizer(text), name)
      return [name, tokenFloor(text)] as const
    })
    assert.deepStrictEqual(Object.fromEntries(floors), {
      whitespace: 0,
      "blank lines": 0,
      "repeated lines": 324, // 65 lines of 5 words, less one
      base64: 0,
      cjk: 0,
      "minified JSON": 0,
      mixed: 0
    })
  })

  for (const [name, result] of Object.entries(ADVERSARIAL)) {
    const canonical = adversarialConversation(result)
    const wire = [
      ["OpenAI Chat", toOpenAiChat(canonical), formats.openaiChat as MessageFormat<unknown>],
      ["Anthropic", toAnthropic(canonical), formats.anthropic as MessageFormat<unknown>]
    ] as const

    it(`${name}: never flagged, approximate or exact, with or without the floor, as OpenAI Chat or Anthropic`, () => {
      for (const [, messages, lens] of wire) {
        for (const [exact, floored] of [[false, false], [false, true], [true, false], [true, true]] as const) {
          const { steps } = replay(messages, lens, honest, {
            detector: OverflowDetector.initial({ counter: exact ? exactCounter : approximateCounter }),
            estimator: estimate(exact),
            ...(floored ? { floor: messageFloor } : {})
          })
          assert.isAbove(steps.length, 20)
          assert.deepStrictEqual(steps.filter((s) => s.verdict.truncated).map((s) => s.verdict), [])
        }
      }
    })
  }

  it("runs of spaces: the seed's rule fires on an honest turn, the detector holds it as a suspect", () => {
    const [, messages, lens] = [
      "OpenAI Chat",
      toOpenAiChat(adversarialConversation(ADVERSARIAL["whitespace"]!)),
      formats.openaiChat as MessageFormat<unknown>
    ] as const
    const { steps } = replay(messages, lens, honest, { estimator: estimate(false) })
    const suspects = steps.filter((s) => s.verdict.suspect === true)
    assert.isAbove(suspects.length, 0)
    for (const step of suspects) {
      const baseline = step.verdict.baseline
      assert.isNotNull(baseline)
      if (baseline !== null) {
        assert.isTrue(looksTruncated(baseline, { tokens: step.reply.tokens, estimate: step.estimate }))
      }
      assert.deepStrictEqual([step.verdict.truncated, step.verdict.calibrate], [false, false])
      // Reported growth between the floor of honest text (0.025) and the seed's threshold (0.1).
      const ratio = step.verdict.evidence.ratio ?? 0
      assert.isTrue(ratio >= 0.025 && ratio < 0.1, String(ratio))
    }
  })
})
