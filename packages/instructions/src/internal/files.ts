import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { InstructionsWriteFailed } from "../Errors.ts"

/** The type of `path` after following symlinks, or none when it cannot be read. */
export const typeOf = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Option.Option<string>> =>
  fs.stat(path).pipe(Effect.map((info) => Option.some(info.type)), Effect.orElseSucceed(() => Option.none()))

/** The text of a regular file, or none when it is missing or unreadable. */
export const readTextFile = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Option.Option<string>> =>
  Effect.flatMap(
    typeOf(fs, path),
    (type) =>
      Option.getOrUndefined(type) === "File"
        ? fs.readFileString(path).pipe(Effect.map(Option.some), Effect.orElseSucceed(() => Option.none()))
        : Effect.succeed(Option.none())
  )

/** The real path, or the path itself when the file system cannot resolve it (an in-memory layer). */
export const realPathOr = (fs: FileSystem.FileSystem, path: string): Effect.Effect<string> =>
  fs.realPath(path).pipe(Effect.orElseSucceed(() => path))

/** Whether `child` is `parent` or below it. */
export const isWithin = (path: Path.Path, parent: string, child: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/** Directories from `root` down to `leaf` inclusive (`leaf` must be within `root`). */
export const directoriesDown = (path: Path.Path, root: string, leaf: string): ReadonlyArray<string> => {
  const rel = path.relative(root, leaf)
  const parts = rel === "" ? [] : rel.split(path.sep).filter((p) => p !== "")
  return parts.reduce<ReadonlyArray<string>>(
    (dirs, part) => [...dirs, path.join(dirs[dirs.length - 1] ?? root, part)],
    [root]
  )
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** UTF-8 byte length of a text. */
export const byteLength = (text: string): number => encoder.encode(text).length

/** The last `bytes` bytes of `text`, starting on a character boundary. */
export const tailBytes = (text: string, bytes: number): string => {
  const all = encoder.encode(text)
  // Skip UTF-8 continuation bytes (10xxxxxx) so the tail starts on a whole character.
  const start = Array.from({ length: Math.min(4, bytes) }, (_, i) => all.length - bytes + i)
    .find((i) => i >= 0 && ((all[i] ?? 0) & 0xc0) !== 0x80) ?? all.length
  return decoder.decode(all.subarray(Math.max(0, start)))
}

/** FNV-1a fingerprint of a text, with its length: enough to notice that a file changed. */
export const fingerprint = (text: string): string => {
  const hash = Array.from(text).reduce((h, ch) => Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0, 2166136261)
  return `${text.length}:${hash.toString(16)}`
}

/** Most temporary names tried beside the config file before giving up. */
const TEMPORARY_ATTEMPTS = 100

/**
 * Writes `text` to a new temporary file beside `file`, named from a hash of the text plus a counter
 * (`config.json.<hash>.<n>.tmp`). The write is exclusive (`wx`): a name already taken — another writer, or a
 * leftover — moves on to the next counter, so two writers never share a temporary file. Returns its path.
 */
const writeTemporary = (
  fs: FileSystem.FileSystem,
  file: string,
  text: string,
  attempt: number
): Effect.Effect<string, InstructionsWriteFailed> => {
  const temporary = `${file}.${fingerprint(text).replace(":", "-")}.${attempt}.tmp`
  return fs.writeFileString(temporary, text, { flag: "wx" }).pipe(
    Effect.as(temporary),
    Effect.catch((e) =>
      e.reason._tag === "AlreadyExists" && attempt + 1 < TEMPORARY_ATTEMPTS
        ? writeTemporary(fs, file, text, attempt + 1)
        : Effect.fail(new InstructionsWriteFailed({ path: file, detail: e.message }))
    )
  )
}

/**
 * Writes `text` to `file` atomically: a unique temporary file beside it (see `writeTemporary`), then a rename
 * over it; the temporary file is removed if the rename fails.
 */
export const writeAtomically = (
  fs: FileSystem.FileSystem,
  file: string,
  text: string
): Effect.Effect<void, InstructionsWriteFailed> =>
  writeTemporary(fs, file, text, 0).pipe(
    Effect.flatMap((temporary) =>
      fs.rename(temporary, file).pipe(
        Effect.mapError((e) => new InstructionsWriteFailed({ path: file, detail: e.message })),
        Effect.tapError(() => fs.remove(temporary).pipe(Effect.ignore))
      )
    )
  )
