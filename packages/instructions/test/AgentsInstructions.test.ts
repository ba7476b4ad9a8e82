import {
  assembleInstructions,
  attachNestedInstructions,
  emptyNestedState,
  explainInstructions,
  type InstructionFile,
  loadInstructions,
  planNestedAttachment
} from "@ctxkit/instructions"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { INSTRUCTIONS_HEADER, truncationNotice } from "../src/AgentsInstructions.ts"
import { tempDir, writeTree } from "./helpers.ts"

const file = (label: string, text: string): InstructionFile => ({
  path: `/w/${label}`,
  label,
  kind: "agents",
  scope: "project",
  text
})

describe("assembleInstructions", () => {
  it("concatenates root-first under the header with labels", () => {
    const out = assembleInstructions([file("AGENTS.md", "root"), file("a/AGENTS.md", "near")])
    assert.strictEqual(out.text, `${INSTRUCTIONS_HEADER}\n\n## AGENTS.md\nroot\n\n## a/AGENTS.md\nnear`)
    assert.strictEqual(out.omittedBytes, 0)
  })

  it("keeps the closest whole, the next one's tail, drops the rest, with a notice", () => {
    const far = file("AGENTS.md", "F".repeat(500))
    const mid = file("a/AGENTS.md", "HEAD" + "m".repeat(596))
    const near = file("a/b/AGENTS.md", "n".repeat(900))
    const out = assembleInstructions([far, mid, near], { maxBytes: 1024 })
    assert.deepStrictEqual(out.files.map((f) => [f.label, f.status, f.keptBytes]), [
      ["AGENTS.md", "dropped", 0],
      ["a/AGENTS.md", "tail", 124],
      ["a/b/AGENTS.md", "whole", 900]
    ])
    assert.strictEqual(out.omittedBytes, 500 + 600 - 124)
    assert.include(out.text, truncationNotice(976, 1024))
    assert.include(out.text, "## a/AGENTS.md (beginning truncated)\n" + "m".repeat(124))
    assert.notInclude(out.text, "HEAD")
    assert.notInclude(out.text, "FFF")
  })

  it("cuts a tail on a character boundary", () => {
    const out = assembleInstructions([file("AGENTS.md", "é".repeat(600)), file("a/AGENTS.md", "x".repeat(1023))], {
      maxBytes: 1024
    })
    assert.strictEqual(out.files[0]?.keptBytes, 0)
    const out2 = assembleInstructions([file("AGENTS.md", "é".repeat(600)), file("a/AGENTS.md", "x".repeat(1021))], {
      maxBytes: 1024
    })
    // 3 bytes left: one whole "é" (2 bytes), never half of one.
    assert.strictEqual(out2.files[0]?.keptBytes, 2)
  })

  it("clamps maxBytes and is empty without files", () => {
    assert.strictEqual(assembleInstructions([], { maxBytes: 1 }).maxBytes, 1024)
    assert.strictEqual(assembleInstructions([]).text, "")
  })

  it("a maxBytes it cannot use is repaired and reported, never replaced silently", () => {
    const cases: ReadonlyArray<readonly [unknown, number, string]> = [
      [1, 1024, "1"],
      [5_000_000, 1_048_576, "5000000"],
      [2048.7, 2048, "2048.7"],
      [Number.NaN, 32_768, "NaN"],
      [Number.POSITIVE_INFINITY, 32_768, "Infinity"],
      ["4096", 32_768, "\"4096\""]
    ]
    const text = "x".repeat(3_000)
    for (const [given, used, shown] of cases) {
      const out = assembleInstructions([file("AGENTS.md", text)], { maxBytes: given as number })
      assert.strictEqual(out.maxBytes, used)
      // The cap used is the one reported: the same assembly as asking for it directly.
      assert.strictEqual(out.text, assembleInstructions([file("AGENTS.md", text)], { maxBytes: used }).text)
      assert.deepStrictEqual(out.diagnostics.map((d) => [d._tag, d.option, d.given, d.used]), [
        ["InstructionsOptionAdjusted", "maxBytes", shown, String(used)]
      ])
    }
    assert.strictEqual(
      assembleInstructions([], { maxBytes: 10 }).diagnostics[0]?.message,
      "Option maxBytes = 10 cannot be used; used 1024 instead. Set it to an integer from 1024 to 1048576."
    )
  })

  it("a usable maxBytes, or none, reports nothing", () => {
    for (const maxBytes of [1024, 32_768, 1_048_576, undefined]) {
      assert.deepStrictEqual(assembleInstructions([], maxBytes === undefined ? {} : { maxBytes }).diagnostics, [])
    }
  })
})

describe("loadInstructions (real directories)", () => {
  it.effect("applies per-directory precedence root to cwd, never Agente.md, CLAUDE.md only with the flag", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "AGENTS.md": "root agents",
        "AGENTS.override.md": "root override",
        "a/AGENT.md": "a legacy",
        "a/Agente.md": "never",
        "a/b/AGENTS.md": "b agents",
        "a/b/AGENT.md": "b legacy",
        "a/b/c/CLAUDE.md": "c claude",
        "a/b/c/Agente.md": "never"
      })
      const cwd = join(root, "a/b/c")
      const plain = yield* loadInstructions({ workspaceRoot: root, cwd })
      assert.deepStrictEqual(plain.files.map((f) => [f.label, f.kind]), [
        ["AGENTS.override.md", "override"],
        ["a/AGENT.md", "legacy"],
        ["a/b/AGENTS.md", "agents"]
      ])
      assert.notInclude(plain.text, "never")
      assert.notInclude(plain.text, "root agents")
      const withClaude = yield* loadInstructions({ workspaceRoot: root, cwd, claudeMdFallback: true })
      assert.deepStrictEqual(withClaude.files.map((f) => f.kind), ["override", "legacy", "agents", "claude"])
      assert.isTrue(withClaude.text.endsWith("## a/b/c/CLAUDE.md\nc claude"))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("global AGENTS.md comes first; AGENTS.override.md replaces it; legacy/claude ignored there", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const home = tempDir()
      writeTree(root, { "AGENTS.md": "project" })
      writeTree(home, { "AGENT.md": "ignored legacy", "CLAUDE.md": "ignored claude" })
      const none = yield* loadInstructions({ workspaceRoot: root, configHome: home, claudeMdFallback: true })
      assert.deepStrictEqual(none.files.map((f) => f.label), ["AGENTS.md"])
      writeTree(home, { "AGENTS.md": "global" })
      const global = yield* loadInstructions({ workspaceRoot: root, configHome: home })
      assert.deepStrictEqual(global.files.map((f) => [f.label, f.kind]), [
        ["<config home>/AGENTS.md", "agents"],
        ["AGENTS.md", "agents"]
      ])
      writeTree(home, { "AGENTS.override.md": "global override" })
      const overridden = yield* loadInstructions({ workspaceRoot: root, configHome: home })
      assert.deepStrictEqual(overridden.files.map((f) => [f.label, f.kind]), [
        ["<config home>/AGENTS.override.md", "override"],
        ["AGENTS.md", "agents"]
      ])
      assert.notInclude(overridden.text, "\nglobal\n")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("caps at maxBytes keeping the closest, and rejects a cap out of range", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "AGENTS.md": "r".repeat(2000), "a/AGENTS.md": "a".repeat(1000) })
      const out = yield* loadInstructions({ workspaceRoot: root, cwd: join(root, "a"), maxBytes: 1024 })
      assert.deepStrictEqual(out.files.map((f) => f.status), ["tail", "whole"])
      assert.include(out.text, truncationNotice(1976, 1024))
      const error = yield* Effect.flip(loadInstructions({ workspaceRoot: root, maxBytes: 100 }))
      assert.strictEqual(error._tag, "InvalidInstructionsOption")
      assert.strictEqual(error.message, "Option maxBytes = 100 is not allowed (allowed: 1024-1048576).")
      // A string that reads as a number in range is refused too, never coerced.
      for (const maxBytes of [Number.NaN, "2048" as unknown as number]) {
        const refused = yield* Effect.flip(loadInstructions({ workspaceRoot: root, maxBytes }))
        assert.strictEqual(refused._tag, "InvalidInstructionsOption")
      }
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("refuses a cwd outside the workspace", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const error = yield* Effect.flip(loadInstructions({ workspaceRoot: join(root, "w"), cwd: root }))
      assert.strictEqual(error._tag, "OutsideWorkspace")
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("explainInstructions", () => {
  it.effect("lists each directory from the root to the path with the applied file and kind", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const home = tempDir()
      writeTree(root, { "AGENTS.md": "r", "src/x/AGENT.md": "x", "src/x/a.ts": "" })
      writeTree(home, { "AGENTS.override.md": "g" })
      const lines = yield* explainInstructions({ workspaceRoot: root, configHome: home }, join(root, "src/x/a.ts"))
      assert.deepStrictEqual(lines.map((l) => [l.directory, l.file, l.kind]), [
        ["<config home>", "<config home>/AGENTS.override.md", "override"],
        [".", "AGENTS.md", "agents"],
        ["src", undefined, "none"],
        ["src/x", "src/x/AGENT.md", "legacy"]
      ])
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("attachNestedInstructions", () => {
  it.effect("attaches once per session, again after a change; read appends, write reconsiders", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "AGENTS.md": "root", "pkg/AGENTS.md": "pkg rules", "pkg/deep/CLAUDE.md": "c", "pkg/a.ts": "" })
      const options = { workspaceRoot: root }
      const first = yield* attachNestedInstructions(options, emptyNestedState, {
        path: join(root, "pkg/a.ts"),
        access: "read"
      })
      assert.strictEqual(first.action, "append")
      assert.deepStrictEqual(first.files.map((f) => f.label), ["pkg/AGENTS.md"])
      assert.include(first.text, "## pkg/AGENTS.md\npkg rules")
      const again = yield* attachNestedInstructions(options, first.state, { path: "pkg/a.ts", access: "write" })
      assert.strictEqual(again.action, "none")
      assert.strictEqual(again.state, first.state)
      // Another session (its own state) sees it again.
      const other = yield* attachNestedInstructions(options, emptyNestedState, { path: "pkg", access: "process" })
      assert.strictEqual(other.action, "reconsider")
      writeFileSync(join(root, "pkg/AGENTS.md"), "pkg rules v2")
      const changed = yield* attachNestedInstructions(options, again.state, { path: "pkg/a.ts", access: "write" })
      assert.strictEqual(changed.action, "reconsider")
      assert.include(changed.text, "pkg rules v2")
      assert.strictEqual(first.state.seen.size, 1)
      // Files at or above cwd are loaded eagerly, never attached.
      const rootTouch = yield* attachNestedInstructions(options, emptyNestedState, { path: "a.ts", access: "read" })
      assert.strictEqual(rootTouch.action, "none")
    }).pipe(Effect.provide(NodeServices.layer)))

  it("planNestedAttachment repairs and reports a maxBytes it cannot use, as assembleInstructions does", () => {
    const files = [{ path: "/r/p/AGENTS.md", label: "p/AGENTS.md", kind: "agents" as const, text: "y".repeat(3_000) }]
    for (const [given, used] of [[10, 1024], [2048.5, 2048], [Number.NaN, 32_768]] as const) {
      const out = planNestedAttachment(emptyNestedState, files, "read", { maxBytes: given })
      // The cap used is the one reported: the same attachment as asking for it directly.
      assert.strictEqual(out.text, planNestedAttachment(emptyNestedState, files, "read", { maxBytes: used }).text)
      assert.deepStrictEqual(
        out.diagnostics.map((d) => [d._tag, d.option, d.used]),
        [["InstructionsOptionAdjusted", "maxBytes", String(used)]]
      )
      assert.deepStrictEqual(assembleInstructions([], { maxBytes: given }).diagnostics, out.diagnostics)
    }
    // Reported even when there is nothing new to attach.
    const seen = planNestedAttachment(emptyNestedState, files, "read").state
    assert.strictEqual(planNestedAttachment(seen, files, "read", { maxBytes: 1 }).diagnostics.length, 1)
    assert.deepStrictEqual(planNestedAttachment(emptyNestedState, files, "read").diagnostics, [])
  })

  it.effect("attachNestedInstructions fails on a maxBytes it cannot use, as loadInstructions does", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "pkg/AGENTS.md": "pkg rules", "pkg/a.ts": "" })
      const error = yield* Effect.flip(
        attachNestedInstructions({ workspaceRoot: root, maxBytes: 10 }, emptyNestedState, {
          path: join(root, "pkg/a.ts"),
          access: "read"
        })
      )
      assert.strictEqual(error._tag, "InvalidInstructionsOption")
      const refused = yield* Effect.flip(loadInstructions({ workspaceRoot: root, maxBytes: 10 }))
      assert.strictEqual(error.message, refused.message)
    }).pipe(Effect.provide(NodeServices.layer)))

  it("planNestedAttachment does not mutate the state", () => {
    const files = [{ path: "/r/p/AGENTS.md", label: "p/AGENTS.md", kind: "agents" as const, text: "x" }]
    const out = planNestedAttachment(emptyNestedState, files, "read")
    assert.strictEqual(emptyNestedState.seen.size, 0)
    assert.strictEqual(out.state.seen.size, 1)
  })
})
