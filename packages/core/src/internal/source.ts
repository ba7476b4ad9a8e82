/**
 * Reading where a system block came from, the same way in every format: a harness-side `source` field on the
 * message, else `source` in the format's ctxkit metadata record. Only known sources count; anything else is
 * absent (and so protected, as the system prompt is by default).
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { SystemSource } from "../Message.ts"
import { isRecord } from "./read.ts"

const isSource = Schema.is(SystemSource)

/** The first known `source` among the message itself and its ctxkit metadata record. */
export const sourceOf = (message: unknown, ctxkit: unknown): SystemSource | undefined => {
  const own = isRecord(message) ? message["source"] : undefined
  if (isSource(own)) return own
  const meta = isRecord(ctxkit) ? ctxkit["source"] : undefined
  return isSource(meta) ? meta : undefined
}
