/**
 * Turns Schema decoding failures into {@link ConversationIssue}s whose paths read like code
 * (`messages[3].toolCallId`).
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { ConversationIssue } from "../Errors.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Renders a path of keys under `base`: `base[3].toolCalls[0].id`. */
export const renderPath = (base: string, path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string => {
  let out = base
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

/** Issues of `input` against `schema`, every one with its path under `base`. */
export const schemaIssues = <S extends Schema.Top>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema as never)
  return (input: unknown, base: string): ReadonlyArray<ConversationIssue> => {
    const result = decode(input, { errors: "all" })
    if (Result.isSuccess(result)) return []
    const failure = formatter(result.failure.issue)
    return failure.issues.map((issue) =>
      new ConversationIssue({ path: renderPath(base, issue.path ?? []), message: issue.message })
    )
  }
}

/** One issue at `path`. */
export const issue = (path: string, message: string): ConversationIssue => new ConversationIssue({ path, message })
