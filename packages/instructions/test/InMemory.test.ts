import {
  attachNestedInstructions,
  discoverSkills,
  emptyNestedState,
  explainInstructions,
  initAgentsFile,
  loadInstructions,
  updateAgentsTemplate
} from "@ctxkit/instructions"
import { assert, describe, it } from "@effect/vitest"
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"

// effect 4.1 ships no in-memory FileSystem; FileSystem.layerNoop plus a Map is enough for what the library calls
// (stat, readFileString, readDirectory, realPath, writeFileString, rename, makeDirectory).
const memoryFileSystem = (initial: Record<string, string>) => {
  const files = new Map(Object.entries(initial))
  const isDirectory = (p: string) => p === "/" || [...files.keys()].some((f) => f.startsWith(`${p}/`))
  const missing = (method: string, path: string) =>
    PlatformError.systemError({ _tag: "NotFound", module: "FileSystem", method, pathOrDescriptor: path })
  const info = (type: FileSystem.File.Type, size: number): FileSystem.File.Info => ({
    type,
    mtime: Option.none(),
    atime: Option.none(),
    birthtime: Option.none(),
    dev: 0n,
    ino: Option.none(),
    mode: 0o644,
    nlink: Option.none(),
    uid: Option.none(),
    gid: Option.none(),
    rdev: Option.none(),
    size: ByteSize.bytes(BigInt(size)),
    blksize: Option.none(),
    blocks: Option.none()
  })
  const layer = FileSystem.layerNoop({
    stat: (p) => {
      const text = files.get(p)
      if (text !== undefined) return Effect.succeed(info("File", text.length))
      return isDirectory(p) ? Effect.succeed(info("Directory", 0)) : Effect.fail(missing("stat", p))
    },
    readFileString: (p) => {
      const text = files.get(p)
      return text === undefined ? Effect.fail(missing("readFileString", p)) : Effect.succeed(text)
    },
    readDirectory: (p) =>
      Effect.succeed([
        ...new Set(
          [...files.keys()].filter((f) => f.startsWith(`${p}/`)).map((f) => f.slice(p.length + 1).split("/")[0] ?? "")
        )
      ]),
    writeFileString: (p, text) => Effect.sync(() => void files.set(p, text)),
    rename: (from, to) =>
      Effect.suspend(() => {
        const text = files.get(from)
        if (text === undefined) return Effect.fail(missing("rename", from))
        files.delete(from)
        files.set(to, text)
        return Effect.void
      }),
    makeDirectory: () => Effect.void
  })
  return { files, layer: Layer.merge(layer, Path.layer) }
}

describe("on an in-memory file system", () => {
  it.effect("loads, explains and attaches instructions", () => {
    const memory = memoryFileSystem({
      "/w/AGENTS.md": "root",
      "/w/a/AGENT.md": "a",
      "/w/a/Agente.md": "never",
      "/w/a/b/AGENTS.override.md": "b override",
      "/w/a/b/AGENTS.md": "b agents",
      "/cfg/AGENTS.md": "global"
    })
    return Effect.gen(function*() {
      const out = yield* loadInstructions({ workspaceRoot: "/w", cwd: "/w/a", configHome: "/cfg" })
      assert.deepStrictEqual(out.files.map((f) => [f.label, f.kind]), [
        ["<config home>/AGENTS.md", "agents"],
        ["AGENTS.md", "agents"],
        ["a/AGENT.md", "legacy"]
      ])
      const lines = yield* explainInstructions({ workspaceRoot: "/w" }, "/w/a/b")
      assert.deepStrictEqual(lines.map((l) => l.kind), ["agents", "legacy", "override"])
      const attach = yield* attachNestedInstructions({ workspaceRoot: "/w", cwd: "/w/a" }, emptyNestedState, {
        path: "/w/a/b/file.ts",
        access: "write"
      })
      assert.strictEqual(attach.action, "reconsider")
      assert.deepStrictEqual(attach.files.map((f) => f.text), ["b override"])
    }).pipe(Effect.provide(memory.layer))
  })

  it.effect("discovers skills", () => {
    const memory = memoryFileSystem({
      "/w/.agents/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDFs.\n---\nbody",
      "/w/.claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Other.\n---\nbody"
    })
    return Effect.gen(function*() {
      const found = yield* discoverSkills({ workspaceRoot: "/w", trusted: true })
      assert.deepStrictEqual(found.skills.map((s) => s.description), ["PDFs."])
      assert.deepStrictEqual(found.diagnostics.map((d) => d.code), ["shadowed"])
    }).pipe(Effect.provide(memory.layer))
  })

  it.effect("/init creates the root AGENTS.md, then only adds missing sections", () => {
    const memory = memoryFileSystem({ "/w/src/a.ts": "" })
    return Effect.gen(function*() {
      const created = yield* initAgentsFile("/w")
      assert.strictEqual(created.action, "created")
      assert.strictEqual(memory.files.get("/w/AGENTS.md"), created.text)
      assert.isFalse(memory.files.has("/w/AGENTS.md.tmp"))
      assert.strictEqual((yield* initAgentsFile("/w")).action, "unchanged")
      memory.files.set("/w/AGENTS.md", "# Mine\n\n## Code style\n\nTabs.\n")
      const updated = yield* initAgentsFile("/w")
      assert.deepStrictEqual(updated.added, ["## Project overview", "## Build and test", "## Conventions"])
      assert.isTrue(updated.text.startsWith("# Mine\n\n## Code style\n\nTabs.\n\n## Project overview"))
      assert.deepStrictEqual(updateAgentsTemplate(updated.text).action, "unchanged")
    }).pipe(Effect.provide(memory.layer))
  })
})
