/**
 * Shared helpers of the event and hook modules: short descriptions of values and errors for messages.
 *
 * @internal
 */
import { describePath, describeValue } from "@ctxkit/core/Describe"
import * as Cause from "effect/Cause"
import type * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** The first problems of a Schema decoding failure, each with its path: `seq: Expected an integer…`. */
export const describeIssue = (error: Schema.SchemaError): string => {
  const issues = formatter(error.issue).issues
  const shown = issues.slice(0, 3).map((issue) => {
    const path = describePath("", issue.path ?? [])
    return path === "" ? issue.message : `${path}: ${issue.message}`
  })
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""
  return `${shown.join("; ")}${more}`
}

/** What an error says, for a `plugin_hook_failed` or `compaction_failed` message; never provider bodies. */
export const errorText = (error: unknown): string => {
  if (typeof error === "string") return error
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  if (typeof error === "object" && error !== null) {
    const message = (error as { readonly message?: unknown }).message
    if (typeof message === "string" && message !== "") return message
    const tag = (error as { readonly _tag?: unknown })._tag
    if (typeof tag === "string") return tag
  }
  return describeValue(error)
}

/** The error a cause stands for: its first failure or defect, or a note that it was interrupted. */
export const causeText = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return errorText(error)
}
