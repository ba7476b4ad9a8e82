/**
 * A conversation read from a command's input: parsed, its wire format detected or named, and checked by the
 * format's own validation, so that no library call ever sees a wrong input.
 *
 * @internal
 */
import type { MessageFormat } from "@ctxkit/core"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Result from "effect/Result"
import { BadInput } from "./errors.ts"
import { documentMessages, parseDocument, readInput } from "./input.ts"
import { cliFormatName, FORMAT_NAMES } from "./options.ts"

/** A conversation ready for the library. */
export interface LoadedConversation {
  readonly messages: ReadonlyArray<unknown>
  /** The format the messages are read as: the named one, or the detected one (`auto` for a mix). */
  readonly format: MessageFormat<unknown>
  /** Its CLI name (`openai-chat`, …). */
  readonly formatName: string
  /** True when the format was detected rather than named. */
  readonly detected: boolean
  readonly source: string
  readonly bytes: number
}

/** Reads, parses and checks the conversation at `file` (a path, `-` or none for stdin). */
export const loadConversation = Effect.fnUntraced(function*(
  file: Option.Option<string>,
  formatName: keyof typeof FORMAT_NAMES
) {
  const { decodeConversation, detectFormat, formats } = yield* Effect.promise(() => import("@ctxkit/core"))
  const input = yield* readInput(file)
  const document = yield* parseDocument(input)
  const messages = yield* documentMessages(document, input.source)
  const detected = formatName === "auto"
  const format = detected ? detectFormat(messages) : (formats[FORMAT_NAMES[formatName]] as MessageFormat<unknown>)
  const decoded = decodeConversation(messages, { format })
  if (Result.isFailure(decoded)) {
    const issues = decoded.failure.issues
    const first = issues[0]
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    const fix = detected
      ? `fix the message, or name its format with --format (${Object.keys(FORMAT_NAMES).join(", ")})`
      : `fix the message, or pass the format it is in (--format ${
        Object.keys(FORMAT_NAMES).filter((k) => k !== formatName).join("|")
      })`
    return yield* new BadInput({
      message: `${input.source}: not a valid ${cliFormatName(format.name)} conversation: ${
        first?.path ?? "messages"
      }: ${first?.message ?? "invalid"}${more}; ${fix}`
    })
  }
  return {
    messages: decoded.success,
    format,
    formatName: cliFormatName(format.name),
    detected,
    source: input.source,
    bytes: input.bytes
  } satisfies LoadedConversation
})
