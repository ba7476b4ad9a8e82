/**
 * The one check of the `messages` argument that every ctxkit entry point runs: a wrong input is named, never
 * read as an empty conversation that "fits".
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import { describeValue } from "./Describe.ts"
import { InvalidConversation } from "./Errors.ts"
import { issue } from "./internal/issues.ts"

/** `effect/ai`'s `Prompt` carries this key; its messages are its `content`. */
const PROMPT_TYPE_ID = "~effect/ai/Prompt"

const isPrompt = (input: unknown): input is { readonly content: ReadonlyArray<unknown> } =>
  Predicate.hasProperty(input, PROMPT_TYPE_ID) && Predicate.hasProperty(input, "content") &&
  Array.isArray(input.content)

/** What the input is, and what to pass instead. */
const mistake = (input: unknown): string => {
  if (Predicate.isObject(input)) {
    for (const key of ["messages", "input", "content"]) {
      if (Array.isArray(input[key])) {
        return `expected an array of messages, got an object with a "${key}" array: pass its ${key} (value.${key})`
      }
    }
  }
  return `expected an array of messages (or an effect/ai Prompt), got ${
    describeValue(input)
  }: pass the conversation as an array`
}

/**
 * The messages of `input`: the array itself, or the `content` of an `effect/ai` `Prompt` (the same message
 * objects, untouched). Anything else is an {@link InvalidConversation} at path `messages` naming what was given
 * and what to pass — an object with a `messages` array, a string, `undefined` — so that no entry point reads
 * a wrong input as an empty conversation. It does not look inside the messages: {@link decodeConversation}
 * validates them. `format` (its name goes into the error) and `path` (default `messages`) only shape the error.
 *
 * Every ctxkit function that takes messages calls it first; call it at your own entry points too.
 *
 * @example
 * ```ts
 * import { conversationMessages } from "@ctxkit/core"
 * import { Prompt } from "effect/ai"
 * import * as Result from "effect/Result"
 *
 * Result.isSuccess(conversationMessages(Prompt.make("hello"))) // true: its one user message
 * const wrong = conversationMessages({ messages: [] })
 * if (Result.isFailure(wrong)) {
 *   wrong.failure.issues[0]?.message // 'expected an array of messages, got an object with a "messages" array: …'
 * }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const conversationMessages = (
  input: unknown,
  options: { readonly format?: { readonly name: string } | undefined; readonly path?: string | undefined } = {}
): Result.Result<ReadonlyArray<unknown>, InvalidConversation> => {
  if (Array.isArray(input)) return Result.succeed(input)
  if (isPrompt(input)) return Result.succeed(input.content)
  return Result.fail(
    new InvalidConversation({
      format: options.format?.name ?? "auto",
      issues: [issue(options.path ?? "messages", mistake(input))]
    })
  )
}
