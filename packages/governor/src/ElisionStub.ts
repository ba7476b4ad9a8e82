/**
 * The one-line stubs that replace redundant tool results in a request, and the three reasons a result is
 * replaced.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { asciiJson, digestPrefix, lineNumber } from "./internal/text.ts"

/**
 * Why a tool result was replaced by a stub (policy version 1):
 * - `superseded_read`: a later `write_file` or `edit_file` changed the same path, or a later `read_file` of it
 *   returned another sha256;
 * - `stale_bg_output`: a later `bg_output` of the same task has identical arguments, or this query returned
 *   empty text;
 * - `duplicate_search`: a later `search_text` has the same arguments and the same matches.
 *
 * @example
 * ```ts
 * import { govern } from "@ctxkit/governor"
 *
 * const history = [
 *   { role: "user", content: "Rename x to y in src/a.ts" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "r1", name: "read_file", arguments: "{\"path\":\"src/a.ts\"}" }] },
 *   { role: "tool", toolCallId: "r1", content: "export const x = 1\n".repeat(20) },
 *   { role: "assistant", content: "", toolCalls: [{ id: "e1", name: "edit_file", arguments: "{\"path\":\"src/a.ts\"}" }] },
 *   { role: "tool", toolCallId: "e1", content: "ok" },
 *   { role: "assistant", content: "Done." },
 *   { role: "user", content: "Thanks" }
 * ]
 * const reads = govern(history, { mode: "shadow", epochMessages: 0 }).elisions.filter((e) => e.reason === "superseded_read")
 * reads.length // 1
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElisionReason = Schema.Literals(["superseded_read", "stale_bg_output", "duplicate_search"])

/**
 * The type of {@link ElisionReason} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElisionReason = typeof ElisionReason.Type

/**
 * A `read_file` call as its stub describes it: the path as written, the sha256 the read reported (or the
 * governor computed), and the line range when one was asked for.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElidedRead = Schema.Struct({
  kind: Schema.Literal("read_file"),
  path: Schema.String,
  sha256: Schema.optionalKey(Schema.String),
  startLine: Schema.optionalKey(Schema.Number),
  limit: Schema.optionalKey(Schema.Number)
})

/**
 * The type of `ElidedRead` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElidedRead = typeof ElidedRead.Type

/**
 * A `bg_output` call as its stub describes it: the task id and the offset asked for (default 0).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElidedBgOutput = Schema.Struct({
  kind: Schema.Literal("bg_output"),
  taskId: Schema.String,
  offset: Schema.optionalKey(Schema.Number)
})

/**
 * The type of `ElidedBgOutput` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElidedBgOutput = typeof ElidedBgOutput.Type

/**
 * A `search_text` call as its stub describes it: the pattern searched for.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElidedSearch = Schema.Struct({
  kind: Schema.Literal("search_text"),
  pattern: Schema.String
})

/**
 * The type of `ElidedSearch` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElidedSearch = typeof ElidedSearch.Type

/**
 * The elided call a stub is made from: a read, a background-output query or a search. A stub depends on
 * nothing else, so the same history always gives the same stub.
 *
 * @example
 * ```ts
 * import { elisionStub } from "@ctxkit/governor"
 * import type { ElidedCall } from "@ctxkit/governor/ElisionStub"
 *
 * // The stub a harness would show for a search it dropped itself.
 * const dropped: ElidedCall = { kind: "search_text", pattern: "TODO" }
 * elisionStub(dropped) // '[elided: search_text "TODO"; identical to a later result]'
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElidedCall = Schema.Union([ElidedRead, ElidedBgOutput, ElidedSearch])

/**
 * The type of {@link ElidedCall} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElidedCall = typeof ElidedCall.Type

const range = (startLine: unknown, limit: unknown): string => {
  const start = lineNumber(startLine)
  const count = lineNumber(limit)
  if (start === undefined && count === undefined) return ""
  return ` lines ${start ?? 1}+${count ?? ""}`
}

/**
 * The stub that replaces an elided result: one line of printable ASCII. Paths, task ids and patterns are
 * JSON-quoted with every non-ASCII character escaped as `\uXXXX`; a read shows `@` and the first 8 hex digits of
 * its sha256, or `@unknown`, then ` lines S+L` when a start line or a limit was asked for (S defaults to 1; L is
 * left out when there was no limit).
 *
 * @example
 * ```ts
 * import { elisionStub } from "@ctxkit/governor"
 *
 * elisionStub({ kind: "read_file", path: "src/a.ts", sha256: "1a2b3c4d5e6f7a8b" })
 * // '[elided: read_file "src/a.ts"@1a2b3c4d; re-read to view]'
 * elisionStub({ kind: "read_file", path: "src/a.ts", startLine: 10 })
 * // '[elided: read_file "src/a.ts"@unknown lines 10+; re-read to view]'
 * elisionStub({ kind: "bg_output", taskId: "task-id" })
 * // '[elided: bg_output "task-id" offset 0; a later bg_output covers it]'
 * elisionStub({ kind: "search_text", pattern: "café" })
 * // '[elided: search_text "caf\\u00e9"; identical to a later result]'
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const elisionStub = (call: ElidedCall): string => {
  switch (call.kind) {
    case "read_file":
      return `[elided: read_file ${asciiJson(call.path)}@${digestPrefix(call.sha256) ?? "unknown"}${
        range(call.startLine, call.limit)
      }; re-read to view]`
    case "bg_output":
      return `[elided: bg_output ${asciiJson(call.taskId)} offset ${
        lineNumber(call.offset) ?? 0
      }; a later bg_output covers it]`
    case "search_text":
      return `[elided: search_text ${asciiJson(call.pattern)}; identical to a later result]`
  }
}
