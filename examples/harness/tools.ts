/**
 * The harness's read-only tools over one folder, as an `effect/ai` toolkit: `list_files`, `read_file` and
 * `search`. Every path is resolved inside the folder; one that leaves it (`..`, an absolute path, a symbolic link
 * pointing out) is refused with a message the model can read, never opened.
 */
import { Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"

/** The most lines `search` returns, and the largest file it looks into. */
const MAX_MATCHES = 50
const MAX_SEARCH_BYTES = 1_000_000

export const ListFiles = Tool.make("list_files", {
  description: "List the files under a folder of the workspace (recursively), with their sizes in bytes.",
  parameters: Schema.Struct({ dir: Schema.optional(Schema.String) }),
  success: Schema.String
})

export const ReadFile = Tool.make("read_file", {
  description: "Read a whole file of the workspace.",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String
})

export const Search = Tool.make("search", {
  description: "Search the workspace's files for a regular expression; answers path:line: text for each match.",
  parameters: Schema.Struct({ pattern: Schema.String }),
  success: Schema.String
})

export const HarnessTools = Toolkit.make(ListFiles, ReadFile, Search)

/** `relative` inside `root`, or why not: the real path (symbolic links followed) must stay under the root. */
export const confine = (root: string, relative: string): { readonly file: string } | { readonly refused: string } => {
  const base = fs.realpathSync(root)
  if (path.isAbsolute(relative)) return { refused: `${relative} is an absolute path; give a path inside the workspace` }
  const joined = path.resolve(base, relative)
  const real = fs.existsSync(joined) ? fs.realpathSync(joined) : joined
  const inside = path.relative(base, real)
  if (inside.startsWith("..") || path.isAbsolute(inside)) {
    return { refused: `${relative} is outside the workspace; give a path inside it` }
  }
  return { file: real }
}

const walk = (root: string, dir: string, out: Array<string>): void => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) walk(root, full, out)
    else if (entry.isFile()) out.push(path.relative(root, full).split(path.sep).join("/"))
  }
}

/** Every file under `dir` (relative to the workspace), with its size. */
export const listFiles = (root: string, dir = "."): string => {
  const where = confine(root, dir)
  if ("refused" in where) return `error: ${where.refused}`
  if (!fs.existsSync(where.file) || !fs.statSync(where.file).isDirectory()) return `error: ${dir} is not a folder`
  const base = fs.realpathSync(root)
  const files: Array<string> = []
  walk(base, where.file, files)
  if (files.length === 0) return "(no files)"
  return files.map((file) => `${file}  ${fs.statSync(path.join(base, file)).size} bytes`).join("\n")
}

export const readFile = (root: string, file: string): string => {
  const where = confine(root, file)
  if ("refused" in where) return `error: ${where.refused}`
  if (!fs.existsSync(where.file) || !fs.statSync(where.file).isFile()) return `error: ${file} is not a file`
  return fs.readFileSync(where.file, "utf8")
}

export const search = (root: string, pattern: string): string => {
  let regex: RegExp
  try {
    regex = new RegExp(pattern)
  } catch {
    return `error: ${JSON.stringify(pattern)} is not a regular expression`
  }
  const base = fs.realpathSync(root)
  const files: Array<string> = []
  walk(base, base, files)
  const matches: Array<string> = []
  for (const file of files) {
    const full = path.join(base, file)
    if (fs.statSync(full).size > MAX_SEARCH_BYTES) continue
    const lines = fs.readFileSync(full, "utf8").split("\n")
    for (let i = 0; i < lines.length && matches.length < MAX_MATCHES; i++) {
      if (regex.test(lines[i] ?? "")) matches.push(`${file}:${i + 1}: ${(lines[i] ?? "").trim()}`)
    }
  }
  return matches.length === 0 ? "(no matches)" : matches.join("\n")
}

/** The toolkit's handlers over `root`: each answers with text, an `error: …` line when the call cannot be done. */
export const toolsLayer = (root: string) =>
  HarnessTools.toLayer(HarnessTools.of({
    list_files: ({ dir }) => Effect.sync(() => listFiles(root, dir)),
    read_file: ({ path: file }) => Effect.sync(() => readFile(root, file)),
    search: ({ pattern }) => Effect.sync(() => search(root, pattern))
  }))
