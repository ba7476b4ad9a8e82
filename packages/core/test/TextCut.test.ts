import { pairSafeEnd, pairSafeStart, safeHead, safeTail } from "@ctxkit/core/TextCut"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff
/** True when `part` starts or ends with half of a pair that `whole` has complete at that point. */
const splitAt = (whole: string, index: number): boolean =>
  index > 0 && index < whole.length && isHigh(whole.charCodeAt(index - 1)) && isLow(whole.charCodeAt(index))

describe("surrogate-safe cuts", () => {
  it("a cut inside a pair moves off it; elsewhere it is exact", () => {
    assert.strictEqual(safeHead("ab😀c", 3), "ab")
    assert.strictEqual(safeHead("ab😀c", 4), "ab😀")
    assert.strictEqual(safeTail("a😀bc", 3), "bc")
    assert.strictEqual(safeTail("a😀bc", 4), "😀bc")
    assert.strictEqual(pairSafeEnd("ab😀", 3), 2)
    assert.strictEqual(pairSafeStart("😀ab", 1), 2)
    // A lone surrogate is not a pair: the cut stays where asked.
    assert.strictEqual(safeHead("a\uD83Db", 2), "a\uD83D")
  })

  it("out-of-range and fractional lengths", () => {
    assert.strictEqual(safeHead("abc", 10), "abc")
    assert.strictEqual(safeHead("abc", -1), "")
    assert.strictEqual(safeHead("abc", 2.9), "ab")
    assert.strictEqual(safeHead("abc", Number.NaN), "")
    assert.strictEqual(safeTail("abc", 10), "abc")
    assert.strictEqual(safeTail("abc", -1), "")
    assert.strictEqual(safeTail("abc", 2.9), "bc")
  })

  it("property: a head or tail is a prefix or suffix, at most one short, and never splits a pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: -2, max: 60 }), (text, n) => {
        const head = safeHead(text, n)
        const tail = safeTail(text, n)
        const want = Math.max(0, Math.min(n, text.length))
        assert.isTrue(text.startsWith(head) && text.endsWith(tail))
        assert.include([want, want - 1], head.length)
        assert.include([want, want - 1], tail.length)
        assert.isFalse(splitAt(text, head.length))
        assert.isFalse(splitAt(text, text.length - tail.length))
      })
    )
  })
})
