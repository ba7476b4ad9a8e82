/**
 * The current request and the turns before it: which user messages start a turn, and where the last ones start.
 * Fitting protects the current request, the host re-checks it after a plugin strategy, reports mark it, the
 * governor never elides inside the last turn, and compaction's last rung keeps the last user turns — all through
 * this one reading. Where they differ (whether an inserted checkpoint or the `<invariants>` block counts as a
 * turn), the caller says so in a {@link TurnReading}.
 *
 * @since 0.1.0
 */
import { isInvariantsText } from "./internal/summaryText.ts"
import type { MessageFormat } from "./MessageFormat.ts"

/**
 * Which user messages start a turn. Tool-result carriers are not user messages in any lens, so they never do.
 *
 * - `checkpoints`: whether an inserted checkpoint or summary (`format.isSummary`) starts one. Compaction's last
 *   rung counts it (it is the start of what the summarizer sees); the current request never is one.
 * - `invariantsBlock`: whether the `<invariants>` block a host appends as a user message starts one. The
 *   governor's last turn does not count it (it is resent every request, so it would make every turn the last);
 *   the current request and compaction read it as the user message it is.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { startsTurn, type TurnReading } from "@ctxkit/core/CurrentRequest"
 *
 * const governor: TurnReading = { checkpoints: false, invariantsBlock: false }
 * startsTurn({ role: "user", content: "<invariants policy=\"1\">…</invariants>" }, formats.canonical, governor) // false
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnReading {
  readonly checkpoints: boolean
  readonly invariantsBlock: boolean
}

/**
 * The reading of the current request: the last user message that is not a checkpoint; the invariants block is
 * read as a user message.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { REQUEST_READING, turnStart } from "@ctxkit/core/CurrentRequest"
 *
 * turnStart([{ role: "user", content: "hi" }], formats.canonical, REQUEST_READING) // 0
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const REQUEST_READING: TurnReading = { checkpoints: false, invariantsBlock: true }

/**
 * Whether `message` starts a turn under `reading`: a user message, not a checkpoint unless `reading.checkpoints`,
 * not the invariants block unless `reading.invariantsBlock`.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { startsTurn } from "@ctxkit/core/CurrentRequest"
 *
 * startsTurn({ role: "user", content: "fix the build" }, formats.canonical, { checkpoints: false, invariantsBlock: false }) // true
 * startsTurn({ role: "assistant", content: "Done." }, formats.canonical, { checkpoints: true, invariantsBlock: true }) // false
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const startsTurn = <M>(message: M, format: MessageFormat<M>, reading: TurnReading): boolean => {
  if (format.role(message) !== "user") return false
  if (format.isSummary(message)) return reading.checkpoints
  // The text is read for the block's tag only when the reading asks (it is the costly part).
  return reading.invariantsBlock || !isInvariantsText(format.text(message))
}

/**
 * Where to look in {@link turnStart}: the `turns`-th last turn start (default 1, the last), only among the
 * positions below `before` (default all of them), passing over the positions for which `skip` is true (a host's
 * own inserted notes).
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnStartOptions {
  readonly turns?: number | undefined
  readonly before?: number | undefined
  readonly skip?: ((position: number) => boolean) | undefined
}

/**
 * The index of the `turns`-th last message that starts a turn under `reading` (see {@link TurnStartOptions}), or
 * -1 when there are fewer. Linear, from the end; stops at the match.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { turnStart } from "@ctxkit/core/CurrentRequest"
 *
 * const messages: ReadonlyArray<Message> = [
 *   { role: "user", content: "a" },
 *   { role: "assistant", content: "b" },
 *   { role: "user", content: "c" }
 * ]
 * const reading = { checkpoints: true, invariantsBlock: true }
 * turnStart(messages, formats.canonical, reading, { turns: 2 }) // 0
 * turnStart(messages, formats.canonical, reading, { before: 2 }) // 0
 * turnStart(messages, formats.canonical, reading, { turns: 3 }) // -1
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const turnStart = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  reading: TurnReading,
  options: TurnStartOptions = {}
): number => {
  const turns = options.turns ?? 1
  const before = Math.min(options.before ?? messages.length, messages.length)
  let seen = 0
  for (let i = before - 1; i >= 0; i--) {
    if (options.skip?.(i) === true || !startsTurn(messages[i] as M, format, reading)) continue
    if (++seen >= turns) return i
  }
  return -1
}

/**
 * The index of the current request in `messages`: the last user message that is not an inserted summary
 * (`format.isSummary`), or -1 when there is none — {@link turnStart} with {@link REQUEST_READING}. Positions for
 * which `skip` is true are passed over (a host's own inserted notes).
 *
 * @example
 * ```ts
 * import { formats, type OpenAiChatMessage } from "@ctxkit/core"
 * import { currentRequest } from "@ctxkit/core/CurrentRequest"
 *
 * const messages: Array<OpenAiChatMessage> = [
 *   { role: "user", content: "fix the build" },
 *   { role: "assistant", content: "Done." },
 *   { role: "user", content: "now run the tests" }
 * ]
 * currentRequest(messages, formats.openaiChat) // 2
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const currentRequest = <M>(
  messages: ReadonlyArray<M>,
  format: MessageFormat<M>,
  skip?: (position: number) => boolean
): number => turnStart(messages, format, REQUEST_READING, { skip })
