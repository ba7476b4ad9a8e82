import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

/** A fresh real temporary directory (real path, so symlinked tmp dirs compare equal). */
export const tempDir = (): string => realpathSync(mkdtempSync(join(tmpdir(), "ctxkit-instr-")))

/** Writes files given as relative path -> text under `root`. */
export const writeTree = (root: string, files: Record<string, string>): void => {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(root, rel)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
}
