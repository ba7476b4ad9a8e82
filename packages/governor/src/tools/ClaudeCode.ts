/**
 * A ready-made tool mapping for Claude Code's tools.
 *
 * @since 0.1.0
 */
import { field, intField, namedPaths, taskOutputIsEmpty } from "../internal/accessors.ts"
import { stringArg } from "../internal/args.ts"
import { classifyCommand } from "../internal/shell.ts"
import type { ToolKinds } from "../ToolKinds.ts"

const filePath = field("file_path")

/**
 * Claude Code's tools: `Read` (`file_path`, `offset` = start line, `limit`), `Write`, `Edit`, `MultiEdit`,
 * `NotebookEdit` (`notebook_path`), `Grep` (a search by `pattern`), `Glob` and `LS` (file listings),
 * `TaskOutput` (background output by `task_id`; it returns the whole output so far, so a later poll covers an
 * earlier one), and `Bash`, read from its command: `cat FILE` and `nl -ba FILE` are full reads,
 * `head -n N FILE` and `sed -n 'A,Bp' FILE` ranged reads, `rm FILE` an edit, `grep`/`rg …` a search,
 * `ls`/`find` a listing, anything else a shell command. `BashOutput` returns only the output that is new since
 * the previous call, so it is deliberately not mapped.
 *
 * @example
 * ```ts
 * import { claudeCodeToolKinds, govern } from "@ctxkit/governor"
 *
 * govern([], { mode: "shadow", toolKinds: claudeCodeToolKinds }).elisions // []
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const claudeCodeToolKinds: ToolKinds = {
  Read: { kind: "read_file", path: filePath, startLine: intField("offset"), limit: intField("limit") },
  Write: { kind: "write_file", path: filePath },
  Edit: { kind: "edit_file", path: filePath },
  MultiEdit: { kind: "edit_file", path: filePath },
  NotebookEdit: { kind: "edit_file", path: field("notebook_path") },
  Grep: { kind: "search_text", pattern: field("pattern") },
  Glob: { kind: "list_files", paths: namedPaths("path") },
  LS: { kind: "list_files", paths: namedPaths("path") },
  TaskOutput: { kind: "bg_output", taskId: field("task_id"), isEmpty: taskOutputIsEmpty },
  Bash: (args) => {
    const command = stringArg(args, "command")
    return command === undefined ? undefined : classifyCommand(command)
  }
}
