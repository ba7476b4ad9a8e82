/**
 * AGENTS.md: which instruction files apply to a working directory, in what order, and how they are capped
 * and assembled into one block of text for the model.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { InstructionsOptionAdjusted } from "./Diagnostics.ts"
import type { InvalidInstructionsOption, OutsideWorkspace } from "./Errors.ts"
import { FILE_NAMES, fileInDirectory, projectNames, resolveWorkspace } from "./internal/agents.ts"
import { CAP_BYTES_RANGE, CAP_DEFAULT_BYTES, capClosestFirst, readMaxBytes, requireMaxBytes } from "./internal/cap.ts"
import { directoriesDown, realPathOr } from "./internal/files.ts"

/**
 * Which file supplied a directory's instructions: `override` (AGENTS.override.md), `agents` (AGENTS.md),
 * `legacy` (AGENT.md) or `claude` (CLAUDE.md, only with `claudeMdFallback`).
 *
 * @category models
 * @since 0.1.0
 */
export type InstructionKind = "override" | "agents" | "legacy" | "claude"

/**
 * File names tried in each directory, first existing wins. `Agente.md` is deliberately absent: it is never read.
 *
 * @category constants
 * @since 0.1.0
 */
export const INSTRUCTION_FILE_NAMES: ReadonlyArray<readonly [string, InstructionKind]> = FILE_NAMES

/**
 * Default cap on the bytes of instruction file text (32 KiB).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_BYTES = CAP_DEFAULT_BYTES

/**
 * Allowed range of `maxBytes`, inclusive.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_BYTES_RANGE: readonly [number, number] = CAP_BYTES_RANGE

/**
 * The header placed above the assembled instructions.
 *
 * @category constants
 * @since 0.1.0
 */
export const INSTRUCTIONS_HEADER = "# Project instructions\n" +
  "The files below are concatenated from the farthest (global, then the workspace root) to the closest to the " +
  "working directory. When they conflict, the closest file wins. The user's explicit prompts take priority over " +
  "all of them."

/**
 * Label of the global instructions file (the config home is not shown to the model).
 *
 * @category constants
 * @since 0.1.0
 */
export const GLOBAL_LABEL = "<config home>"

/**
 * The notice line written when farther files were cut to fit `maxBytes`.
 *
 * @category rendering
 * @since 0.1.0
 */
export const truncationNotice = (omittedBytes: number, maxBytes: number): string =>
  `[instructions truncated: ${omittedBytes} bytes of farther files omitted to fit maxBytes ${maxBytes}; the closest files were kept]`

/**
 * One instruction file that applies: where it is, what kind it is and its text.
 *
 * @example
 * ```ts
 * import type { InstructionFile } from "@ctxkit/instructions"
 *
 * const file: InstructionFile = { path: "/repo/AGENTS.md", label: "AGENTS.md", kind: "agents", scope: "project", text: "Use pnpm." }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InstructionFile {
  /** Absolute path. */
  readonly path: string
  /** Path relative to the workspace (global files: `<config home>/AGENTS.md`). */
  readonly label: string
  /** Which name supplied it. */
  readonly kind: InstructionKind
  /** `global` (config home) or `project` (a workspace directory). */
  readonly scope: "global" | "project"
  /** The file's text. */
  readonly text: string
}

/**
 * What the cap did to one file: kept `whole`, kept its `tail`, or `dropped`.
 *
 * @category models
 * @since 0.1.0
 */
export interface AssembledFile {
  /** The file's label. */
  readonly label: string
  /** Absolute path. */
  readonly path: string
  /** Which name supplied it. */
  readonly kind: InstructionKind
  /** What the cap did. */
  readonly status: "whole" | "tail" | "dropped"
  /** UTF-8 bytes of the file's text. */
  readonly bytes: number
  /** Bytes that made it into the text. */
  readonly keptBytes: number
}

/**
 * The assembled instructions and an account of every file.
 *
 * @example
 * ```ts
 * import { assembleInstructions } from "@ctxkit/instructions"
 *
 * assembleInstructions([]).text // ""
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface AssembledInstructions {
  /** The text for the model; empty when no file applies. */
  readonly text: string
  /** Every input file, farthest first, with what the cap did to it. */
  readonly files: ReadonlyArray<AssembledFile>
  /** Bytes of farther files left out. */
  readonly omittedBytes: number
  /** The cap applied (after clamping into `MAX_BYTES_RANGE`). */
  readonly maxBytes: number
  /** The options that could not be used as given, with the value used instead (empty when none). */
  readonly diagnostics: ReadonlyArray<InstructionsOptionAdjusted>
}

/**
 * Assembles instruction files (farthest first: global, workspace root, …, working directory) into one text under
 * `INSTRUCTIONS_HEADER`, each under a `## label` line, capped at `maxBytes` of file text.
 *
 * The closest files are kept whole; the first that does not fit keeps its tail and is labelled
 * `(beginning truncated)`; farther files are dropped, and a `truncationNotice` line says how many bytes were
 * omitted. A `maxBytes` outside 1,024–1,048,576 is clamped into it (a fraction rounded down, the default when not a
 * finite number) and reported with an `InstructionsOptionAdjusted` in `diagnostics`. Pure.
 *
 * @example
 * ```ts
 * import { assembleInstructions } from "@ctxkit/instructions"
 *
 * const out = assembleInstructions([
 *   { path: "/r/AGENTS.md", label: "AGENTS.md", kind: "agents", scope: "project", text: "Use pnpm." }
 * ])
 * out.text.endsWith("## AGENTS.md\nUse pnpm.") // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const assembleInstructions = (
  files: ReadonlyArray<InstructionFile>,
  options: { readonly maxBytes?: number } = {}
): AssembledInstructions => {
  const { diagnostics, maxBytes } = readMaxBytes(options)
  const { capped, omittedBytes } = capClosestFirst(files, maxBytes)
  const assembled = capped.map((c) => ({
    label: c.item.label,
    path: c.item.path,
    kind: c.item.kind,
    status: c.status,
    bytes: c.bytes,
    keptBytes: c.keptBytes,
    text: c.text
  }))
  const sections = assembled.filter((f) => f.status !== "dropped").map((f) =>
    `## ${f.label}${f.status === "tail" ? " (beginning truncated)" : ""}\n${f.text}`
  )
  const text = sections.length === 0 ? "" : [
    INSTRUCTIONS_HEADER,
    ...(omittedBytes > 0 ? [truncationNotice(omittedBytes, maxBytes)] : []),
    ...sections
  ].join("\n\n")
  return {
    text,
    files: assembled.map(({ text: _text, ...rest }) => rest),
    omittedBytes,
    maxBytes,
    diagnostics
  }
}

/**
 * Where to look for instructions.
 *
 * @example
 * ```ts
 * import type { InstructionsOptions } from "@ctxkit/instructions/AgentsInstructions"
 *
 * const options: InstructionsOptions = { workspaceRoot: "/repo", cwd: "/repo/packages/api", configHome: "/home/me/.config/agent" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InstructionsOptions {
  /** The workspace root; no file outside it is read. */
  readonly workspaceRoot: string
  /** The working directory (inside the workspace); defaults to the root. */
  readonly cwd?: string
  /** The host's config home, for the global AGENTS.md; none when absent. */
  readonly configHome?: string
  /** Read CLAUDE.md in directories without an AGENTS file. Default false. */
  readonly claudeMdFallback?: boolean
  /** Cap on bytes of instruction text, 1,024–1,048,576. Default 32,768. */
  readonly maxBytes?: number
}

const GLOBAL_NAMES = INSTRUCTION_FILE_NAMES.filter(([, kind]) => kind === "override" || kind === "agents")

/** The global file, then one file per directory from the root down to `leaf`. */
const applicableFiles = Effect.fnUntraced(function*(
  options: InstructionsOptions,
  root: string,
  leaf: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const realRoot = yield* realPathOr(fs, root)
  const names = projectNames(options.claudeMdFallback)
  const globalFile = options.configHome === undefined
    ? Option.none()
    : yield* fileInDirectory(path.resolve(options.configHome), GLOBAL_NAMES, undefined)
  const global: ReadonlyArray<InstructionFile> = Option.match(globalFile, {
    onNone: () => [],
    onSome: (f) => [{ ...f, label: `${GLOBAL_LABEL}/${path.basename(f.path)}`, scope: "global" as const }]
  })
  const perDirectory = yield* Effect.forEach(
    directoriesDown(path, root, leaf),
    (directory) => Effect.map(fileInDirectory(directory, names, realRoot), (found) => ({ directory, found }))
  )
  return { global, perDirectory }
})

/**
 * Reads the instruction files that apply to the working directory — the global file, then one file per directory
 * from the workspace root down to `cwd` — and assembles them with {@link assembleInstructions}.
 *
 * Needs `FileSystem` and `Path` (provide `NodeServices.layer` from `@effect/platform-node` at the edge).
 *
 * @example
 * ```ts
 * import { loadInstructions } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = loadInstructions({ workspaceRoot: "/repo", cwd: "/repo/packages/api" }).pipe(
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const loadInstructions: (
  options: InstructionsOptions
) => Effect.Effect<
  AssembledInstructions,
  OutsideWorkspace | InvalidInstructionsOption,
  FileSystem.FileSystem | Path.Path
> = Effect.fn("Instructions.load")(function*(options: InstructionsOptions) {
  // An Effect operation: an option that cannot be used fails, naming it, rather than being replaced.
  const maxBytes = yield* requireMaxBytes(options.maxBytes)
  const path = yield* Path.Path
  const { cwd, root } = yield* resolveWorkspace(options)
  const { global, perDirectory } = yield* applicableFiles(options, root, cwd)
  const project = perDirectory.flatMap(({ found }) =>
    Option.isSome(found)
      ? [{ ...found.value, label: path.relative(root, found.value.path), scope: "project" as const }]
      : []
  )
  return assembleInstructions([...global, ...project], { maxBytes })
})

/**
 * One line of {@link explainInstructions}: a directory (or the global scope) and the file applied there.
 *
 * @category models
 * @since 0.1.0
 */
export interface ExplainedDirectory {
  /** `global` or `project`. */
  readonly scope: "global" | "project"
  /** Directory relative to the workspace (`.` is the root; `<config home>` for global). */
  readonly directory: string
  /** The applied file's label, or none. */
  readonly file: string | undefined
  /** Its kind, or `none`. */
  readonly kind: InstructionKind | "none"
}

/**
 * Lists, for the global scope and each directory from the workspace root to `target` (a file or directory), the
 * applied instruction file and its kind.
 *
 * @example
 * ```ts
 * import { explainInstructions } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = explainInstructions({ workspaceRoot: "/repo" }, "/repo/src/a.ts").pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const explainInstructions: (
  options: InstructionsOptions,
  target: string
) => Effect.Effect<ReadonlyArray<ExplainedDirectory>, OutsideWorkspace, FileSystem.FileSystem | Path.Path> = Effect
  .fn("Instructions.explain")(function*(options: InstructionsOptions, target: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { cwd: resolved, root } = yield* resolveWorkspace(options, target)
    const isDirectory = yield* fs.stat(resolved).pipe(
      Effect.map((info) => info.type === "Directory"),
      Effect.orElseSucceed(() => false)
    )
    const leaf = isDirectory || resolved === root ? resolved : path.dirname(resolved)
    const { global, perDirectory } = yield* applicableFiles(options, root, leaf)
    const globalLines: ReadonlyArray<ExplainedDirectory> = options.configHome === undefined ? [] : [{
      scope: "global",
      directory: GLOBAL_LABEL,
      file: global[0]?.label,
      kind: global[0]?.kind ?? "none"
    }]
    return [
      ...globalLines,
      ...perDirectory.map(({ directory, found }): ExplainedDirectory => ({
        scope: "project",
        directory: path.relative(root, directory) || ".",
        file: Option.isSome(found) ? path.relative(root, found.value.path) : undefined,
        kind: Option.isSome(found) ? found.value.kind : "none"
      }))
    ]
  })
