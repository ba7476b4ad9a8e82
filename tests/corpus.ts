/**
 * Reads the real-transcript corpus from `../shared/corpus/normalized/` at test time (never copied into
 * this repository). `CTXKIT_CORPUS` overrides the location.
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

const candidates = [
  process.env["CTXKIT_CORPUS"],
  path.resolve(import.meta.dirname, "../../shared/corpus/normalized"),
  path.resolve(process.cwd(), "../shared/corpus/normalized")
].filter((p): p is string => p !== undefined)

/** The corpus folder, or `undefined` when it is not on this machine. */
export const corpusDir: string | undefined = candidates.find((p) => fs.existsSync(p))

/** Every conversation of the corpus, in a stable order. */
export const loadCorpus = (): ReadonlyArray<CorpusConversation> => {
  if (corpusDir === undefined) return []
  const out: Array<CorpusConversation> = []
  for (const source of fs.readdirSync(corpusDir).sort()) {
    const dir = path.join(corpusDir, source)
    if (!fs.statSync(dir).isDirectory()) continue
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
