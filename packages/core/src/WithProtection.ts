/**
 * Protection as the caller's choice: which system messages no fitting strategy may drop.
 *
 * @since 0.1.0
 */
import type { MessageFormat } from "./MessageFormat.ts"

/**
 * The same format, with the caller deciding which system messages are protected. `protect` is asked about
 * system messages only: a pinned message stays protected whatever it answers, and any other message stays
 * unprotected. Use it when a mid-conversation system reminder must be droppable and the messages cannot carry
 * a `source` (the per-message way, read the same in every format: `source: "reminder"` on the message or in
 * its ctxkit metadata). Works on every format, `formats.auto` included, and with every function that takes
 * `{ format }`.
 *
 * @example
 * ```ts
 * import { formats, withProtection } from "@ctxkit/core"
 *
 * // Only the system prompt at the start is protected; later system messages are droppable reminders.
 * const messages = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "fix the build" },
 *   { role: "system", content: "<system-reminder>tests are slow</system-reminder>" }
 * ] as const
 * const format = withProtection(formats.aiSdk, (message) => message !== messages[2])
 * messages.map((m) => format.isProtected(m)) // [true, false, false]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const withProtection = <M>(
  format: MessageFormat<M>,
  protect: (message: M) => boolean
): MessageFormat<M> => ({
  ...format,
  isProtected: (message) => {
    if (format.isPinned(message)) return true
    if (format.role(message) !== "system") return false
    // A caller's predicate that throws must not break fitting: the safe answer keeps the message.
    try {
      return protect(message) === true
    } catch {
      return true
    }
  }
})
