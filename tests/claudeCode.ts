/**
 * Reads the raw Claude Code sessions of `../shared/corpus/raw/claude-code/` (JSONL, one event a line) at test time,
 * never copied: the `message` of every `user` and `assistant` event, as Claude Code stored it — user turns as
 * Messages API messages, assistant turns as the API's response objects.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const candidates = [
  process.env["CTXKIT_CORPUS"] === undefined
    ? undefined
    : path.resolve(process.env["CTXKIT_CORPUS"], "../raw/claude-code"),
  path.resolve(import.meta.dirname, "../../shared/corpus/raw/claude-code"),
  path.resolve(process.cwd(), "../shared/corpus/raw/claude-code")
].filter((p): p is string => p !== undefined)

/** The raw Claude Code folder, or `undefined` when it is not on this machine. */
export const claudeCodeDir: string | undefined = candidates.find((p) => fs.existsSync(p))

export interface ClaudeCodeSession {
  /** The file, relative to the folder. */
  readonly name: string
  readonly messages: ReadonlyArray<unknown>
}

const files = (dir: string, base = ""): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((entry) =>
    entry.isDirectory()
      ? files(path.join(dir, entry.name), path.join(base, entry.name))
      : entry.name.endsWith(".jsonl")
      ? [path.join(base, entry.name)]
      : []
  )

/** Every session with at least one message, in a stable order. */
export const loadClaudeCodeSessions = (): ReadonlyArray<ClaudeCodeSession> => {
  if (claudeCodeDir === undefined) return []
  const dir = claudeCodeDir
  return files(dir).flatMap((name) => {
    const messages = fs.readFileSync(path.join(dir, name), "utf8").split("\n").flatMap((line) => {
      if (line.trim() === "") return []
      const event = JSON.parse(line) as { readonly type?: unknown; readonly message?: unknown }
      return (event.type === "user" || event.type === "assistant") && typeof event.message === "object"
        ? [event.message]
        : []
    })
    return messages.length === 0 ? [] : [{ name, messages }]
  })
}
