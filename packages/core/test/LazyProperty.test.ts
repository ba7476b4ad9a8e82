import { lazyProperty } from "@ctxkit/core/LazyProperty"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const defineTotal = lazyProperty("total")

describe("lazyProperty", () => {
  it("computes on first read, once, and keeps the value", () => {
    let calls = 0
    const result = defineTotal({ items: [1, 2, 3] }, () => {
      calls++
      return 6
    })
    assert.strictEqual(calls, 0)
    assert.strictEqual(result.total, 6)
    assert.strictEqual(result.total, 6)
    assert.strictEqual(calls, 1)
  })

  it("is an own, enumerable property: keys, spread, JSON and deep equality see its value", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (items) => {
        const result = defineTotal({ items }, () => items.reduce((a, b) => a + b, 0))
        const plain = { items, total: items.reduce((a, b) => a + b, 0) }
        assert.deepStrictEqual(Object.keys(result), ["items", "total"])
        assert.deepStrictEqual({ ...result }, plain)
        assert.strictEqual(JSON.stringify(result), JSON.stringify(plain))
        assert.deepStrictEqual(result, plain)
      })
    )
  })

  it("keeps each object's value apart, and a thrown computation is tried again on the next read", () => {
    const a = defineTotal({}, () => "a")
    const b = defineTotal({}, () => "b")
    assert.strictEqual(b.total, "b")
    assert.strictEqual(a.total, "a")
    let fail = true
    const flaky = defineTotal({}, () => {
      if (fail) throw new Error("not yet")
      return "ready"
    })
    assert.throws(() => flaky.total, "not yet")
    fail = false
    assert.strictEqual(flaky.total, "ready")
  })

  it("reads nothing from an object it did not define", () => {
    const source = defineTotal({}, () => 1)
    const getter = Object.getOwnPropertyDescriptor(source, "total")?.get
    assert.isDefined(getter)
    assert.isUndefined(getter?.call({}))
    assert.isUndefined(getter?.call(undefined))
  })
})
