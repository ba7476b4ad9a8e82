/**
 * Turns Schema decoding failures into {@link ConversationIssue}s whose paths read like code
 * (`messages[3].toolCallId`).
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { describePath } from "../Describe.ts"
import { ConversationIssue } from "../Errors.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Issues of `input` against `schema`, every one with its path under `base`. */
export const schemaIssues = <S extends Schema.Top>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema as never)
  return (input: unknown, base: string): ReadonlyArray<ConversationIssue> => {
    const result = decode(input, { errors: "all" })
    if (Result.isSuccess(result)) return []
    const failure = formatter(result.failure.issue)
    return failure.issues.map((issue) =>
      new ConversationIssue({ path: describePath(base, issue.path ?? []), message: issue.message })
    )
  }
}

/** One issue at `path`. */
export const issue = (path: string, message: string): ConversationIssue => new ConversationIssue({ path, message })
