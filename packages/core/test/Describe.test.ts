import { describePath, describeValue } from "@ctxkit/core/Describe"
import { assert, describe, it } from "@effect/vitest"

describe("describeValue: the one wording for a value in a message", () => {
  it("names each kind of value the same way everywhere", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [[], "an array"],
      [[1, 2], "an array"],
      [{}, "an object"],
      [{ secret: "token" }, "an object"],
      [new Map(), "an object"],
      [null, "null"],
      [undefined, "undefined"],
      [Number.NaN, "NaN"],
      [-1, "-1"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      [0.5, "0.5"],
      [true, "true"],
      [12n, "12n"],
      ["12", "\"12\""],
      ["", "\"\""],
      ["say \"hi\"\n", "\"say \\\"hi\\\"\\n\""],
      [() => 1, "a function"],
      [Symbol("x"), "a symbol"]
    ]
    for (const [value, expected] of cases) assert.strictEqual(describeValue(value), expected)
  })

  it("clips a long string to 40 characters and an ellipsis, never inside a surrogate pair", () => {
    assert.strictEqual(describeValue("a".repeat(40)), JSON.stringify("a".repeat(40)))
    assert.strictEqual(describeValue("a".repeat(41)), JSON.stringify(`${"a".repeat(40)}…`))
    // The 40th code unit is the first half of an emoji: the clip keeps 39.
    assert.strictEqual(describeValue(`${"a".repeat(39)}😀tail`), JSON.stringify(`${"a".repeat(39)}…`))
  })
})

describe("describePath: a path as code", () => {
  it("indexes, identifiers and quoted keys, under a base or from the first key", () => {
    assert.strictEqual(describePath("messages", [3, "toolCalls", 0, "id"]), "messages[3].toolCalls[0].id")
    assert.strictEqual(describePath("", ["data", "plugins", 0, "name"]), "data.plugins[0].name")
    assert.strictEqual(describePath("", [{ key: "meta" }, { key: "x-id" }]), "meta[\"x-id\"]")
    assert.strictEqual(describePath("m", []), "m")
    assert.strictEqual(describePath("", [2]), "[2]")
  })
})
