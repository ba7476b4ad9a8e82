import { approximateCounter } from "@ctxkit/budget"
import {
  discoverSkills,
  loadSkill,
  readSkillOverrides,
  saveSkillOverrides,
  searchSkills,
  setSkillEnabled,
  skillCatalog,
  skillResource,
  validateSkill,
  validateSkillFile
} from "@ctxkit/instructions"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { skillRoots } from "../src/SkillDiscovery.ts"
import { validateSkillName } from "../src/SkillValidation.ts"
import { tempDir, writeTree } from "./helpers.ts"

const skill = (name: string, description = `Does ${name} things.`, body = `Body of ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`

describe("validateSkillName / validateSkillFile", () => {
  it("applies the Agent Skills name rules", () => {
    assert.deepStrictEqual(validateSkillName("good-name"), [])
    assert.deepStrictEqual(validateSkillName("a1"), [])
    assert.deepStrictEqual(validateSkillName("Bad--Name").map((d) => d.code), [
      "name-characters",
      "name-consecutive-hyphens"
    ])
    assert.deepStrictEqual(validateSkillName("-lead").map((d) => d.code), ["name-leading-hyphen"])
    assert.deepStrictEqual(validateSkillName("trail-").map((d) => d.code), ["name-trailing-hyphen"])
    assert.deepStrictEqual(validateSkillName("").map((d) => d.code), ["name-length"])
    assert.deepStrictEqual(validateSkillName("a".repeat(65)).map((d) => d.code), ["name-length"])
    assert.deepStrictEqual(validateSkillName("a".repeat(64)), [])
  })

  it("reports every problem of a malformed skill in one run", () => {
    const text = `---\nname: -Bad--\ndescription: ${"d".repeat(1025)}\n---\n${"x".repeat(64_000)}`
    const v = validateSkillFile(text, { directoryName: "other" })
    assert.isFalse(v.valid)
    assert.deepStrictEqual(v.diagnostics.map((d) => d.code), [
      "name-characters",
      "name-leading-hyphen",
      "name-trailing-hyphen",
      "name-consecutive-hyphens",
      "description-too-long",
      "file-too-large",
      "directory-mismatch"
    ])
  })

  it("reports missing frontmatter, bad YAML, missing fields; a directory mismatch is only a warning", () => {
    assert.deepStrictEqual(validateSkillFile("no frontmatter").diagnostics.map((d) => d.code), ["frontmatter-missing"])
    assert.deepStrictEqual(
      validateSkillFile("---\nname: [a\n---\n").diagnostics.map((d) => d.code)[0],
      "frontmatter-yaml"
    )
    assert.deepStrictEqual(validateSkillFile("---\n- a\n---\n").diagnostics.map((d) => d.code), [
      "frontmatter-not-mapping",
      "name-missing",
      "description-missing"
    ])
    const warned = validateSkillFile(skill("pdf"), { directoryName: "pdf-tools" })
    assert.isTrue(warned.valid)
    assert.deepStrictEqual(warned.diagnostics.map((d) => [d.code, d.severity]), [["directory-mismatch", "warning"]])
    assert.strictEqual(
      validateSkillFile("---\nname: pdf\ndescription: |\n  multi\n  line\n---\nB").description,
      "multi\nline\n"
    )
  })
})

describe("skillRoots", () => {
  it.effect("orders project (cwd up to root, trusted only), config, user, plugin roots", () =>
    Effect.gen(function*() {
      const base = { workspaceRoot: "/w", cwd: "/w/a", configPaths: ["cfg"], homeDirectory: "/h", configHome: "/c" }
      const plugins = [{ plugin: "vercel", directory: "/p" }]
      const trusted = yield* skillRoots({ ...base, trusted: true, hostDirectory: ".alisio", plugins })
      assert.deepStrictEqual(trusted.map((r) => `${r.source}:${r.directory}`), [
        "project:/w/a/.agents/skills",
        "project:/w/a/.alisio/skills",
        "project:/w/a/.claude/skills",
        "project:/w/.agents/skills",
        "project:/w/.alisio/skills",
        "project:/w/.claude/skills",
        "config:/w/cfg",
        "user:/h/.agents/skills",
        "user:/c/skills",
        "plugin:/p"
      ])
      const untrusted = yield* skillRoots({ ...base, trusted: false })
      assert.deepStrictEqual(untrusted.map((r) => r.source), ["config", "user", "user"])
    }).pipe(Effect.provide(Path.layer)))
})

describe("discoverSkills (real directories)", () => {
  it.effect("first name wins in root order, later copies are reported as shadowed; plugin names are prefixed", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const home = tempDir()
      writeTree(root, {
        "a/.claude/skills/pdf/SKILL.md": skill("pdf", "Near copy."),
        ".agents/skills/pdf/SKILL.md": skill("pdf", "Root copy."),
        ".agents/skills/bad/SKILL.md": skill("Bad--Name"),
        "plug/pdf/SKILL.md": skill("pdf", "Plugin copy.")
      })
      writeTree(home, { ".agents/skills/git/SKILL.md": skill("git"), ".agents/skills/pdf/SKILL.md": skill("pdf") })
      const found = yield* discoverSkills({
        workspaceRoot: root,
        cwd: join(root, "a"),
        trusted: true,
        homeDirectory: home,
        plugins: [{ plugin: "acme", directory: join(root, "plug") }]
      })
      assert.deepStrictEqual(found.skills.map((s) => [s.name, s.source, s.description, s.locked]), [
        ["pdf", "project", "Near copy.", false],
        ["git", "user", "Does git things.", false],
        ["acme:pdf", "plugin", "Plugin copy.", true]
      ])
      assert.deepStrictEqual(found.shadowed.map((s) => s.file), [
        join(root, ".agents/skills/pdf/SKILL.md"),
        join(home, ".agents/skills/pdf/SKILL.md")
      ])
      const codes = found.diagnostics.map((d) => d.code)
      assert.deepStrictEqual(codes.filter((c) => c === "shadowed").length, 2)
      assert.include(codes, "invalid-skill")
      const untrusted = yield* discoverSkills({ workspaceRoot: root, trusted: false, homeDirectory: home })
      assert.deepStrictEqual(untrusted.skills.map((s) => s.name), ["git", "pdf"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("walks 5 levels but not 6, skips hidden dirs and node_modules, never descends into a skill", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "s/a/b/c/d/five/SKILL.md": skill("five"),
        "s/a/b/c/d/e/six/SKILL.md": skill("six"),
        "s/.hidden/h/SKILL.md": skill("h"),
        "s/node_modules/n/SKILL.md": skill("n"),
        "s/outer/SKILL.md": skill("outer"),
        "s/outer/inner/SKILL.md": skill("inner")
      })
      const found = yield* discoverSkills({ workspaceRoot: root, trusted: false, configPaths: ["s"] })
      assert.deepStrictEqual(found.skills.map((s) => s.name).sort(), ["five", "outer"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("stops at the directory limit with a diagnostic", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`s/d${i}/x/keep.txt`, ""])))
      const found = yield* discoverSkills({
        workspaceRoot: root,
        trusted: false,
        configPaths: ["s"],
        maxDirectories: 10
      })
      const limit = found.diagnostics.filter((d) => d.code === "directory-limit")
      assert.strictEqual(limit.length, 1)
      assert.strictEqual(limit[0]?.path, join(root, "s"))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("finishes on a symlink loop with a diagnostic, and de-duplicates roots by real path", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, { "s/a/ok/SKILL.md": skill("ok") })
      symlinkSync(join(root, "s"), join(root, "s/a/loop"))
      symlinkSync(join(root, "s"), join(root, "alias"))
      const found = yield* discoverSkills({ workspaceRoot: root, trusted: false, configPaths: ["s", "alias"] })
      assert.deepStrictEqual(found.skills.map((s) => s.name), ["ok"])
      assert.deepStrictEqual(found.shadowed, [])
      assert.include(found.diagnostics.map((d) => d.code), "symlink-loop")
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("catalog, load, resource, search", () => {
  it.effect("the catalog holds names, descriptions and token costs; the body only comes with loadSkill", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const text = skill("pdf", "Fill PDF forms.", "SECRET BODY")
      writeTree(root, {
        "s/pdf/SKILL.md": text,
        "s/pdf/ref/forms.md": "form help",
        "s/pdf/big.txt": "x".repeat(2000),
        "outside.txt": "no",
        "s/git/SKILL.md": skill("git", "Commit and rebase.")
      })
      symlinkSync(join(root, "outside.txt"), join(root, "s/pdf/escape.txt"))
      const found = yield* discoverSkills({ workspaceRoot: root, trusted: false, configPaths: ["s"] })
      const catalog = skillCatalog(found)
      assert.strictEqual(catalog.mode, "list")
      // The approximate count is budget's, not one written here: the two cannot drift apart.
      assert.deepStrictEqual(catalog.entries.map((e) => [e.name, e.tokens]), [
        ["git", approximateCounter.count(skill("git", "Commit and rebase."))],
        ["pdf", approximateCounter.count(text)]
      ])
      assert.deepStrictEqual(catalog.entries.map((e) => e.tokens), [
        Math.ceil(skill("git", "Commit and rebase.").length / 4),
        Math.ceil(text.length / 4)
      ])
      assert.include(catalog.text, "- pdf: Fill PDF forms.")
      assert.notInclude(catalog.text, "SECRET")
      assert.notInclude(catalog.text, root)
      assert.strictEqual(skillCatalog(found, { maxChars: 50 }).mode, "pointer")
      assert.include(skillCatalog(found, { maxChars: 50 }).text, "skill_search")
      const loaded = yield* loadSkill(found, "pdf")
      assert.strictEqual(loaded.body, "SECRET BODY\n")
      assert.strictEqual(loaded.tokens, approximateCounter.count(loaded.body))
      assert.strictEqual(yield* skillResource(found, "pdf", "ref/forms.md"), "form help")
      const reasons = yield* Effect.forEach(
        ["../git/SKILL.md", "/etc/passwd", "escape.txt", "nope.md"],
        (r) => Effect.flip(skillResource(found, "pdf", r))
      )
      assert.deepStrictEqual(reasons.map((e) => e._tag === "SkillResourceDenied" ? e.reason : e._tag), [
        "outside",
        "outside",
        "outside",
        "missing"
      ])
      const big = yield* Effect.flip(skillResource(found, "pdf", "big.txt", { maxBytes: 1000 }))
      assert.strictEqual(big._tag === "SkillResourceDenied" && big.reason, "too-large")
      const unknown = yield* Effect.flip(loadSkill(found, "nope"))
      assert.strictEqual(unknown._tag, "SkillNotFound")
      assert.deepStrictEqual(searchSkills(catalog.entries, "PDF").map((e) => e.name), ["pdf"])
      assert.deepStrictEqual(searchSkills(catalog.entries, "rebase commit").map((e) => e.name), ["git"])
      assert.deepStrictEqual(searchSkills(catalog.entries, "pdf rebase"), [])
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("overrides", () => {
  it.effect("a disabled winner leaves the catalog and does not promote its shadowed copy; saved atomically", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "first/pdf/SKILL.md": skill("pdf", "First."),
        "second/pdf/SKILL.md": skill("pdf", "Second."),
        "plug/x/SKILL.md": skill("x"),
        ".ctxkit/config.json": JSON.stringify({ model: "m" })
      })
      const options = {
        workspaceRoot: root,
        trusted: false,
        configPaths: ["first", "second"],
        plugins: [{ plugin: "acme", directory: join(root, "plug") }]
      }
      const before = yield* discoverSkills(options)
      const toggle = setSkillEnabled(before, { disabled: [] }, "pdf", false)
      assert.strictEqual(toggle.change, "disabled")
      assert.strictEqual(setSkillEnabled(before, toggle.overrides, "pdf", false).change, "unchanged")
      assert.strictEqual(setSkillEnabled(before, toggle.overrides, "acme:x", false).change, "locked")
      assert.strictEqual(setSkillEnabled(before, toggle.overrides, "zzz", false).change, "unknown")
      const file = join(root, ".ctxkit/config.json")
      yield* saveSkillOverrides(file, toggle.overrides, { trusted: true })
      assert.deepStrictEqual(readdirSync(join(root, ".ctxkit")), ["config.json"])
      assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")), { model: "m", skills: { disabled: ["pdf"] } })
      const overrides = yield* readSkillOverrides(file)
      const after = yield* discoverSkills({ ...options, overrides })
      assert.deepStrictEqual(after.skills.map((s) => [s.name, s.description, s.enabled]), [
        ["pdf", "First.", false],
        ["acme:x", "Does x things.", true]
      ])
      assert.deepStrictEqual(skillCatalog(after).entries.map((e) => e.name), ["acme:x"])
      const disabled = yield* Effect.flip(loadSkill(after, "pdf"))
      assert.strictEqual(disabled._tag === "SkillNotFound" && disabled.reason, "disabled")
      mkdirSync(join(root, "fresh"))
      yield* saveSkillOverrides(join(root, "fresh/new/config.json"), { disabled: [] }, { trusted: false })
      assert.deepStrictEqual(yield* readSkillOverrides(join(root, "fresh/new/config.json")), { disabled: [] })
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("validateSkill (a path)", () => {
  it.effect("reports every diagnostic of every skill under a root, a directory, or a SKILL.md", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTree(root, {
        "skills/good-name/SKILL.md": skill("good-name"),
        "skills/bad/SKILL.md": "---\nname: -lead\n---\n"
      })
      const report = yield* validateSkill(join(root, "skills"))
      assert.isFalse(report.valid)
      assert.deepStrictEqual(report.skills.map((s) => s.validation.diagnostics.map((d) => d.code)), [
        ["name-leading-hyphen", "description-missing", "directory-mismatch"],
        []
      ])
      assert.isTrue((yield* validateSkill(join(root, "skills/good-name"))).valid)
      assert.isTrue((yield* validateSkill(join(root, "skills/good-name/SKILL.md"))).valid)
      const empty = yield* validateSkill(join(root, "nothing"))
      assert.deepStrictEqual(empty.diagnostics.map((d) => d.code), ["no-skill"])
    }).pipe(Effect.provide(NodeServices.layer)))
})
