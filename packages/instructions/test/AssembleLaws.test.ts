import { assembleInstructions, type InstructionFile } from "@ctxkit/instructions"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const files = fc.array(fc.string({ unit: "grapheme", maxLength: 900 }), { maxLength: 6 }).map((texts) =>
  texts.map((text, i): InstructionFile => ({
    path: `/w/${"d/".repeat(i)}AGENTS.md`,
    label: `${"d/".repeat(i)}AGENTS.md`,
    kind: "agents",
    scope: "project",
    text
  }))
)
const bytes = (s: string) => new TextEncoder().encode(s).length

describe("assembleInstructions laws", () => {
  it("never keeps more than maxBytes, accounts for every byte, and keeps a closer file at least as whole", () => {
    fc.assert(fc.property(files, fc.integer({ min: 1024, max: 3000 }), (input, maxBytes) => {
      const out = assembleInstructions(input, { maxBytes })
      const kept = out.files.reduce((s, f) => s + f.keptBytes, 0)
      assert.isAtMost(kept, maxBytes)
      assert.strictEqual(kept + out.omittedBytes, input.reduce((s, f) => s + bytes(f.text), 0))
      const rank = { whole: 2, tail: 1, dropped: 0 } as const
      out.files.forEach((f, i) => {
        const closer = out.files[i + 1]
        if (closer !== undefined) assert.isAtMost(rank[f.status], rank[closer.status])
      })
      assert.strictEqual(out.files.filter((f) => f.status === "tail").length <= 1, true)
    }))
  })
})
