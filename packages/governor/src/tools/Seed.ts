/**
 * The default tool mapping: the tool names of the Context Governor design (`read_file`, `bg_output`, …).
 *
 * @since 0.1.0
 */
import { field, intField, namedPaths } from "../internal/accessors.ts"
import { stringArg } from "../internal/args.ts"
import type { Accessor, ToolKinds } from "../ToolKinds.ts"

/** `command` (or `cmd`) as text, or `argv`/`args` joined by spaces. */
const command: Accessor<string> = (args) => {
  const text = stringArg(args, "command", "cmd")
  if (text !== undefined) return text
  const argv = Object.hasOwn(args, "argv") ? args["argv"] : Object.hasOwn(args, "args") ? args["args"] : undefined
  return Array.isArray(argv) && argv.every((a) => typeof a === "string") ? argv.join(" ") : undefined
}

const path = field("path", "file_path", "filePath")
const listing = { kind: "list_files", paths: namedPaths("path", "dir", "directory") } as const

/**
 * The Context Governor design's tool names, the default `toolKinds`: `read_file` (`path`, `startLine`, `limit`), `write_file` and
 * `edit_file` (`path`), `bg_output` (`id`/`task_id`/`taskId`, `offset`, `limit`), `search_text` (`pattern`);
 * `list_files`, `list_dir`, `glob` and `find_files` list files; `run_process` and `shell` run commands
 * (`command`, or `argv` joined).
 *
 * @example
 * ```ts
 * import { govern, seedToolKinds } from "@ctxkit/governor"
 *
 * govern([], { mode: "shadow", toolKinds: seedToolKinds }).elisions // []
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const seedToolKinds: ToolKinds = {
  read_file: {
    kind: "read_file",
    path,
    startLine: intField("startLine", "start_line"),
    limit: intField("limit")
  },
  write_file: { kind: "write_file", path },
  edit_file: { kind: "edit_file", path },
  bg_output: {
    kind: "bg_output",
    taskId: field("id", "task_id", "taskId"),
    offset: intField("offset"),
    limit: intField("limit")
  },
  search_text: { kind: "search_text", pattern: field("pattern", "query", "regex") },
  list_files: listing,
  list_dir: listing,
  glob: listing,
  find_files: listing,
  run_process: { kind: "shell", command },
  shell: { kind: "shell", command }
}
