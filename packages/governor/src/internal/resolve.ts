/**
 * Step 1 of the analysis: what one tool call is. The harness's `toolKinds` mapping turns a call (its name and
 * its JSON arguments) into one of the governor's kinds, with the few values the rules compare: a path and a line
 * range for reads, a task id and offset for background output, a pattern and an arguments key for searches.
 *
 * @internal
 */
import type { ToolCallInfo } from "@ctxkit/core/MessageFormat"
import type {
  BgOutputKind,
  ReadFileKind,
  SearchTextKind,
  ToolArguments,
  ToolContext,
  ToolKind,
  ToolKindRule,
  ToolKinds
} from "../ToolKinds.ts"
import { argumentsKey, parseArguments, stringArg } from "./args.ts"
import { lineNumber } from "./text.ts"

/** A call resolved through the tool mapping: its kind and the values the rules compare. */
export type Resolved =
  | {
    readonly kind: "read_file"
    readonly path: string
    readonly startLine: number | undefined
    readonly limit: number | undefined
    /** A range or a window was asked for: such a read is never hashed. */
    readonly partial: boolean
    readonly spec: ReadFileKind
    readonly opensFile: boolean
  }
  | { readonly kind: "write_file" | "edit_file"; readonly path: string; readonly opensFile: boolean }
  | {
    readonly kind: "bg_output"
    readonly taskId: string
    readonly offset: number
    /** Task id, offset and limit: two queries with the same key ask for the same output. */
    readonly key: string
    readonly spec: BgOutputKind
  }
  | {
    readonly kind: "search_text"
    readonly pattern: string
    /** The tool name and its canonical arguments: equal for the same search. */
    readonly key: string
    readonly spec: SearchTextKind
  }
  | { readonly kind: "list_files"; readonly paths: ReadonlyArray<string> }
  | { readonly kind: "shell"; readonly command: string }

/** What a call is for the governor, and (unmapped tools only) a path it names, for the usage summary. */
export interface ResolvedCall {
  readonly resolved: Resolved | undefined
  readonly pathArgument: string | undefined
}

/**
 * Calls a harness callback (an accessor, a rule, a `matches` reader…). One that throws reads as "no value": a
 * mistake in a harness's mapping costs a saving, never a request.
 */
export const attempt = <A>(f: (() => A | undefined) | undefined): A | undefined => {
  if (f === undefined) return undefined
  try {
    return f()
  } catch {
    return undefined
  }
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined

/** The rule for a tool name: its own entry, else the `"*"` entry. */
const ruleOf = (kinds: ToolKinds, name: string): ToolKindRule | undefined =>
  Object.hasOwn(kinds, name) ? kinds[name] : Object.hasOwn(kinds, "*") ? kinds["*"] : undefined

/** Reads a kind's accessors; a call whose required value (path, task id, pattern, command) is missing is ignored. */
const resolveKind = (kind: ToolKind, args: ToolArguments, context: ToolContext, raw: string): Resolved | undefined => {
  const read = <A>(accessor: ((args: ToolArguments, context: ToolContext) => A | undefined) | undefined) =>
    attempt(accessor === undefined ? undefined : () => accessor(args, context))
  switch (kind.kind) {
    case "read_file": {
      const path = nonEmpty(read(kind.path))
      if (path === undefined) return undefined
      const startLine = lineNumber(read(kind.startLine))
      const limit = lineNumber(read(kind.limit))
      const partial = startLine !== undefined || limit !== undefined || read(kind.partial) === true
      return { kind: "read_file", path, startLine, limit, partial, spec: kind, opensFile: kind.opensFile === true }
    }
    case "write_file":
    case "edit_file": {
      const path = nonEmpty(read(kind.path))
      return path === undefined ? undefined : { kind: kind.kind, path, opensFile: kind.opensFile === true }
    }
    case "bg_output": {
      const taskId = nonEmpty(read(kind.taskId))
      if (taskId === undefined) return undefined
      // The spec's defaults: offset 0, and the tool's default limit when the call gives none.
      const offset = lineNumber(read(kind.offset)) ?? 0
      const limit = lineNumber(read(kind.limit)) ?? lineNumber(kind.defaultLimit)
      const key = `${taskId}\u0000${offset}\u0000${limit ?? "default"}`
      return { kind: "bg_output", taskId, offset, key, spec: kind }
    }
    case "search_text": {
      const pattern = nonEmpty(read(kind.pattern))
      if (pattern === undefined) return undefined
      return { kind: "search_text", pattern, key: `${context.tool}\u0000${argumentsKey(raw)}`, spec: kind }
    }
    case "list_files": {
      const paths = read(kind.paths)
      return { kind: "list_files", paths: Array.isArray(paths) ? paths.filter((p) => typeof p === "string") : [] }
    }
    case "shell": {
      const command = read(kind.command)
      return typeof command === "string" ? { kind: "shell", command } : undefined
    }
    default:
      // A hand-written mapping with an unknown kind: the call is left out.
      return undefined
  }
}

/**
 * Resolves one call. `currentFile` is the file the harness has open (SWE-agent's `edit` names no path). A tool the
 * mapping does not know is never elided; only its `path`/`file_path` argument is kept, for the usage summary.
 */
export const resolveCall = (kinds: ToolKinds, call: ToolCallInfo, currentFile: string | undefined): ResolvedCall => {
  const name = typeof call.name === "string" ? call.name : ""
  const raw = typeof call.arguments === "string" ? call.arguments : ""
  const rule = ruleOf(kinds, name)
  if (rule === undefined || rule === null) {
    // Parsing is the costly part: only when the arguments may name a path.
    const pathArgument = raw.includes("path") ? stringArg(parseArguments(raw), "path", "file_path") : undefined
    return { resolved: undefined, pathArgument }
  }
  const args = parseArguments(raw)
  const context: ToolContext = { tool: name, raw, currentFile }
  const kind = typeof rule === "function" ? attempt(() => rule(args, context)) : rule
  if (typeof kind !== "object" || kind === null) return { resolved: undefined, pathArgument: undefined }
  return { resolved: resolveKind(kind, args, context, raw), pathArgument: undefined }
}
