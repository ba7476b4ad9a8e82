/**
 * Total readers for the images and files a message carries: their MIME type, their decoded size and, when
 * recorded, their pixel size. The bytes themselves are never copied or decoded, only measured.
 *
 * @internal
 */
import type { AttachmentInfo } from "../MessageFormat.ts"
import { isRecord, str } from "./read.ts"

/** The MIME type of an attachment whose type nothing records. */
export const UNKNOWN_MIME = "application/octet-stream"

/** What inline data or a URL says of an attachment: its MIME type when it tells, and its decoded size. */
export interface Measured {
  readonly mime: string | undefined
  readonly bytes: number
}

const UNKNOWN: Measured = { mime: undefined, bytes: 0 }

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9

/**
 * Decoded size of the base64 text in `data` from `start`: three bytes per four characters, without the
 * padding (`=`) and trailing whitespace. Padded and unpadded text give the same count.
 */
export const base64Bytes = (data: string, start = 0): number => {
  let end = data.length
  while (end > start && isSpace(data.charCodeAt(end - 1))) end--
  let padding = 0
  while (padding < 2 && end > start && data.charCodeAt(end - 1) === 61) {
    end--
    padding++
  }
  return Math.floor((end - start) * 3 / 4)
}

/** Decoded size of percent-encoded text from `start`: each `%XX` is one byte. */
const percentBytes = (data: string, start: number): number => {
  let bytes = data.length - start
  for (let at = data.indexOf("%", start); at >= 0; at = data.indexOf("%", at + 1)) {
    if (at + 2 < data.length) bytes -= 2
  }
  return Math.max(0, bytes)
}

/** Size in bytes of `text` encoded as UTF-8. */
export const utf8Bytes = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // A surrogate half is two of a four-byte sequence; a lone one is replaced by U+FFFD (three bytes) but
    // counting it as two keeps the loop simple and is close enough for a size shown to a summarizer.
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdfff ? 2 : 3
  }
  return bytes
}

const startsWithData = (text: string): boolean => text.length >= 5 && text.slice(0, 5).toLowerCase() === "data:"

/**
 * The MIME type and decoded size of a `data:` URL (`data:image/png;base64,iVBOR…`), or `undefined` when
 * `url` is not one. A data URL without a media type has no MIME type here.
 */
export const dataUrl = (url: string): Measured | undefined => {
  if (!startsWithData(url)) return undefined
  const comma = url.indexOf(",", 5)
  if (comma < 0) return UNKNOWN
  const params = url.slice(5, comma).split(";")
  const mime = (params[0] ?? "").trim().toLowerCase()
  let base64 = false
  for (let i = 1; i < params.length; i++) if ((params[i] ?? "").trim().toLowerCase() === "base64") base64 = true
  return {
    mime: mime.length === 0 ? undefined : mime,
    bytes: base64 ? base64Bytes(url, comma + 1) : percentBytes(url, comma + 1)
  }
}

/** A URL: what its data says when it is a `data:` URL, else nothing (its bytes are elsewhere). */
export const measureUrl = (url: unknown): Measured => typeof url === "string" ? dataUrl(url) ?? UNKNOWN : UNKNOWN

/**
 * Text that starts with a URL scheme (`https:`, `s3:`) and holds no whitespace: base64 text never holds a
 * colon, and prose such as `Note: …` has spaces.
 */
const looksLikeUrl = (text: string): boolean => {
  const head = text.slice(0, 64)
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(head) && !/\s/.test(head)
}

/**
 * Text that is not base64: its first characters fall outside the base64 alphabets (standard and URL-safe).
 * Only the head is looked at, so that large images are not scanned.
 */
const looksLikeText = (text: string): boolean => /[^A-Za-z0-9+/=_\-\s]/.test(text.slice(0, 64))

/** Base64 text, or a `data:` URL. */
export const measureBase64 = (data: unknown): Measured => {
  if (typeof data !== "string") return UNKNOWN
  return dataUrl(data) ?? { mime: undefined, bytes: base64Bytes(data) }
}

/**
 * Inline data as SDKs hold it: base64 text (or plain text, measured as UTF-8), a `data:` URL, a URL (string
 * or `URL`), bytes (`Uint8Array`, `ArrayBuffer`, a Node `Buffer` or its JSON form), or `effect/ai`'s encoded
 * `{ _tag: "Uint8Array", base64 }` and `{ _tag: "URL", href }`. Anything else measures nothing.
 */
export const measureData = (data: unknown): Measured => {
  if (typeof data === "string") {
    const inline = dataUrl(data)
    if (inline !== undefined) return inline
    if (looksLikeUrl(data)) return UNKNOWN
    // SDKs take plain text here too (a CSV passed as a string): it is sent as it is.
    return { mime: undefined, bytes: looksLikeText(data) ? utf8Bytes(data) : base64Bytes(data) }
  }
  if (typeof data !== "object" || data === null) return UNKNOWN
  if (ArrayBuffer.isView(data)) return { mime: undefined, bytes: data.byteLength }
  if (data instanceof ArrayBuffer) return { mime: undefined, bytes: data.byteLength }
  if (!isRecord(data)) return UNKNOWN
  if (data["_tag"] === "Uint8Array") return measureBase64(data["base64"])
  // A `URL` instance, or its encoded form `{ _tag: "URL", href }`: told by its `href`.
  const href = data["href"]
  if (typeof href === "string") return measureUrl(href)
  const bytes = data["data"]
  return data["type"] === "Buffer" && Array.isArray(bytes) ? { mime: undefined, bytes: bytes.length } : UNKNOWN
}

/** A non-negative finite number at `record[key]`, or `undefined`. */
export const size = (record: unknown, key: string): number | undefined => {
  if (!isRecord(record)) return undefined
  const value = record[key]
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** A non-empty string at `record[key]`, or `undefined`. */
export const mimeField = (record: unknown, key: string): string | undefined => {
  const value = str(record, key)
  return value === undefined || value.trim().length === 0 ? undefined : value
}

/**
 * One attachment: the first MIME type given (else {@link UNKNOWN_MIME}), its size, and the `width` and
 * `height` recorded on `part` (positive numbers only).
 */
export const attachment = (
  mimes: ReadonlyArray<string | undefined>,
  bytes: number,
  part?: unknown
): AttachmentInfo => {
  let mime: string | undefined
  for (const candidate of mimes) {
    if (candidate !== undefined) {
      mime = candidate
      break
    }
  }
  const width = size(part, "width")
  const height = size(part, "height")
  return {
    mime: mime ?? UNKNOWN_MIME,
    bytes,
    ...(width === undefined || width === 0 ? {} : { width }),
    ...(height === undefined || height === 0 ? {} : { height })
  }
}
