/**
 * How a harness's own tools map onto the kinds the governor reasons about (`read_file`, `write_file`,
 * `edit_file`, `bg_output`, `search_text`), with accessors that read a call's arguments: the path, the line
 * range, the task id, the pattern. Two more kinds, `list_files` and `shell`, only feed the usage summary.
 *
 * @since 0.1.0
 */
import type { ToolResultInfo } from "@ctxkit/core/MessageFormat"

/**
 * A call's arguments, parsed from the JSON text the model wrote. `{}` when that text is not a JSON object (the
 * raw text is in {@link ToolContext}).
 *
 * @example
 * ```ts
 * import { govern, type ToolKinds } from "@ctxkit/governor"
 * import type { ToolArguments, ToolContext } from "@ctxkit/governor/ToolKinds"
 *
 * // An accessor reads the parsed arguments; `{}` when the model wrote no JSON object.
 * const file = (args: ToolArguments): string | undefined => typeof args["file"] === "string" ? args["file"] : undefined
 * const myTools: ToolKinds = { view: { kind: "read_file", path: file } }
 * govern([], { mode: "shadow", toolKinds: myTools }).elisions // []
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ToolArguments = Readonly<Record<string, unknown>>

/**
 * What an accessor knows besides the arguments: the tool name as called, the raw arguments text, and the
 * harness's current file — the last path opened by a kind with `opensFile` (SWE-agent's `edit` names no path: it
 * edits the file `open` showed).
 *
 * @example
 * ```ts
 * import { govern, type ToolKinds } from "@ctxkit/governor"
 * import type { ToolArguments, ToolContext } from "@ctxkit/governor/ToolKinds"
 *
 * // An editor tool that names no path edits the file the harness has open.
 * const openFile = (_args: ToolArguments, context: ToolContext) => context.currentFile
 * const myTools: ToolKinds = {
 *   open: { kind: "read_file", path: (args) => typeof args["path"] === "string" ? args["path"] : undefined, opensFile: true },
 *   edit: { kind: "edit_file", path: openFile }
 * }
 * govern([], { mode: "shadow", toolKinds: myTools }).elisions // []
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolContext {
  /** The tool name as the call wrote it. */
  readonly tool: string
  /** The raw arguments text. */
  readonly raw: string
  /** The last path opened by a call whose kind has `opensFile`, if any. */
  readonly currentFile: string | undefined
}

/**
 * Reads one value from a call: the arguments and the {@link ToolContext} in, the value or `undefined` out.
 *
 * @category models
 * @since 0.1.0
 */
export type Accessor<A> = (args: ToolArguments, context: ToolContext) => A | undefined

/**
 * A tool that reads a file. `path` is required (a call whose path cannot be read is ignored); `startLine` and
 * `limit` describe a partial read; `sha256` reads the digest the tool reported for the file (default: a
 * `sha256` field on the result's message, or in its `meta`, when the message carries one result).
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadFileKind {
  readonly kind: "read_file"
  readonly path: Accessor<string>
  readonly startLine?: Accessor<number> | undefined
  readonly limit?: Accessor<number> | undefined
  /** True when the read is partial although it names no start line or limit (`tail`, a window). */
  readonly partial?: Accessor<boolean> | undefined
  readonly sha256?: ((result: ToolResultInfo, message: unknown) => string | undefined) | undefined
  /** The call makes `path` the current file (SWE-agent's `open`). */
  readonly opensFile?: boolean | undefined
}

/**
 * A tool that writes (`write_file`) or edits (`edit_file`) a file: every earlier read of its path is superseded
 * once its result comes back without an error.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileChangeKind {
  readonly kind: "write_file" | "edit_file"
  readonly path: Accessor<string>
  /** The call makes `path` the current file (SWE-agent's `create`). */
  readonly opensFile?: boolean | undefined
}

/**
 * A tool that returns the output of a background task. Queries with the same task id, offset (default 0) and
 * limit (default `defaultLimit`) are identical; `nextOffset` reads the offset a result says to continue from
 * (default: a `next_offset` number in the text) — a later query from that offset is new output and never
 * elided; `isEmpty` says a result has no output (default: blank text).
 *
 * Only for tools that return the whole output so far or the window asked for: a tool that returns only what
 * is new since the last call (a "read new output" tool) must not be mapped here.
 *
 * @category models
 * @since 0.1.0
 */
export interface BgOutputKind {
  readonly kind: "bg_output"
  readonly taskId: Accessor<string>
  readonly offset?: Accessor<number> | undefined
  readonly limit?: Accessor<number> | undefined
  readonly defaultLimit?: number | undefined
  readonly nextOffset?: ((text: string) => number | undefined) | undefined
  readonly isEmpty?: ((text: string) => boolean) | undefined
}

/**
 * A tool that searches file contents. Two calls are duplicates when their arguments are the same (the whole
 * arguments, compared as JSON with sorted keys) and `matches` of their results are equal; the default
 * `matches` keeps the text but drops elapsed-time figures. `pattern` is what the stub shows.
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchTextKind {
  readonly kind: "search_text"
  readonly pattern: Accessor<string>
  readonly matches?: ((text: string) => string) | undefined
}

/**
 * A tool that lists files (`find`, `glob`, `ls`). Never elided; its output's paths count for the usage summary.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListFilesKind {
  readonly kind: "list_files"
  /** Paths the call itself names (a directory), for the usage summary. */
  readonly paths?: Accessor<ReadonlyArray<string>> | undefined
}

/**
 * A tool that runs a process or a shell command. Never elided; every whole word of its command names a path
 * for the usage summary.
 *
 * @category models
 * @since 0.1.0
 */
export interface ShellKind {
  readonly kind: "shell"
  readonly command: Accessor<string>
}

/**
 * What a tool is, for the governor.
 *
 * @example
 * ```ts
 * import type { ToolKinds } from "@ctxkit/governor"
 * import type { ToolKind } from "@ctxkit/governor/ToolKinds"
 *
 * // One kind, shared by two tool names.
 * const poll: ToolKind = {
 *   kind: "bg_output",
 *   taskId: (args) => typeof args["id"] === "string" ? args["id"] : undefined,
 *   offset: (args) => typeof args["offset"] === "number" ? args["offset"] : undefined,
 *   defaultLimit: 200
 * }
 * const myTools: ToolKinds = { job_output: poll, task_output: poll }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ToolKind = ReadFileKind | FileChangeKind | BgOutputKind | SearchTextKind | ListFilesKind | ShellKind

/**
 * One entry of a {@link ToolKinds} mapping: a fixed kind, or a function that decides from the call (a shell tool
 * whose `cat FILE` is a read and `grep` a search); `undefined` leaves the call out.
 *
 * @example
 * ```ts
 * import { govern, type ToolKinds } from "@ctxkit/governor"
 * import type { ToolKindRule } from "@ctxkit/governor/ToolKinds"
 *
 * // A generic `fs` tool whose `op` argument says what the call is.
 * const fs: ToolKindRule = (args) => {
 *   const path = () => typeof args["path"] === "string" ? args["path"] : undefined
 *   if (args["op"] === "read") return { kind: "read_file", path }
 *   if (args["op"] === "write") return { kind: "write_file", path }
 *   return undefined
 * }
 * const myTools: ToolKinds = { fs }
 * govern([], { mode: "shadow", toolKinds: myTools }).elisions // []
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ToolKindRule = ToolKind | ((args: ToolArguments, context: ToolContext) => ToolKind | undefined)

/**
 * A harness's tools, by the name the model calls them. The key `"*"` applies to every tool not named.
 * Tools that map to nothing are never elided and never supersede anything.
 *
 * Ready-made: `seedToolKinds` (the default), `claudeCodeToolKinds`, `sweAgentToolKinds` and
 * `canonicalToolKinds` (the ctxkit corpus's canonical names).
 *
 * @example
 * ```ts
 * import { govern, type ToolKinds } from "@ctxkit/governor"
 *
 * const str = (value: unknown) => typeof value === "string" ? value : undefined
 * const myTools: ToolKinds = {
 *   view: { kind: "read_file", path: (args) => str(args["file"]) },
 *   patch: { kind: "edit_file", path: (args) => str(args["file"]) }
 * }
 * govern([], { mode: "shadow", toolKinds: myTools }).elisions // []
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ToolKinds = Readonly<Record<string, ToolKindRule>>
