/**
 * The session store layers every store-facing test runs against: the memory layer, and the SQLite layer on a
 * fresh file in a fresh folder (removed when the layer is released). Each build starts empty, as the memory
 * layer does.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionStore } from "../src/SessionStore.ts"

/** A SQLite store on a new file; `onFile` learns the file's path (to reopen it). */
export const sqliteStore = (onFile?: (filename: string) => void): Layer.Layer<SessionStore> =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "ctxkit-store-"))),
        (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
      ),
      (folder) => {
        const filename = join(folder, "sessions.db")
        onFile?.(filename)
        return Layer.orDie(SessionStore.layerSqlite({ filename }))
      }
    )
  )

/** The layers, by name, for `describe.each`. */
export const storeLayers: ReadonlyArray<{ readonly name: string; readonly store: Layer.Layer<SessionStore> }> = [
  { name: "memory", store: SessionStore.layerMemory },
  { name: "sqlite", store: sqliteStore() }
]
