/**
 * Checks the TSDoc of every source file under `packages/<name>/src`:
 *
 * - examples: every fenced `ts`/`typescript` block of a TSDoc comment is type-checked as its own module, with the
 *   project's TypeScript and `tsconfig.base.json`, importing the packages as a user does (`@ctxkit/<name>`);
 * - categories: every `@category` is one of `CATEGORIES` (the set and its mapping are in docs/architecture.md);
 * - wording: no reference a reader of this repository cannot follow (`the seed`, `the tutorial`: say what it is).
 *
 * A failing example, a category outside the set or a wording finding fails the check. `--apply-categories`
 * rewrites every mapped `@category` in place (then run the check again). `--verbose` lists every finding instead
 * of a count per value.
 *
 * Run: `npm run check:tsdoc` (Node 24 strips the types of this file).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "..")
const args = new Set(process.argv.slice(2))
const verbose = args.has("--verbose")
const apply = args.has("--apply-categories")

/** The fixed set of `@category` values (docs/architecture.md, "TSDoc categories"). */
const CATEGORIES: ReadonlySet<string> = new Set([
  "operations",
  "constructors",
  "counting",
  "rendering",
  "formats",
  "plugins",
  "models",
  "schemas",
  "constants",
  "errors",
  "diagnostics",
  "events"
])

/** Each category in use before the set was fixed, and the one of the set it becomes. */
const CATEGORY_MAPPING: Readonly<Record<string, string>> = {
  "arbitraries": "constructors",
  "assembly": "operations",
  "attachment": "operations",
  "audit": "operations",
  "budget": "operations",
  "budgets": "counting",
  "caching": "counting",
  "calibration": "counting",
  "capping": "operations",
  "catalog": "operations",
  "clearing": "operations",
  "compaction": "operations",
  "counters": "counting",
  "decisions": "operations",
  "decoding": "operations",
  "detection": "operations",
  "discovery": "operations",
  "fitting": "operations",
  "formatting": "rendering",
  "governor": "operations",
  "grouping": "operations",
  "guards": "operations",
  "init": "operations",
  "laws": "operations",
  "ledger": "counting",
  "loading": "operations",
  "measuring": "counting",
  "messages": "rendering",
  "oracles": "operations",
  "overrides": "operations",
  "parsing": "operations",
  "placement": "operations",
  "planning": "operations",
  "presets": "constructors",
  "quotes": "operations",
  "recovery": "operations",
  "reducing": "operations",
  "registry": "plugins",
  "relevance": "operations",
  "renderers": "formats",
  "repair": "operations",
  "report": "operations",
  "reporting": "rendering",
  "services": "plugins",
  "strategies": "plugins",
  "stubs": "rendering",
  "tool kinds": "models",
  "tool mappings": "constructors",
  "triggers": "counting",
  "usage": "counting",
  "utils": "operations",
  "validation": "operations",
  "windows": "counting"
}

/** Phrases that point at something outside the repository without saying what it is. */
const UNFOLLOWABLE: ReadonlyArray<RegExp> = [
  /\b(?:the|a)\s+(?:[\w-]+\s+){0,2}?(?:seeds?|tutorials?)\b/gi
]

interface Example {
  readonly file: string
  readonly where: string
  readonly code: string
}

interface Finding {
  readonly where: string
  readonly value: string
}

const sourceFiles = (): ReadonlyArray<string> => {
  const out: Array<string> = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".ts")) out.push(full)
    }
  }
  const packages = path.join(root, "packages")
  for (const name of fs.readdirSync(packages).sort()) {
    const src = path.join(packages, name, "src")
    if (fs.existsSync(src)) walk(src)
  }
  return out.sort()
}

/** The TSDoc comments of a file (each `/** … *\/` attached to a node), with the line each starts on (0-based). */
const tsdocComments = (file: string, text: string): ReadonlyArray<{ readonly line: number; readonly text: string }> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const seen = new Set<number>()
  const out: Array<{ line: number; text: string }> = []
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) {
      if (seen.has(range.pos) || !text.startsWith("/**", range.pos)) continue
      seen.add(range.pos)
      out.push({ line: source.getLineAndCharacterOfPosition(range.pos).line, text: text.slice(range.pos, range.end) })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out.sort((a, b) => a.line - b.line)
}

// A comment line without its leading ` * ` (or the opening `/**` and closing `*/`).
const commentLine = (line: string): string =>
  line.replace(/^\s*\/\*\*\s?/, "").replace(/\s*\*\/\s*$/, "").replace(/^\s*\* ?/, "")

const examples: Array<Example> = []
const categories: Array<Finding> = []
const wording: Array<Finding> = []

for (const file of sourceFiles()) {
  const relative = path.relative(root, file)
  const text = fs.readFileSync(file, "utf8")
  for (const comment of tsdocComments(file, text)) {
    const lines = comment.text.split("\n")
    let fence: { start: number; body: Array<string> } | undefined
    lines.forEach((raw, k) => {
      const line = commentLine(raw)
      const at = `${relative}:${comment.line + k + 1}`
      if (fence !== undefined) {
        if (/^\s*```/.test(line)) {
          examples.push({ file, where: `${relative}:${fence.start}`, code: fence.body.join("\n") })
          fence = undefined
        } else fence.body.push(line)
        return
      }
      if (/^\s*```(?:ts|typescript)\s*$/.test(line)) {
        fence = { start: comment.line + k + 2, body: [] }
        return
      }
      const category = /@category\s+(.+?)\s*$/.exec(line)?.[1]
      if (category !== undefined && !CATEGORIES.has(category)) categories.push({ where: at, value: category })
    })
    // Wording is read over the whole comment, so that a phrase broken across two lines is found too.
    const prose = lines.map(commentLine).join("\n")
    for (const pattern of UNFOLLOWABLE) {
      for (const match of prose.matchAll(pattern)) {
        const offset = prose.slice(0, match.index).split("\n").length - 1
        wording.push({
          where: `${relative}:${comment.line + 1 + offset}`,
          value: match[0].replace(/\s+/g, " ").toLowerCase()
        })
      }
    }
  }
}

if (apply) {
  let rewritten = 0
  for (const file of sourceFiles()) {
    const text = fs.readFileSync(file, "utf8")
    const next = text.replace(
      /(@category\s+)(.+?)([ \t]*(?:\*\/)?[ \t]*)$/gm,
      (whole, tag: string, value: string, end: string) => {
        const target = CATEGORY_MAPPING[value]
        if (target === undefined) return whole
        rewritten++
        return `${tag}${target}${end}`
      }
    )
    if (next !== text) fs.writeFileSync(file, next)
  }
  process.stdout.write(`categories: ${rewritten} @category tags rewritten by the mapping\n`)
  process.exit(0)
}

// Type-check the examples as virtual files beside the file each documents: `@ctxkit/<name>` resolves through the
// workspace links as it does for a user's module, and an example of an internal module may import it relatively.
const checkExamples = (): ReadonlyMap<string, string> => {
  const config = ts.readConfigFile(path.join(root, "tsconfig.base.json"), ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    composite: false,
    incremental: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    // An example may name a value only to show its type.
    noUnusedLocals: false,
    noUnusedParameters: false,
    rewriteRelativeImportExtensions: false,
    allowImportingTsExtensions: true,
    customConditions: ["@ctxkit/source"]
  }
  delete options.tsBuildInfoFile
  delete options.rootDir
  delete options.outDir
  const virtual = new Map<string, string>()
  const whereOf = new Map<string, string>()
  examples.forEach((example, i) => {
    const name = path.join(path.dirname(example.file), `__tsdoc_example_${String(i).padStart(4, "0")}.ts`)
    // Each example is a module of its own (its names do not collide with another's).
    virtual.set(name, `${example.code}\nexport {}\n`)
    whereOf.set(name, example.where)
  })
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  const readFile = host.readFile.bind(host)
  host.getSourceFile = (name, language, onError, create) => {
    const code = virtual.get(path.resolve(name))
    return code === undefined
      ? getSourceFile(name, language, onError, create)
      : ts.createSourceFile(name, code, language)
  }
  host.fileExists = (name) => virtual.has(path.resolve(name)) || fileExists(name)
  host.readFile = (name) => virtual.get(path.resolve(name)) ?? readFile(name)
  const program = ts.createProgram([...virtual.keys()], options, host)
  const failed = new Map<string, string>()
  // Readers copy a public example into their own module: it imports the package, never a relative path.
  for (const example of examples) {
    const internal = example.file.split(path.sep).includes("internal")
    if (!internal && /\bfrom\s+["']\.\.?\//.test(example.code)) {
      failed.set(example.where, `${example.where}: a public example imports \`@ctxkit/<name>\`, not a relative path`)
    }
  }
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const name = diagnostic.file === undefined ? undefined : path.resolve(diagnostic.file.fileName)
    const where = name === undefined ? undefined : whereOf.get(name)
    if (where === undefined || failed.has(where) || diagnostic.file === undefined) continue
    const line = diagnostic.start === undefined
      ? 0
      : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
    const [file, start] = where.split(/:(?=\d+$)/)
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")
    failed.set(where, `${file}:${Number(start) + line}: ${message.slice(0, 200)}`)
  }
  return failed
}

const failed = checkExamples()
const out: Array<string> = []
for (const message of failed.values()) out.push(`example ${message}`)
out.push(`examples: ${examples.length - failed.size} compiled, ${failed.size} failed`)

const byValue = (findings: ReadonlyArray<Finding>): ReadonlyArray<[string, number]> => {
  const counts = new Map<string, number>()
  for (const f of findings) counts.set(f.value, (counts.get(f.value) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
}

if (verbose) { for (const f of categories) out.push(`category ${f.where}: "${f.value}" is not in the set`) }
else {
  for (const [value, n] of byValue(categories)) {
    const target = CATEGORY_MAPPING[value]
    out.push(
      `category "${value}" ×${n}: not in the set${target === undefined ? " (no mapping)" : ` (maps to "${target}")`}`
    )
  }
}
out.push(`categories: ${categories.length} outside the set (${byValue(categories).length} values)`)

for (const f of wording) out.push(`wording ${f.where}: "${f.value}": say what it is`)
out.push(`wording: ${wording.length} references a reader of the repository cannot follow`)

process.stdout.write(`${out.join("\n")}\n`)
process.exitCode = failed.size > 0 || wording.length > 0 || categories.length > 0 ? 1 : 0
