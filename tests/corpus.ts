/**
 * Reads the real-transcript corpus from `../shared/corpus/normalized/` at test time (never copied into
 * this repository). `CTXKIT_CORPUS` overrides the location; when it is set, it is the only place looked at.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export interface CorpusConversation {
  readonly id: string
  readonly source: string
  readonly file: string
  readonly messages: ReadonlyArray<Record<string, unknown>>
  /** The conversation's metadata as the file has it (`compactions`, `agent`, `model`, …), when present. */
  readonly meta?: Readonly<Record<string, unknown>> | undefined
}

const override = process.env["CTXKIT_CORPUS"]

// The shared folder sits beside the checkout (`../shared`); a git worktree may sit deeper, so every ancestor of
// this repository is tried, nearest first.
const ancestors = (dir: string): ReadonlyArray<string> => {
  const parent = path.dirname(dir)
  return parent === dir ? [dir] : [dir, ...ancestors(parent)]
}

// An explicit location is authoritative: pointing it at an empty folder runs the suites as "corpus absent"
// even on a machine that has the shared corpus.
const candidates = override !== undefined && override !== ""
  ? [path.resolve(override)]
  : ancestors(path.resolve(import.meta.dirname, "..")).slice(1).map((dir) =>
    path.join(dir, "shared", "corpus", "normalized")
  )

const sourceDirs = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir).sort().map((name) => path.join(dir, name)).filter((p) => fs.statSync(p).isDirectory())

const holdsConversations = (dir: string): boolean =>
  fs.existsSync(dir) && sourceDirs(dir).some((source) => fs.readdirSync(source).some((f) => f.endsWith(".json")))

/** The corpus folder, or `undefined` when no conversation of it is on this machine. */
export const corpusDir: string | undefined = candidates.find(holdsConversations)

/**
 * True when the corpus is not on this machine. Suites that need it are `describe.skipIf(corpusAbsent)`, so
 * their tests are reported as skipped (not as passed) on the summary line; set `CTXKIT_CORPUS` to the
 * normalized folder to run them.
 */
export const corpusAbsent: boolean = corpusDir === undefined

/** Every conversation of the corpus, in a stable order; empty when the corpus is absent. */
export const loadCorpus = (): ReadonlyArray<CorpusConversation> => {
  if (corpusDir === undefined) return []
  const out: Array<CorpusConversation> = []
  for (const dir of sourceDirs(corpusDir)) {
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
      const file = path.join(dir, name)
      const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as {
        id: string
        source: string
        messages: Array<Record<string, unknown>>
        meta?: unknown
      }
      const meta = typeof parsed.meta === "object" && parsed.meta !== null && !Array.isArray(parsed.meta)
        ? { meta: parsed.meta as Readonly<Record<string, unknown>> }
        : {}
      out.push({ id: parsed.id, source: parsed.source, file, messages: parsed.messages, ...meta })
    }
  }
  return out
}
