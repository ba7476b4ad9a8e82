import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type { InstructionKind, InstructionsOptions } from "../AgentsInstructions.ts"
import { OutsideWorkspace } from "../Errors.ts"
import { isWithin, readTextFile, realPathOr } from "./files.ts"

/** Per directory, the first existing name wins. `Agente.md` is deliberately absent: it is never read. */
export const FILE_NAMES: ReadonlyArray<readonly [string, InstructionKind]> = [
  ["AGENTS.override.md", "override"],
  ["AGENTS.md", "agents"],
  ["AGENT.md", "legacy"],
  ["CLAUDE.md", "claude"]
]

export const resolveWorkspace = Effect.fnUntraced(function*(options: InstructionsOptions, target?: string) {
  const path = yield* Path.Path
  const root = path.resolve(options.workspaceRoot)
  const cwd = path.resolve(root, target ?? options.cwd ?? root)
  if (!isWithin(path, root, cwd)) {
    return yield* new OutsideWorkspace({ path: cwd, workspaceRoot: root })
  }
  return { root, cwd }
})

/** The applied file of one directory, confined to `realRoot` when given. */
export const fileInDirectory = Effect.fnUntraced(function*(
  directory: string,
  names: ReadonlyArray<readonly [string, InstructionKind]>,
  realRoot: string | undefined
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  for (const [name, kind] of names) {
    const file = path.join(directory, name)
    const text = yield* readTextFile(fs, file)
    if (Option.isSome(text)) {
      // A symlink may point out of the workspace: such a file does not apply.
      if (realRoot !== undefined && !isWithin(path, realRoot, yield* realPathOr(fs, file))) continue
      return Option.some({ path: file, kind, text: text.value })
    }
  }
  return Option.none<{ readonly path: string; readonly kind: InstructionKind; readonly text: string }>()
})

export const projectNames = (claudeMdFallback: boolean | undefined) =>
  FILE_NAMES.filter(([, kind]) => claudeMdFallback === true || kind !== "claude")
