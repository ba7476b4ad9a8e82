/**
 * Reading a command's input: a path or `-` (stdin), checked before any library call sees it. Every way it can be
 * wrong — missing, a directory, empty, binary, too large, not UTF-8, malformed JSON or JSONL — is a `BadInput`
 * whose message names the problem, where it is, and the fix.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { BadInput } from "./errors.ts"
import { jsonErrorPlace } from "./jsonError.ts"

/**
 * The largest input read, in bytes. A 50 MB transcript is read and processed; past this size `JSON.parse` of one
 * document needs several gigabytes of heap, so the input is refused up front with a message saying what to do.
 */
export const MAX_INPUT_BYTES = 128 * 1024 * 1024

/** Inputs at least this large show progress on a terminal. */
export const LARGE_INPUT_BYTES = 8 * 1024 * 1024

const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

const tooLarge = (source: string, bytes: number | undefined) =>
  new BadInput({
    message: `${source} is ${bytes === undefined ? "over" : megabytes(bytes) + ", over"} the ${
      megabytes(MAX_INPUT_BYTES)
    } input limit; split the conversation (for example keep its last messages with \`jq '.[-5000:]'\`) and pass the part you need`
  })

/** The text that was read, where it came from (a path, or `stdin`) and its size. */
export interface InputText {
  readonly text: string
  readonly source: string
  readonly bytes: number
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false })

/** Bytes to text: a NUL byte means a binary file; invalid UTF-8 is named as such. */
const decodeText = (bytes: Uint8Array, source: string): Effect.Effect<InputText, BadInput> => {
  const probe = bytes.subarray(0, 64 * 1024)
  if (probe.includes(0)) {
    return Effect.fail(
      new BadInput({
        message:
          `${source} is a binary file (it contains NUL bytes), not a conversation; pass a JSON or JSONL text file`
      })
    )
  }
  return Effect.try({
    try: () => ({ text: decoder.decode(bytes), source, bytes: bytes.length }),
    catch: () =>
      new BadInput({
        message: `${source} is not UTF-8 text; save it as UTF-8 JSON or JSONL (for example with \`iconv -t UTF-8\`)`
      })
  })
}

const readStdin = Effect.fnUntraced(function*() {
  const stdio = yield* Stdio.Stdio
  if (yield* stdio.stdinIsTerminal) {
    return yield* new BadInput({
      message:
        "no input: stdin is a terminal; pass a file path, or pipe the conversation in (`cat chat.json | ctxkit …`)"
    })
  }
  const chunks: Array<Uint8Array> = []
  let total = 0
  yield* stdio.stdin.pipe(
    Stream.runForEachWhile((chunk) =>
      Effect.sync(() => {
        total += chunk.length
        if (total <= MAX_INPUT_BYTES) chunks.push(chunk)
        return total <= MAX_INPUT_BYTES
      })
    ),
    Effect.mapError(() => new BadInput({ message: "stdin could not be read; pass a file path instead" }))
  )
  if (total > MAX_INPUT_BYTES) return yield* tooLarge("stdin", undefined)
  const bytes = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return yield* decodeText(bytes, "stdin")
})

const readPath = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(path).pipe(
    Effect.mapError((error) =>
      new BadInput({
        message: error.reason._tag === "NotFound"
          ? `${path}: no such file; check the path (or pass - to read stdin)`
          : error.reason._tag === "PermissionDenied"
          ? `${path}: permission denied; make the file readable (chmod +r) or pass a copy`
          : `${path} could not be read (${error.reason._tag}); pass a readable file`
      })
    )
  )
  if (info.type === "Directory") {
    return yield* new BadInput({ message: `${path} is a directory; pass a conversation file inside it` })
  }
  const size = Number(info.size)
  if (size > MAX_INPUT_BYTES) return yield* tooLarge(path, size)
  const bytes = yield* fs.readFile(path).pipe(
    Effect.mapError((error) =>
      new BadInput({ message: `${path} could not be read (${error.reason._tag}); pass a readable file` })
    )
  )
  // A device or FIFO reports size 0 and may still hold more than the limit.
  if (bytes.length > MAX_INPUT_BYTES) return yield* tooLarge(path, bytes.length)
  return yield* decodeText(bytes, path)
})

/** Reads `file` (a path, `-` for stdin, or none: stdin when it is piped), refusing empty text. */
export const readInput = Effect.fnUntraced(function*(file: Option.Option<string>) {
  const input = Option.isNone(file) || file.value === "-" ? yield* readStdin() : yield* readPath(file.value)
  if (input.text.trim() === "") {
    return yield* new BadInput({
      message: `${input.source} is empty${
        input.bytes > 0 ? " (only whitespace)" : ""
      }; pass a conversation: a JSON array of messages, { "messages": [...] }, { "input": [...] } or JSONL`
    })
  }
  return input
})

/** A parsed document: one JSON value, or JSONL records (one value per non-empty line). */
export type Document =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Jsonl"; readonly values: ReadonlyArray<unknown>; readonly lines: ReadonlyArray<number> }

const malformed = (source: string, line: number, column: number, problem: string, kind: string) =>
  new BadInput({
    message:
      `${source}:${line}:${column}: malformed ${kind}: ${problem}; fix the file at line ${line}, column ${column}`
  })

const parseJsonl = (input: InputText): Effect.Effect<Document, BadInput> => {
  const values: Array<unknown> = []
  const numbers: Array<number> = []
  const lines = input.text.split("\n")
  for (let k = 0; k < lines.length; k++) {
    const line = (lines[k] ?? "").replace(/\r$/, "")
    if (line.trim() === "") continue
    try {
      values.push(JSON.parse(line))
      numbers.push(k + 1)
    } catch {
      const place = jsonErrorPlace(line)
      return Effect.fail(malformed(input.source, k + 1, place.column, place.problem, "JSONL (one JSON value per line)"))
    }
  }
  return Effect.succeed({ _tag: "Jsonl", values, lines: numbers })
}

const parses = (line: string): boolean => {
  try {
    JSON.parse(line)
    return true
  } catch {
    return false
  }
}

/**
 * Parses `input` as one JSON document, or as JSONL when it is several lines that each start a JSON object or
 * array. A malformed document names its line and column.
 */
export const parseDocument = (input: InputText): Effect.Effect<Document, BadInput> => {
  const text = input.text.charCodeAt(0) === 0xfeff ? input.text.slice(1) : input.text
  try {
    return Effect.succeed({ _tag: "Json", value: JSON.parse(text) })
  } catch {
    const lines = text.split("\n").filter((line) => line.trim() !== "")
    // JSONL: several lines, each starting a JSON value, the first of them whole on its line; otherwise a JSON
    // document spread over lines is malformed where the scanner says.
    if (lines.length > 1 && lines.every((line) => /^\s*[{[]/.test(line)) && parses(lines[0] ?? "")) {
      return parseJsonl({ ...input, text })
    }
    const place = jsonErrorPlace(text)
    return Effect.fail(malformed(input.source, place.line, place.column, place.problem, "JSON"))
  }
}

const looksLikeMessage = (value: unknown): boolean =>
  Predicate.isObject(value) && !Array.isArray(value) &&
  (Predicate.hasProperty(value, "role") || Predicate.hasProperty(value, "type") || Predicate.hasProperty(value, "lc"))

const describeKeys = (value: object): string => {
  const keys = Object.keys(value)
  return keys.length === 0 ?
    "an empty object" :
    `an object with keys ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", …" : ""}`
}

const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ?
    describeKeys(value) :
    `a ${typeof value}`

/**
 * The messages of a document: a JSON array, `{ "messages": [...] }`, a Responses `{ "input": [...] }`, JSONL (one
 * message per line), or one message object. Anything else names what it is and what to pass.
 */
export const documentMessages = (
  document: Document,
  source: string
): Effect.Effect<ReadonlyArray<unknown>, BadInput> => {
  const expected =
    "pass a JSON array of messages, { \"messages\": [...] }, a Responses { \"input\": [...] }, or JSONL (one message per line)"
  let messages: ReadonlyArray<unknown>
  if (document._tag === "Jsonl") messages = document.values
  else {
    const value = document.value
    if (Array.isArray(value)) messages = value
    else if (Predicate.isObject(value) && Array.isArray((value as { messages?: unknown }).messages)) {
      messages = (value as { messages: ReadonlyArray<unknown> }).messages
    } else if (Predicate.isObject(value) && Array.isArray((value as { input?: unknown }).input)) {
      messages = (value as { input: ReadonlyArray<unknown> }).input
    } else if (looksLikeMessage(value)) messages = [value]
    else {return Effect.fail(
        new BadInput({ message: `${source} holds ${kindOf(value)}, not a conversation; ${expected}` })
      )}
  }
  if (messages.length === 0) {
    return Effect.fail(new BadInput({ message: `${source} holds no messages; ${expected}` }))
  }
  const bad = messages.findIndex((m) => !Predicate.isObject(m) || Array.isArray(m))
  if (bad !== -1) {
    return Effect.fail(
      new BadInput({
        message: `${source}: message ${bad} is ${kindOf(messages[bad])}, not a message object; ${expected}`
      })
    )
  }
  return Effect.succeed(messages)
}
