/**
 * The current request: the message the next model call answers. Fitting protects it, the host re-checks it after
 * a plugin strategy, and reports mark it, all through this one function.
 *
 * @since 0.1.0
 */
import type { MessageFormat } from "./MessageFormat.ts"

/**
 * The index of the current request in `messages`: the last user message that is not an inserted summary
 * (`format.isSummary`), or -1 when there is none. Positions for which `skip` is true are passed over (a host's
 * own inserted notes). Tool-result carriers are not user messages in any lens, so they never count. Linear,
 * from the end; stops at the first match.
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
): number => {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (skip?.(i) === true) continue
    const m = messages[i] as M
    if (format.role(m) === "user" && !format.isSummary(m)) return i
  }
  return -1
}
