/**
 * A ready-made tool mapping for the canonical tool names of the ctxkit corpus (`read_file`, `edit_file`,
 * `write_file`, `search`, `background_output`, `run_command`, …), whose calls keep each harness's original
 * arguments.
 *
 * @since 0.1.0
 */
import { currentFile, field, intField, namedPaths, taskOutputIsEmpty } from "../internal/accessors.ts"
import { stringArg } from "../internal/args.ts"
import { classifyCommand, shellWords } from "../internal/shell.ts"
import type { ToolArguments, ToolKind, ToolKinds } from "../ToolKinds.ts"
import { sweAgentToolKinds } from "./SweAgent.ts"

/** The SWE-agent rule for a command word (`open`, `goto`, `create`, …), when the command starts with one. */
const sweCommand = (args: ToolArguments): ToolKind | undefined => {
  const command = stringArg(args, "command")
  if (command === undefined) return undefined
  const name = shellWords(command).words[0]
  if (name === undefined || name === "bash" || name === "*" || !Object.hasOwn(sweAgentToolKinds, name)) return undefined
  const rule = sweAgentToolKinds[name]
  return typeof rule === "function" ? undefined : rule
}

/** The command read as a shell command, when it is of the wanted kind. */
const shellOf = (args: ToolArguments, kinds: ReadonlyArray<ToolKind["kind"]>): ToolKind | undefined => {
  const command = stringArg(args, "command")
  if (command === undefined) return undefined
  const kind = classifyCommand(command)
  return kinds.includes(kind.kind) ? kind : undefined
}

const sweOf = (args: ToolArguments, kinds: ReadonlyArray<ToolKind["kind"]>): ToolKind | undefined => {
  const kind = sweCommand(args)
  return kind !== undefined && kinds.includes(kind.kind) ? kind : undefined
}

const filePath = field("file_path")

/**
 * The corpus's canonical names, with the original arguments of Claude Code, SWE-agent (both forms) and Cline:
 * - `read_file`: `file_path` (+ `offset`, `limit`), or `path` (+ `line_number`; a window that makes the file
 *   current), or a command — SWE-agent's `open`/`goto`, or `cat`, `nl`, `head`, `sed -n`;
 * - `edit_file`: `file_path`, `notebook_path` or `path`; SWE-agent's `edit`/`insert` (the current file); `rm FILE`;
 * - `write_file`: `file_path`, `path`, or `filename`/`create FILE` (which make the file current);
 * - `search`: `pattern`, `search_term`, SWE-agent's `search_dir`/`search_file`, or a `grep`/`rg` command;
 * - `background_output`: `task_id` (Claude Code's `TaskOutput`);
 * - `run_command`: a shell command; `find_files` and `list_dir`: listings.
 * A call none of these reads is left out (never elided, supersedes nothing).
 *
 * @example
 * ```ts
 * import { canonicalToolKinds, govern } from "@ctxkit/governor"
 *
 * govern([], { mode: "shadow", toolKinds: canonicalToolKinds }).elisions // []
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const canonicalToolKinds: ToolKinds = {
  read_file: (args) => {
    if (stringArg(args, "file_path") !== undefined) {
      return { kind: "read_file", path: filePath, startLine: intField("offset"), limit: intField("limit") }
    }
    if (stringArg(args, "path") !== undefined) {
      return {
        kind: "read_file",
        path: field("path"),
        startLine: intField("line_number"),
        partial: () => true,
        opensFile: true
      }
    }
    return sweOf(args, ["read_file"]) ?? shellOf(args, ["read_file"])
  },
  edit_file: (args) => {
    if (stringArg(args, "file_path") !== undefined) return { kind: "edit_file", path: filePath }
    if (stringArg(args, "notebook_path") !== undefined) return { kind: "edit_file", path: field("notebook_path") }
    if (stringArg(args, "path") !== undefined) return { kind: "edit_file", path: field("path") }
    const swe = sweOf(args, ["edit_file"])
    if (swe !== undefined) return swe
    if (stringArg(args, "command") === undefined && (Object.hasOwn(args, "search") || Object.hasOwn(args, "text"))) {
      return { kind: "edit_file", path: currentFile }
    }
    return shellOf(args, ["edit_file"])
  },
  write_file: (args) => {
    if (stringArg(args, "file_path") !== undefined) return { kind: "write_file", path: filePath }
    if (stringArg(args, "path") !== undefined) return { kind: "write_file", path: field("path") }
    if (stringArg(args, "filename") !== undefined) {
      return { kind: "write_file", path: field("filename"), opensFile: true }
    }
    return sweOf(args, ["write_file"])
  },
  search: (args) => {
    if (stringArg(args, "pattern") !== undefined) return { kind: "search_text", pattern: field("pattern") }
    if (stringArg(args, "search_term") !== undefined) return { kind: "search_text", pattern: field("search_term") }
    return sweOf(args, ["search_text"]) ?? shellOf(args, ["search_text"])
  },
  background_output: { kind: "bg_output", taskId: field("task_id"), isEmpty: taskOutputIsEmpty },
  run_command: { kind: "shell", command: field("command") },
  find_files: { kind: "list_files", paths: namedPaths("path", "dir") },
  list_dir: { kind: "list_files", paths: namedPaths("path", "dir") }
}
