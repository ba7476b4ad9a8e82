/**
 * Checking unknown input (parsed JSON, a request body, a file) before any algorithm reads it: a typed
 * error naming the path of every problem, never an exception.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import { conversationMessages } from "./ConversationMessages.ts"
import { type ConversationIssue, InvalidConversation } from "./Errors.ts"
import { auto } from "./formats/Auto.ts"
import { issue } from "./internal/issues.ts"
import { isRecord } from "./internal/read.ts"
import type { MessageFormat } from "./MessageFormat.ts"

/**
 * Options of {@link decodeConversation}.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { DecodeOptions } from "@ctxkit/core/DecodeConversation"
 *
 * const options: DecodeOptions<unknown> = { format: formats.anthropic as never }
 * ```
 *
 * @category models
 * @since 0.1.0
 * @inline
 */
export interface DecodeOptions<M> {
  /** The wire format to read the messages as. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
}

const decode = <M>(
  input: unknown,
  options: DecodeOptions<M> = {}
): Result.Result<ReadonlyArray<M>, InvalidConversation> => {
  const format = options.format ?? (auto as unknown as MessageFormat<M>)
  const fail = (issues: ReadonlyArray<ConversationIssue>) =>
    Result.fail(new InvalidConversation({ format: format.name, issues }))
  let value = input
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch (error) {
      return fail([issue("input", `malformed JSON (${error instanceof Error ? error.message : String(error)})`)])
    }
  }
  let base = "messages"
  if (isRecord(value) && Array.isArray(value["messages"])) value = value["messages"]
  else if (isRecord(value) && Array.isArray(value["input"])) {
    value = value["input"]
    base = "input"
  }
  const read = conversationMessages(value, { format, path: base })
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const messages = read.success
  const issues: Array<ConversationIssue> = []
  for (let i = 0; i < messages.length; i++) {
    for (const found of format.validate(messages[i], `${base}[${i}]`)) issues.push(found)
  }
  return issues.length > 0 ? fail(issues) : Result.succeed(messages as ReadonlyArray<M>)
}

/**
 * Checks that `input` is a conversation in the given wire format and returns it typed — the input's own
 * array and objects, unknown fields included — or an {@link InvalidConversation} listing every problem
 * with its path (`messages[3].toolCallId: Expected string, got 42`). Accepts an array of messages, an
 * object with a `messages` (or Responses `input`) array, the JSON text of either, or an `effect/ai` `Prompt`
 * (its `content`). Never throws.
 *
 * The result is an `effect/Result`: inspect it with `Result.isSuccess`, or lift it into an Effect with
 * `Effect.fromResult` (its failure is then a typed `InvalidConversation`).
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { decodeConversation, formats } from "@ctxkit/core"
 * import * as Result from "effect/Result"
 *
 * const result = decodeConversation('[{"role":"tool","toolCallId":42,"content":"x"}]', { format: formats.canonical })
 * if (Result.isFailure(result)) {
 *   result.failure.issues[0]?.path // "messages[0].toolCallId"
 * }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const decodeConversation: {
  <M = unknown>(options?: DecodeOptions<M>): (input: unknown) => Result.Result<ReadonlyArray<M>, InvalidConversation>
  <M = unknown>(input: unknown, options?: DecodeOptions<M>): Result.Result<ReadonlyArray<M>, InvalidConversation>
} = dual(
  (args: IArguments) => !(args.length === 1 && isRecord(args[0]) && "format" in args[0]) && args.length !== 0,
  decode
)
