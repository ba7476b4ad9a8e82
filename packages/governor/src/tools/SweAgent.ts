/**
 * A ready-made tool mapping for SWE-agent's commands.
 *
 * @since 0.1.0
 */
import { commandOperands, currentFile, operandInt } from "../internal/accessors.ts"
import { intArg, stringArg } from "../internal/args.ts"
import { classifyCommand } from "../internal/shell.ts"
import type { Accessor, ToolKind, ToolKinds } from "../ToolKinds.ts"

/** A named argument, else the `index`-th operand of the command text. */
const argOrOperand = (name: string, key: string, index: number): Accessor<string> => (args, context) =>
  stringArg(args, key) ?? commandOperands(args, context, name)[index]

const intOrOperand = (name: string, key: string, index: number): Accessor<number> => (args, context) =>
  intArg(args, key) ?? operandInt(args, context, name, index)

const shellRule = (args: Parameters<Accessor<string>>[0]): ToolKind | undefined => {
  const command = stringArg(args, "command")
  return command === undefined ? undefined : classifyCommand(command)
}

/**
 * SWE-agent's commands, in both its thought-action form (`{"command":"open src/a.py 40"}`) and its
 * function-calling form (`{"path":"src/a.py","line_number":40}`): `open` (a partial read — a window — that makes
 * the file current), `goto` (a window of the current file), `create` (a write that makes the file current),
 * `edit` and `insert` (edits of the current file), `search_dir` and `search_file` (searches by `search_term`),
 * `find_file` (a listing). `scroll_up`/`scroll_down` show a window whose position the call does not say, so they
 * are not mapped. Every other command, and `bash`, is read from its command text: `cat FILE` is a full read,
 * `rm FILE` an edit, `grep …` a search, `ls`/`find` a listing, anything else a shell command.
 *
 * @example
 * ```ts
 * import { govern, sweAgentToolKinds } from "@ctxkit/governor"
 *
 * govern([], { mode: "shadow", toolKinds: sweAgentToolKinds }).elisions // []
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const sweAgentToolKinds: ToolKinds = {
  open: {
    kind: "read_file",
    path: argOrOperand("open", "path", 0),
    startLine: intOrOperand("open", "line_number", 1),
    partial: () => true,
    opensFile: true
  },
  goto: {
    kind: "read_file",
    path: currentFile,
    startLine: intOrOperand("goto", "line_number", 0),
    partial: () => true
  },
  create: { kind: "write_file", path: argOrOperand("create", "filename", 0), opensFile: true },
  edit: { kind: "edit_file", path: currentFile },
  insert: { kind: "edit_file", path: currentFile },
  search_dir: { kind: "search_text", pattern: argOrOperand("search_dir", "search_term", 0) },
  search_file: { kind: "search_text", pattern: argOrOperand("search_file", "search_term", 0) },
  find_file: {
    kind: "list_files",
    paths: (args, context) => {
      const dir = stringArg(args, "dir") ?? commandOperands(args, context, "find_file")[1]
      return dir === undefined ? undefined : [dir]
    }
  },
  bash: shellRule,
  "*": shellRule
}
