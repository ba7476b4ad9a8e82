import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { runs } from "../../../tests/runs.ts"
import { sha256Hex, utf8Length } from "../src/internal/sha256.ts"

const reference = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

describe("sha256Hex (the governor's own pure SHA-256)", () => {
  it("matches the FIPS 180-4 / NIST test vectors", () => {
    assert.strictEqual(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert.strictEqual(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert.strictEqual(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    )
    assert.strictEqual(
      sha256Hex(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
      ),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    )
    assert.strictEqual(
      sha256Hex("a".repeat(1_000_000)),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    )
  })

  it("hashes the UTF-8 bytes at every padding boundary (55, 56, 63, 64 bytes) and of non-ASCII text", () => {
    for (const n of [1, 55, 56, 57, 63, 64, 65, 119, 120, 128]) {
      assert.strictEqual(sha256Hex("x".repeat(n)), reference("x".repeat(n)))
    }
    for (const text of ["é", "café", "日本語", "🚀", "e\u0301", "\u0000nul", "Zeile 🚀 données 数据 — "]) {
      assert.strictEqual(sha256Hex(text), reference(text))
      assert.strictEqual(utf8Length(text), Buffer.byteLength(text, "utf8"))
    }
  })

  it("encodes a lone surrogate as U+FFFD, as UTF-8 encoders do", () => {
    for (const text of ["\ud83d", "a\ude80b", "\ud83d\ud83d"]) {
      assert.strictEqual(sha256Hex(text), reference(text))
      assert.strictEqual(utf8Length(text), Buffer.byteLength(text, "utf8"))
    }
  })

  it("agrees with node:crypto on arbitrary strings (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), (text) => {
        assert.strictEqual(sha256Hex(text), reference(text))
        assert.strictEqual(utf8Length(text), Buffer.byteLength(text, "utf8"))
      }),
      { numRuns: runs.many }
    )
  })
})
