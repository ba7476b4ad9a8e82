/**
 * Lazy attachment of instruction files that live below the working directory, when a tool touches a path under
 * them: once per session and file, and again when the file changes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { type InstructionKind, type InstructionsOptions, truncationNotice } from "./AgentsInstructions.ts"
import type { InstructionsOptionAdjusted } from "./Diagnostics.ts"
import type { InvalidInstructionsOption, OutsideWorkspace } from "./Errors.ts"
import { fileInDirectory, projectNames, resolveWorkspace } from "./internal/agents.ts"
import { capClosestFirst, readMaxBytes, requireMaxBytes } from "./internal/cap.ts"
import { directoriesDown, fingerprint, isWithin, realPathOr, typeOf } from "./internal/files.ts"

/**
 * Per-session memory of attached nested files: absolute path to a fingerprint of the text attached. An immutable
 * value; keep one per session.
 *
 * @example
 * ```ts
 * import { emptyNestedState } from "@ctxkit/instructions"
 *
 * emptyNestedState.seen.size // 0
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface NestedState {
  /** Attached files and the fingerprint of the text attached. */
  readonly seen: ReadonlyMap<string, string>
}

/**
 * The state of a new session: nothing attached yet.
 *
 * @example
 * ```ts
 * import { emptyNestedState } from "@ctxkit/instructions"
 *
 * emptyNestedState.seen.size // 0
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const emptyNestedState: NestedState = { seen: new Map() }

/**
 * A tool call touching a path: `read` tools get instructions on their result; `write` and `process` calls are
 * returned to the model to reconsider.
 *
 * @example
 * ```ts
 * import type { TouchedPath } from "@ctxkit/instructions/NestedInstructions"
 *
 * const touch: TouchedPath = { path: "/repo/packages/api/src/a.ts", access: "read" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TouchedPath {
  /** The path the tool reads, writes or runs in. */
  readonly path: string
  /** `read`, `write` or `process`. */
  readonly access: "read" | "write" | "process"
}

/**
 * A nested file attached by {@link attachNestedInstructions}.
 *
 * @category models
 * @since 0.1.0
 */
export interface NestedFile {
  /** Absolute path. */
  readonly path: string
  /** Path relative to the workspace. */
  readonly label: string
  /** Which name supplied it. */
  readonly kind: InstructionKind
  /** The file's text. */
  readonly text: string
}

/**
 * What to do with a tool call: `none` (nothing new), `append` (add `text` to a read tool's result) or `reconsider`
 * (do not run the write/process call; return `text` to the model). `state` is the session's next state.
 *
 * @example
 * ```ts
 * import type { NestedAttachment } from "@ctxkit/instructions/NestedInstructions"
 * import { emptyNestedState } from "@ctxkit/instructions"
 *
 * const nothing: NestedAttachment = {
 *   action: "none",
 *   files: [],
 *   text: "",
 *   omittedBytes: 0,
 *   state: emptyNestedState,
 *   diagnostics: []
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface NestedAttachment {
  /** What the harness should do. */
  readonly action: "none" | "append" | "reconsider"
  /** Files newly attached (root-first), whole or cut to their tail; files dropped by the cap are not listed. */
  readonly files: ReadonlyArray<NestedFile>
  /** Text to attach; empty with `none`. */
  readonly text: string
  /** Bytes of farther files left out to fit `maxBytes` (0 when everything fit). */
  readonly omittedBytes: number
  /** The session's state after this call. */
  readonly state: NestedState
  /** The options that could not be used as given, with the value used instead (empty when none). */
  readonly diagnostics: ReadonlyArray<InstructionsOptionAdjusted>
}

/**
 * Heading of nested instructions attached to a read tool's result.
 *
 * @category constants
 * @since 0.1.0
 */
export const NESTED_READ_HEADER =
  "[Instructions for this path. The closest file wins on conflicts; the user's explicit prompts take priority.]"

/**
 * Heading of nested instructions returned instead of running a write or process call.
 *
 * @category constants
 * @since 0.1.0
 */
export const NESTED_RECONSIDER_HEADER =
  "[Not executed: new instructions apply to this path. Reconsider the call against them before retrying.]"

/**
 * Pure step: given the files found for a touched path (farthest first), keeps those not yet attached in this
 * session (or changed since), caps their text at `maxBytes` with the main assembly's rule, and returns the attachment
 * and the next state.
 *
 * The cap (default 32 KiB) keeps the closest files whole; the first that does not fit
 * keeps its tail and is labelled `(beginning truncated)`; farther files are dropped, and a truncation notice line
 * says how many bytes were omitted. Dropped files are not marked as seen, so a later touch can still attach them.
 * A `maxBytes` outside 1,024–1,048,576 is clamped into it (a fraction rounded down, the default when not a finite
 * number) and reported with an `InstructionsOptionAdjusted` in `diagnostics`, as `assembleInstructions` does.
 *
 * @example
 * ```ts
 * import { emptyNestedState, planNestedAttachment } from "@ctxkit/instructions"
 *
 * const files = [{ path: "/r/p/AGENTS.md", label: "p/AGENTS.md", kind: "agents" as const, text: "x" }]
 * const first = planNestedAttachment(emptyNestedState, files, "read")
 * planNestedAttachment(first.state, files, "read").action // "none"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const planNestedAttachment = (
  state: NestedState,
  files: ReadonlyArray<NestedFile>,
  access: TouchedPath["access"],
  options: {
    /** Cap on bytes of attached file text, 1,024–1,048,576. Default 32,768. */
    readonly maxBytes?: number
  } = {}
): NestedAttachment => {
  const { diagnostics, maxBytes } = readMaxBytes(options)
  const fresh = files.filter((f) => state.seen.get(f.path) !== fingerprint(f.text))
  if (fresh.length === 0) return { action: "none", files: [], text: "", omittedBytes: 0, state, diagnostics }
  const { capped, omittedBytes } = capClosestFirst(fresh, maxBytes)
  const kept = capped.filter((c) => c.status !== "dropped")
  const seen = new Map(state.seen)
  kept.forEach((c) => seen.set(c.item.path, fingerprint(c.item.text)))
  const header = access === "read" ? NESTED_READ_HEADER : NESTED_RECONSIDER_HEADER
  const text = [
    header,
    ...(omittedBytes > 0 ? [truncationNotice(omittedBytes, maxBytes)] : []),
    ...kept.map((c) => `## ${c.item.label}${c.status === "tail" ? " (beginning truncated)" : ""}\n${c.text}`)
  ].join("\n\n")
  return {
    action: access === "read" ? "append" : "reconsider",
    files: kept.map((c) => ({ ...c.item, text: c.text })),
    text,
    omittedBytes,
    state: { seen },
    diagnostics
  }
}

/**
 * Reads the instruction files of directories strictly below the working directory down to the touched path, and
 * attaches those this session has not seen (or that changed) via {@link planNestedAttachment}, held to
 * `options.maxBytes` like the main assembly. Paths outside the working directory attach nothing.
 *
 * @example
 * ```ts
 * import { attachNestedInstructions, emptyNestedState } from "@ctxkit/instructions"
 * import { NodeServices } from "@effect/platform-node"
 * import * as Effect from "effect/Effect"
 *
 * const program = attachNestedInstructions(
 *   { workspaceRoot: "/repo" },
 *   emptyNestedState,
 *   { path: "/repo/packages/api/src/a.ts", access: "read" }
 * ).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const attachNestedInstructions: (
  options: InstructionsOptions,
  state: NestedState,
  touched: TouchedPath
) => Effect.Effect<
  NestedAttachment,
  OutsideWorkspace | InvalidInstructionsOption,
  FileSystem.FileSystem | Path.Path
> = Effect.fn(
  "Instructions.attachNested"
)(function*(options: InstructionsOptions, state: NestedState, touched: TouchedPath) {
  // An Effect operation: a `maxBytes` that cannot be used fails, as in `loadInstructions`.
  const maxBytes = yield* requireMaxBytes(options.maxBytes)
  const path = yield* Path.Path
  const fs = yield* FileSystem.FileSystem
  const { cwd, root } = yield* resolveWorkspace(options)
  const target = path.resolve(cwd, touched.path)
  if (!isWithin(path, root, target) || !isWithin(path, cwd, target) || target === cwd) {
    return { action: "none", files: [], text: "", omittedBytes: 0, state, diagnostics: [] } satisfies NestedAttachment
  }
  // Directories strictly below cwd containing the target (the target itself may be a file or a directory).
  const below = directoriesDown(path, cwd, path.dirname(target)).slice(1)
  const targetIsDirectory = Option.getOrUndefined(yield* typeOf(fs, target)) === "Directory"
  const dirs = targetIsDirectory ? [...below, target] : below
  const realRoot = yield* realPathOr(fs, root)
  const found = yield* Effect.forEach(dirs, (d) => fileInDirectory(d, projectNames(options.claudeMdFallback), realRoot))
  const files = found.flatMap((f) => Option.isSome(f) ? [{ ...f.value, label: path.relative(root, f.value.path) }] : [])
  return planNestedAttachment(state, files, touched.access, { maxBytes })
})
