/*
 * Coverage of /work/shared/spec/instructions.md (AGENTS.md and Skills sections), rule by rule. Each rule names the
 * test(s) that cover it: "Spec:" tests are in this file; others are in AgentsInstructions.test.ts (Agents),
 * Skills.test.ts (Skills), AssembleLaws.test.ts (Laws) or InMemory.test.ts (InMemory).
 *
 * AGENTS.md
 *  A1  Per directory the first existing file wins: AGENTS.override.md (override) > AGENTS.md (agents) > AGENT.md
 *      (legacy) > CLAUDE.md (claude) ........................ Agents "applies per-directory precedence"; Spec A13
 *  A2  CLAUDE.md only with claudeMdFallback: true ........... Agents "applies per-directory precedence"; Spec A2/A3
 *  A3  Agente.md is never read .............................. Agents "applies per-directory precedence"; Spec A2/A3
 *  A4  Global scope: <config home>/AGENTS.md, replaced by AGENTS.override.md; legacy/claude ignored there
 *      .................................................... Agents "global AGENTS.md comes first"
 *  A5  Global first, then root down to cwd, closest last ... Spec A5/A6
 *  A6  Project scope walks root DOWN to cwd only (nothing below cwd eagerly) ... Spec A5/A6
 *  A7  Header: closest file wins on conflicts; user's explicit prompts override ... Spec A7/A8
 *  A8  Each file labelled with its path relative to the workspace; global as <config home>/…; no absolute paths
 *      .................................................... Spec A7/A8; Agents "concatenates root-first"
 *  A9  Paths never escape the workspace: cwd outside fails; explain outside fails; a symlinked file pointing outside
 *      is not read; nested touches outside attach nothing ........ Agents "refuses a cwd"; Spec A9
 *  A10 maxBytes default 32 KiB, allowed 1,024–1,048,576 (bounds inclusive) ... Spec A10; Agents "caps at maxBytes"
 *  A11 Cap: closest whole; first that does not fit keeps its TAIL, labelled (beginning truncated); farther dropped;
 *      notice line with omitted bytes ...................... Agents "keeps the closest whole…", "cuts a tail…"; Laws
 *  A12 Nested files attach lazily: once per session and file, again when changed; read → on the result; write/process
 *      → reconsider; pure state per session ................. Agents "attaches once per session…", "does not mutate"
 *  A12b Nested attachments held to maxBytes with the same cap rule ... Spec A12b
 *  A12c Nested lookup uses the same names: CLAUDE.md only with the flag, Agente.md never ... Spec A2/A3
 *  A13 explain(path): each directory from the root to the path with the applied file and its kind (override,
 *      agents, legacy, claude, none), plus the global scope .... Agents "lists each directory…"; Spec A13
 *  A14 /init template creates or updates the root AGENTS.md . InMemory "/init…"; Spec A14
 *
 * Skills
 *  S1  A skill is a directory with SKILL.md starting with YAML frontmatter (name, description), real YAML
 *      ...................................................... Skills "reports missing frontmatter…" (block scalar)
 *  S2  Roots in order: project (.agents, <host>, .claude from cwd up to root; trusted only), config paths,
 *      ~/.agents/skills and <config home>/skills, plugins ... Skills "orders project…"; Spec S2 (default host)
 *  S3  First name wins; later ones reported as shadowed ...... Skills "first name wins…"; InMemory "discovers skills"
 *  S4  Plugin skills shown as plugin:name and locked (overrides cannot disable them) ... Skills; Spec S4
 *  S5  At most 5 levels deep ................................ Skills "walks 5 levels but not 6…"
 *  S6  At most 2,000 directories for the WHOLE discovery, with a diagnostic ... Spec S6 (global; 10,000 dirs)
 *  S7  De-duplicate by real path (symlink loops) ............ Skills "finishes on a symlink loop…"
 *  S8  Skip hidden directories and node_modules; no descent into a skill ... Skills "walks 5 levels…"
 *  S9  Name 1–64 lowercase letters/digits, single hyphens, no leading/trailing hyphen ... Skills "applies the Agent
 *      Skills name rules" (0, 64, 65 chars); Spec S9 (non-string)
 *  S10 Description required (empty/blank = missing), ≤ 1,024 characters ... Skills "reports every problem…"; Spec S10
 *  S11 SKILL.md at most 64,000 bytes ........................ Skills "reports every problem…"; Spec S11 (bounds)
 *  S12 Directory name ≠ skill name is only a warning ........ Skills "reports missing frontmatter…"
 *  S13 Frontmatter errors: missing, bad YAML, not a mapping, missing fields; unknown fields are NOT an error (the
 *      spec does not forbid them; agentskills.io defines optional ones) ... Skills; Spec S13
 *  S14 validate(path) reports every diagnostic (all skills, all problems, one run); discovery names every error code
 *      of a skipped skill ..................................... Skills "reports every diagnostic…"; Spec S14
 *  S15 Catalog: only name and description, ~tokens at 4 chars/token; no bodies, no absolute paths ... Skills
 *  S16 load body on demand; resource confined to the skill dir and size-capped; search; large catalog → pointer
 *      ...................................................... Skills "the catalog holds names…"
 *  S17 Enable/disable a winner is a local override saved atomically (unique temporary file beside it, then rename);
 *      an existing config file must be trusted ............... Skills "a disabled winner…"; Spec S17
 *  S18 Disabling a winner does not promote the shadowed copy . Skills "a disabled winner…"
 *  S19 The host's own directory name is an option ........... Skills "orders project…" (.alisio); Spec S2
 */
import {
  attachNestedInstructions,
  discoverSkills,
  emptyNestedState,
  explainInstructions,
  initAgentsFile,
  loadInstructions,
  readSkillOverrides,
  saveSkillOverrides,
  setSkillEnabled,
  validateSkillFile
} from "@ctxkit/instructions"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { INSTRUCTIONS_HEADER, truncationNotice } from "../src/AgentsInstructions.ts"
import { SKILL_WALK_LIMITS, skillRoots } from "../src/SkillDiscovery.ts"
import { tempDir, writeTree } from "./helpers.ts"

const skill = (name: string, description = `Does ${name} things.`, body = `Body of ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`

describe("Spec: AGENTS.md", () => {
  it.effect("A5/A6 global first, root down to cwd, closest last; nothing below cwd is loaded eagerly", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const home = tempDir()
      writeTree(home, { "AGENTS.md": "GLOBAL" })
      writeTree(root, { "AGENTS.md": "ROOT", "a/AGENTS.md": "NEAR", "a/below/AGENTS.md": "BELOW" })
      const out = yield* loadInstructions({ workspaceRoot: root, cwd: join(root, "a"), configHome: home })
      assert.deepStrictEqual(out.files.map((f) => f.label), ["<config home>/AGENTS.md", "AGENTS.md", "a/AGENTS.md"])
      const at = (s: string) => out.text.indexOf(s)
      assert.isTrue(at("GLOBAL") < at("ROOT") && at("ROOT") < at("NEAR"))
      assert.notInclude(out.text, "BELOW")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A7/A8 the header says the closest wins and prompts override; labels are relative, never absolute", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const home = tempDir()
      writeTree(home, { "AGENTS.override.md": "g" })
      writeTree(root, { "AGENTS.md": "r", "x/y/AGENT.md": "y" })
      const out = yield* loadInstructions({ workspaceRoot: root, cwd: join(root, "x/y"), configHome: home })
      assert.isTrue(out.text.startsWith(`${INSTRUCTIONS_HEADER}\n\n`))
      assert.include(INSTRUCTIONS_HEADER, "When they conflict, the closest file wins.")
      assert.include(INSTRUCTIONS_HEADER, "The user's explicit prompts take priority over all of them.")
      assert.include(out.text, "## <config home>/AGENTS.override.md\ng")
      assert.include(out.text, "## AGENTS.md\nr")
      assert.include(out.text, "## x/y/AGENT.md\ny")
      assert.notInclude(out.text, root)
      assert.notInclude(out.text, home)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A9 paths never escape the workspace: symlinked files, explain and nested touches outside", () =>
    Effect.gen(function*() {
      const base = tempDir()
      const root = join(base, "w")
      writeTree(base, { "secret.md": "SECRET", "w/a/keep.txt": "" })
      symlinkSync(join(base, "secret.md"), join(root, "AGENTS.md"))
      symlinkSync(join(base, "secret.md"), join(root, "a/AGENTS.md"))
      const out = yield* loadInstructions({ workspaceRoot: root, cwd: join(root, "a") })
      assert.deepStrictEqual(out.files, [])
      assert.strictEqual(out.text, "")
      const explained = yield* explainInstructions({ workspaceRoot: root }, join(root, "a"))
      assert.deepStrictEqual(explained.map((l) => l.kind), ["none", "none"])
      const outside = yield* Effect.flip(explainInstructions({ workspaceRoot: root }, base))
      assert.strictEqual(outside._tag, "OutsideWorkspace")
      const relativeOut = yield* Effect.flip(loadInstructions({ workspaceRoot: root, cwd: "../" }))
      assert.strictEqual(relativeOut._tag, "OutsideWorkspace")
      const touch = yield* attachNestedInstructions({ workspaceRoot: root }, emptyNestedState, {
        path: join(base, "secret.md"),
        access: "read"
      })
      assert.strictEqual(touch.action, "none")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A10 maxBytes defaults to 32 KiB and accepts 1,024–1,048,576 inclusive", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "AGENTS.md": "r" })
      assert.strictEqual((yield* loadInstructions({ workspaceRoot: root })).maxBytes, 32_768)
      for (const ok of [1_024, 1_048_576]) {
        assert.strictEqual((yield* loadInstructions({ workspaceRoot: root, maxBytes: ok })).maxBytes, ok)
      }
      for (const bad of [1_023, 1_048_577, Number.NaN]) {
        const error = yield* Effect.flip(loadInstructions({ workspaceRoot: root, maxBytes: bad }))
        assert.strictEqual(error._tag, "InvalidInstructionsOption")
      }
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A12b nested attachments are held to maxBytes: closest whole, tail, dropped, notice", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "pkg/AGENTS.md": "P".repeat(500),
        "pkg/sub/AGENTS.md": "HEAD" + "s".repeat(596),
        "pkg/sub/deep/AGENTS.md": "d".repeat(900),
        "pkg/sub/deep/a.ts": ""
      })
      const options = { workspaceRoot: root, maxBytes: 1024 }
      const touch = { path: join(root, "pkg/sub/deep/a.ts"), access: "read" } as const
      const first = yield* attachNestedInstructions(options, emptyNestedState, touch)
      assert.strictEqual(first.action, "append")
      assert.deepStrictEqual(first.files.map((f) => f.label), ["pkg/sub/AGENTS.md", "pkg/sub/deep/AGENTS.md"])
      assert.strictEqual(first.omittedBytes, 500 + 476)
      assert.include(first.text, truncationNotice(976, 1024))
      assert.include(first.text, "## pkg/sub/AGENTS.md (beginning truncated)\n" + "s".repeat(124) + "\n\n")
      assert.include(first.text, "## pkg/sub/deep/AGENTS.md\n" + "d".repeat(900))
      assert.notInclude(first.text, "HEAD")
      assert.notInclude(first.text, "PPP")
      // The dropped file was never attached, so a later touch attaches it (and only it).
      const second = yield* attachNestedInstructions(options, first.state, touch)
      assert.deepStrictEqual(second.files.map((f) => f.label), ["pkg/AGENTS.md"])
      assert.strictEqual(second.omittedBytes, 0)
      assert.notInclude(second.text, "[instructions truncated")
      assert.strictEqual((yield* attachNestedInstructions(options, second.state, touch)).action, "none")
      // The default cap (32 KiB) keeps all three whole.
      const roomy = yield* attachNestedInstructions({ workspaceRoot: root }, emptyNestedState, touch)
      assert.strictEqual(roomy.files.length, 3)
      assert.strictEqual(roomy.omittedBytes, 0)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A2/A3 CLAUDE.md only with the flag and Agente.md never, for loading, explain and nested files", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "Agente.md": "never", "pkg/CLAUDE.md": "claude", "pkg/x/Agente.md": "never", "pkg/x/a.ts": "" })
      const touch = { path: join(root, "pkg/x/a.ts"), access: "write" } as const
      const plain = yield* attachNestedInstructions({ workspaceRoot: root }, emptyNestedState, touch)
      assert.strictEqual(plain.action, "none")
      const flagged = yield* attachNestedInstructions(
        { workspaceRoot: root, claudeMdFallback: true },
        emptyNestedState,
        touch
      )
      assert.strictEqual(flagged.action, "reconsider")
      assert.deepStrictEqual(flagged.files.map((f) => [f.label, f.kind]), [["pkg/CLAUDE.md", "claude"]])
      const loaded = yield* loadInstructions({ workspaceRoot: root, cwd: join(root, "pkg/x") })
      assert.strictEqual(loaded.text, "")
      const explained = yield* explainInstructions({ workspaceRoot: root }, join(root, "pkg/x/a.ts"))
      assert.deepStrictEqual(explained.map((l) => l.kind), ["none", "none", "none"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A13 explain reports every kind: override, agents, legacy, claude (with the flag), none", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "AGENTS.override.md": "o",
        "AGENTS.md": "shadowed by the override",
        "a/AGENTS.md": "a",
        "a/b/AGENT.md": "b",
        "a/b/c/CLAUDE.md": "c",
        "a/b/c/d/Agente.md": "never"
      })
      const target = join(root, "a/b/c/d")
      const withFlag = yield* explainInstructions({ workspaceRoot: root, claudeMdFallback: true }, target)
      assert.deepStrictEqual(withFlag.map((l) => [l.scope, l.directory, l.file, l.kind]), [
        ["project", ".", "AGENTS.override.md", "override"],
        ["project", "a", "a/AGENTS.md", "agents"],
        ["project", "a/b", "a/b/AGENT.md", "legacy"],
        ["project", "a/b/c", "a/b/c/CLAUDE.md", "claude"],
        ["project", "a/b/c/d", undefined, "none"]
      ])
      const noFlag = yield* explainInstructions({ workspaceRoot: root }, target)
      assert.deepStrictEqual(noFlag.map((l) => l.kind), ["override", "agents", "legacy", "none", "none"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("A14 /init creates the root AGENTS.md on disk, then leaves a complete one unchanged", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const created = yield* initAgentsFile(root)
      assert.strictEqual(created.action, "created")
      assert.strictEqual(readFileSync(join(root, "AGENTS.md"), "utf8"), created.text)
      assert.strictEqual((yield* initAgentsFile(root)).action, "unchanged")
      assert.deepStrictEqual(readdirSync(root), ["AGENTS.md"])
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("Spec: Skills", () => {
  it.effect("S2/S19 the host directory defaults to .ctxkit and is configurable", () =>
    Effect.gen(function*() {
      const roots = yield* skillRoots({ workspaceRoot: "/w", trusted: true })
      assert.deepStrictEqual(roots.map((r) => r.directory), [
        "/w/.agents/skills",
        "/w/.ctxkit/skills",
        "/w/.claude/skills"
      ])
      const alisio = yield* skillRoots({ workspaceRoot: "/w", trusted: true, hostDirectory: ".alisio" })
      assert.include(alisio.map((r) => r.directory), "/w/.alisio/skills")
    }).pipe(Effect.provide(Path.layer)))

  it.effect("S6 the directory limit counts all roots together, stops later roots, and reports once", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`r1/d${i}/keep.txt`, ""])),
        "r1/d0/SKILL.md": skill("one"),
        "r2/two/SKILL.md": skill("two"),
        "r3/three/SKILL.md": skill("three")
      })
      // r1 and its 8 directories are 9; r2 is the 10th; r2/two would be the 11th.
      const found = yield* discoverSkills({
        workspaceRoot: root,
        trusted: false,
        configPaths: ["r1", "r2", "r3"],
        maxDirectories: 10
      })
      assert.deepStrictEqual(found.skills.map((s) => s.name), ["one"])
      const limits = found.diagnostics.filter((d) => d.code === "directory-limit")
      assert.deepStrictEqual(limits.map((d) => d.path), [join(root, "r2")])
      // Each root alone is within the limit.
      const alone = yield* discoverSkills({
        workspaceRoot: root,
        trusted: false,
        configPaths: ["r2", "r3"],
        maxDirectories: 10
      })
      assert.deepStrictEqual(alone.skills.map((s) => s.name), ["two", "three"])
      assert.deepStrictEqual(alone.diagnostics, [])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect(
    "S6 a 10,000-directory tree finishes with the limit diagnostic at the default 2,000",
    () =>
      Effect.gen(function*() {
        const root = tempDir()
        const home = tempDir()
        for (let i = 0; i < 100; i++) {
          for (let j = 0; j < 100; j++) mkdirSync(join(root, "s", `d${i}`, `e${j}`), { recursive: true })
        }
        writeTree(root, { "s/d99/e99/SKILL.md": skill("far") })
        writeTree(home, { ".agents/skills/later/SKILL.md": skill("later") })
        const found = yield* discoverSkills({
          workspaceRoot: root,
          trusted: false,
          configPaths: ["s"],
          homeDirectory: home
        })
        assert.strictEqual(SKILL_WALK_LIMITS.maxDirectories, 2_000)
        assert.deepStrictEqual(found.diagnostics.map((d) => [d.code, d.path]), [["directory-limit", join(root, "s")]])
        assert.deepStrictEqual(found.skills, [])
      }).pipe(Effect.provide(NodeServices.layer)),
    60_000
  )

  it.effect("S4 plugin skills are locked: a saved override naming one does not disable it", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "plug/x/SKILL.md": skill("x") })
      const options = { workspaceRoot: root, trusted: false, plugins: [{ plugin: "acme", directory: "plug" }] }
      const found = yield* discoverSkills({ ...options, overrides: { disabled: ["acme:x", "x"] } })
      assert.deepStrictEqual(found.skills.map((s) => [s.name, s.enabled, s.locked]), [["acme:x", true, true]])
      assert.strictEqual(setSkillEnabled(found, { disabled: [] }, "acme:x", false).change, "locked")
    }).pipe(Effect.provide(NodeServices.layer)))

  it("S9/S10 non-string fields, blank and boundary descriptions", () => {
    assert.deepStrictEqual(validateSkillFile("---\nname: 12\ndescription: 3\n---\n").diagnostics.map((d) => d.code), [
      "name-not-string",
      "description-not-string"
    ])
    assert.deepStrictEqual(validateSkillFile(skill("a", "'   '")).diagnostics.map((d) => d.code), [
      "description-missing"
    ])
    assert.isTrue(validateSkillFile(skill("a", "d".repeat(1024))).valid)
    assert.deepStrictEqual(validateSkillFile(skill("a", "d".repeat(1025))).diagnostics.map((d) => d.code), [
      "description-too-long"
    ])
    assert.isTrue(validateSkillFile(skill("a".repeat(64))).valid)
    assert.deepStrictEqual(validateSkillFile(skill("a".repeat(65))).diagnostics.map((d) => d.code), ["name-length"])
  })

  it("S11 SKILL.md may be exactly 64,000 bytes, not one more", () => {
    const head = skill("a", "d", "")
    const exact = head + "x".repeat(64_000 - new TextEncoder().encode(head).length)
    assert.isTrue(validateSkillFile(exact).valid)
    assert.deepStrictEqual(validateSkillFile(exact + "x").diagnostics.map((d) => d.code), ["file-too-large"])
  })

  it("S13 unknown frontmatter fields are accepted; bad YAML is an error", () => {
    const extra = validateSkillFile("---\nname: a\ndescription: d\nlicense: MIT\nmetadata:\n  k: v\n---\n")
    assert.isTrue(extra.valid)
    assert.deepStrictEqual(extra.diagnostics, [])
    const bad = validateSkillFile("---\nname: a\ndescription: [d\n---\n")
    assert.isFalse(bad.valid)
    assert.include(bad.diagnostics.map((d) => d.code), "frontmatter-yaml")
  })

  it.effect("S14 discovery names every error of a skipped skill", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "s/bad/SKILL.md": `---\nname: -Bad\ndescription: ${"d".repeat(1025)}\n---\n` })
      const found = yield* discoverSkills({ workspaceRoot: root, trusted: false, configPaths: ["s"] })
      assert.deepStrictEqual(found.skills, [])
      const invalid = found.diagnostics.find((d) => d.code === "invalid-skill")
      assert.strictEqual(
        invalid?.message,
        "Skipped an invalid skill: name-characters, name-leading-hyphen, description-too-long."
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("S17 an existing untrusted config file is refused and left as it was; a new one is created", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const file = join(root, ".ctxkit/config.json")
      writeTree(root, { ".ctxkit/config.json": "{\"model\":\"m\"}" })
      const refused = yield* Effect.flip(saveSkillOverrides(file, { disabled: ["pdf"] }, { trusted: false }))
      assert.strictEqual(refused._tag, "UntrustedConfigFile")
      assert.strictEqual(readFileSync(file, "utf8"), "{\"model\":\"m\"}")
      assert.deepStrictEqual(readdirSync(join(root, ".ctxkit")), ["config.json"])
      const fresh = join(root, "other/config.json")
      yield* saveSkillOverrides(fresh, { disabled: ["pdf"] }, { trusted: false })
      assert.deepStrictEqual(yield* readSkillOverrides(fresh), { disabled: ["pdf"] })
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("S17 concurrent saves use distinct temporary files, and leave none behind", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const file = join(root, "config.json")
      writeFileSync(file, "{}")
      yield* Effect.all(
        Array.from({ length: 8 }, () => saveSkillOverrides(file, { disabled: ["pdf"] }, { trusted: true })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(readdirSync(root), ["config.json"])
      assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")), { skills: { disabled: ["pdf"] } })
    }).pipe(Effect.provide(NodeServices.layer)))
})
