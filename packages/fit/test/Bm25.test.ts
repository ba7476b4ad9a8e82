import { bm25Scores } from "@ctxkit/fit"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { BM25_B, BM25_K1, bm25Terms } from "../src/Bm25.ts"

describe("bm25Scores", () => {
  it("uses k1 = 1.2 and b = 0.75", () => {
    assert.strictEqual(BM25_K1, 1.2)
    assert.strictEqual(BM25_B, 0.75)
  })

  it("computes Okapi BM25 with a non-negative IDF", () => {
    // N = 2, n(a) = 1: IDF = ln(1 + 1.5 / 1.5) = ln 2; |D0| = 2, avgdl = 1.5: norm = 0.25 + 0.75 × 2 / 1.5 = 1.25.
    const [first = Number.NaN, second] = bm25Scores("a", ["a b", "c"])
    assert.closeTo(first, Math.LN2 * 2.2 / (1 + 1.2 * 1.25), 1e-12)
    assert.strictEqual(second, 0)
    // A term in every document still scores above 0, and more occurrences score more, with saturation.
    const [one = 0, two = 0, many = 0] = bm25Scores("x", ["x y y y", "x x y y", "x x x x"])
    assert.isTrue(one > 0 && two > one && many > two)
    assert.isBelow(many, Math.log(1 + 0.5 / 3.5) * (1.2 + 1))
  })

  it("ranks the document about the query first, shorter documents above longer ones for the same match", () => {
    const scores = bm25Scores("deploy the staging server", [
      "Lunch is at noon.",
      "The staging server runs on port 8080; deploy with make deploy.",
      "server",
      "server and a great many other words that dilute it"
    ])
    assert.strictEqual(scores[0], 0)
    assert.isTrue((scores[1] ?? 0) > (scores[2] ?? 0) && (scores[2] ?? 0) > (scores[3] ?? 0))
  })

  it("takes other parameters; with b = 0 length does not matter", () => {
    const [short = 0, long = 0] = bm25Scores("server", ["server", "server a b c d e f"], { b: 0 })
    assert.strictEqual(short, long)
    const [k0 = 0] = bm25Scores("x", ["x x x", "y"], { k1: 0 })
    assert.closeTo(k0, Math.log(1 + 1.5 / 1.5), 1e-12)
  })

  it("is total: no documents, no terms, non-strings, any text", () => {
    assert.deepStrictEqual(bm25Scores("q", []), [])
    assert.deepStrictEqual(bm25Scores("", ["a", "b"]), [0, 0])
    assert.deepStrictEqual(bm25Scores("a", ["", ""]), [0, 0])
    assert.deepStrictEqual(bm25Scores("a", [null as never, 3 as never]), [0, 0])
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string({ unit: "grapheme" }), { maxLength: 8 }), (query, docs) => {
        const scores = bm25Scores(query, docs)
        assert.strictEqual(scores.length, docs.length)
        for (const s of scores) assert.isTrue(Number.isFinite(s) && s >= 0)
      })
    )
  })
})

describe("bm25Terms", () => {
  it("splits on anything but letters and digits of any script, lower-cased", () => {
    assert.deepStrictEqual(bm25Terms("Read the README.md, then run `npm test`!"), [
      "read",
      "the",
      "readme",
      "md",
      "then",
      "run",
      "npm",
      "test"
    ])
    assert.deepStrictEqual(bm25Terms("Größe données 数据 — ok"), ["größe", "données", "数据", "ok"])
  })
})
