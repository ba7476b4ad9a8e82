/**
 * The two ways a command ends without success: bad input (exit 2) and a verdict about the input (exit 1).
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/** Bad input or usage: a one-line message that names the problem and the fix, on stderr; exit 2. */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", {
  message: Schema.String
}) {}

/** The command ran and found something (the conversation does not fit, a request was truncated); exit 1. */
export class Verdict extends Schema.TaggedError<Verdict>()("Verdict", {
  message: Schema.String
}) {}

/** The exit codes of cli.md, and the one for a bug in ctxkit itself (never for bad input). */
export const EXIT = { ok: 0, verdict: 1, badInput: 2, internal: 70 } as const
