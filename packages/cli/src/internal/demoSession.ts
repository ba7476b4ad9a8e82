/**
 * The demo's agent session, built at run time from the files this package ships (its sources, its bin, its
 * package.json): nothing of a transcript is stored in the repository. A coding agent is asked to check that the
 * HTML report's bar adds up to the window; it searches, reads files (one of them twice, around an edit), runs the
 * tests (they fail once), repeats a search, and is then asked about the demo command. Every tool result is the real
 * content of a real file, or the real matches of a search over them.
 *
 * @internal
 */
import type { Message } from "@ctxkit/core"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/** The package's root: this file is `src/internal/` or `dist/internal/` under it. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url))

/** The files the session reads, as the package ships them (a missing one is skipped). */
const files = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(ts|js)$/.test(name) && !name.endsWith(".d.ts")) found.push(relative(PACKAGE_ROOT, path))
    }
  }
  walk(join(PACKAGE_ROOT, "src"))
  walk(join(PACKAGE_ROOT, "bin"))
  return found
}

const read = (path: string): string => {
  try {
    return readFileSync(join(PACKAGE_ROOT, path), "utf8")
  } catch {
    return ""
  }
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/** `search_text`'s answer over the shipped files: `path:line: text` for each match, like ripgrep. */
const search = (pattern: string, paths: ReadonlyArray<string>): string => {
  const lines: Array<string> = []
  for (const path of paths) {
    read(path).split("\n").forEach((line, i) => {
      if (line.includes(pattern)) lines.push(`${path}:${i + 1}: ${line.trim()}`)
    })
  }
  return lines.length === 0 ? "no matches" : lines.join("\n")
}

/** One step of the session: what the harness appends before one model request. */
export interface DemoStep {
  /** What happened since the previous request, for the demo's output. */
  readonly what: string
  readonly append: ReadonlyArray<Message>
}

/** The session: the steps, in order, and the files it read (of those the package ships). */
export interface DemoSession {
  readonly steps: ReadonlyArray<DemoStep>
  readonly files: ReadonlyArray<string>
  readonly packageRoot: string
}

/** Builds the session from the package's files. */
export const demoSession = (): DemoSession => {
  const shipped = files()
  const pick = (suffix: string): string => shipped.find((p) => p.endsWith(suffix)) ?? suffix
  const report = pick("src/HtmlReport.ts")
  // A fixed list, so that the session stays the same as the package gains commands (a missing file is skipped).
  const others = ["src/Cli.ts", "src/bin.ts", "src/commands/demo.ts", "src/index.ts", "bin/ctxkit.js"].filter((p) =>
    shipped.includes(p)
  )
  let n = 0
  const callOf = (name: string, args: Record<string, unknown>) => ({
    id: `call_${String(++n).padStart(2, "0")}`,
    name,
    arguments: JSON.stringify(args)
  })
  const readResult = (id: string, path: string, content = read(path)): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: "read_file",
    content,
    sha256: sha256(content)
  })
  const steps: Array<DemoStep> = []
  const step = (what: string, ...append: ReadonlyArray<Message>) => steps.push({ what, append })

  step(
    "the system prompt and the task",
    {
      role: "system",
      content: "You are a coding agent in the ctxkit repository (TypeScript, npm workspaces). Use the tools; be brief."
    },
    {
      role: "user",
      content: "Check that the HTML report's bar adds up to the window, in packages/cli. Always run the tests " +
        "before you say you are done. Never edit files outside packages/cli."
    }
  )
  const search1 = callOf("search_text", { pattern: "renderReportHtml" })
  step("search_text renderReportHtml", {
    role: "assistant",
    content: "Let me find where the report is rendered.",
    toolCalls: [search1]
  }, {
    role: "tool",
    toolCallId: search1.id,
    toolName: "search_text",
    content: search("renderReportHtml", shipped)
  })
  const read1 = callOf("read_file", { path: report })
  step(
    `read_file ${report} (the whole file)`,
    { role: "assistant", content: "", toolCalls: [read1] },
    readResult(read1.id, report)
  )
  for (const batch of [others.slice(0, 3), others.slice(3, 6)]) {
    if (batch.length === 0) continue
    const calls = batch.map((path) => callOf("read_file", { path }))
    step(
      `read_file ×${batch.length} in parallel: ${batch.join(", ")}`,
      { role: "assistant", content: "", toolCalls: calls },
      ...calls.map((c, k) => readResult(c.id, batch[k] ?? ""))
    )
  }
  const test1 = callOf("run_process", { command: "npx vitest run packages/cli" })
  step("run_process: the tests fail", { role: "assistant", content: "Running the tests first.", toolCalls: [test1] }, {
    role: "tool",
    toolCallId: test1.id,
    toolName: "run_process",
    isError: true,
    content: "FAIL packages/cli/test/HtmlReport.test.ts > the bar adds up to the window\n" +
      "AssertionError: expected 4095 to equal 4096 (a part was rounded down)\nTests: 1 failed, 7 passed"
  })
  const search2 = callOf("search_text", { pattern: "renderReportHtml" })
  step("search_text renderReportHtml again (the same matches)", {
    role: "assistant",
    content: "Where else is it called?",
    toolCalls: [search2]
  }, { role: "tool", toolCallId: search2.id, toolName: "search_text", content: search("renderReportHtml", shipped) })
  const edit = callOf("edit_file", { path: report, old: "Math.round", new: "Math.floor" })
  step(`edit_file ${report}`, { role: "assistant", content: "The widths must be whole tokens.", toolCalls: [edit] }, {
    role: "tool",
    toolCallId: edit.id,
    toolName: "edit_file",
    content: `edited ${report}: 1 replacement`
  })
  const read2 = callOf("read_file", { path: report })
  step(
    `read_file ${report} again, after the edit`,
    { role: "assistant", content: "", toolCalls: [read2] },
    readResult(read2.id, report, read(report).replace("Math.round", "Math.floor"))
  )
  const test2 = callOf("run_process", { command: "npx vitest run packages/cli" })
  step("run_process: the tests pass", { role: "assistant", content: "", toolCalls: [test2] }, {
    role: "tool",
    toolCallId: test2.id,
    toolName: "run_process",
    content: "Test Files 2 passed (2)\nTests 9 passed (9)"
  }, { role: "assistant", content: `Fixed: the bar's parts are whole tokens now (${report}); the tests pass.` })
  const demo = [
    "src/commands/demo.ts",
    "src/internal/demoSession.ts",
    "src/internal/demoPipeline.ts",
    "src/internal/demoOverflow.ts",
    "src/internal/demoText.ts"
  ].filter((p) => shipped.includes(p))
  const reads = demo.map((path) => callOf("read_file", { path }))
  step(
    `a second question; read_file ×${demo.length} in parallel: ${demo.join(", ")}`,
    { role: "user", content: "Thanks. Now explain what `ctxkit demo` prints, in three lines." },
    { role: "assistant", content: "", toolCalls: reads },
    ...reads.map((c, k) => readResult(c.id, demo[k] ?? ""))
  )
  const demoFile = demo[0] ?? "src/commands/demo.ts"
  const edit2 = callOf("edit_file", {
    path: demoFile,
    old: "Exits 0 when it ran.",
    new: "Exits 0 when it ran (the overflow shown is the demonstration)."
  })
  step(
    `edit_file ${demoFile} (a doc comment), the answer, and a third question`,
    { role: "assistant", content: "The doc comment should say why it exits 0.", toolCalls: [edit2] },
    { role: "tool", toolCallId: edit2.id, toolName: "edit_file", content: `edited ${demoFile}: 1 replacement` },
    {
      role: "assistant",
      content: "It runs a real session through the engine at a small window, step by step, then shows a server " +
        "that silently truncates being caught."
    },
    { role: "user", content: "Which file should I read first to understand the bar?" }
  )
  const wasRead = new Set([report, ...others, ...demo])
  return { steps, files: shipped.filter((p) => wasRead.has(p)), packageRoot: PACKAGE_ROOT }
}
