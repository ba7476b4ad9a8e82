/**
 * Law L18, format fidelity, as a reusable check and a fast-check property: on a conversation in one wire format,
 * `formats.auto` reads every message exactly as that format does.
 *
 * @since 0.1.0
 */
import { detectFormat, formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import * as fc from "fast-check"
import { conversation, type ScenarioOptions } from "./Arbitraries.ts"
import { type FormatName, formatOf } from "./Render.ts"
import type { Rendered } from "./Scenario.ts"

const READS = ["role", "text", "ownText", "isProtected", "isPinned", "isSummary", "attachesToNext"] as const

/**
 * Every way `formats.auto` reads `messages` differently from `format`, one line each (empty when it reads them
 * the same): the groups and the diagnostics' tags of `toolGroups`, and per message its role, text, own text and
 * flags — the text being what a counter prices, equal texts give equal costs. Also a line when `detectFormat`
 * names another format than `format` (or `canonical`, when no message tells and every format reads them alike).
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { fidelityViolations } from "@ctxkit/testing"
 *
 * fidelityViolations([
 *   { id: "msg_1", type: "message", role: "assistant", model: "claude-opus-4-6", stop_reason: "tool_use",
 *     content: [{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }] },
 *   { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }] }
 * ], formats.anthropic) // []
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const fidelityViolations = <M>(messages: ReadonlyArray<M>, format: MessageFormat<M>): Array<string> => {
  const auto = formats.auto as MessageFormat<M>
  const out: Array<string> = []
  const mine = toolGroups(messages, auto)
  const theirs = toolGroups(messages, format)
  if (JSON.stringify(mine.groups) !== JSON.stringify(theirs.groups)) out.push("toolGroups: the groups differ")
  const tags = (found: typeof mine): string => JSON.stringify(found.diagnostics.map((d) => d._tag))
  if (tags(mine) !== tags(theirs)) out.push(`toolGroups: diagnostics ${tags(mine)} under auto, ${tags(theirs)}`)
  messages.forEach((message, i) => {
    for (const read of READS) {
      if (auto[read](message) !== format[read](message)) out.push(`messages[${i}]: ${read} differs`)
    }
  })
  const detected = detectFormat(messages).name
  if (detected !== format.name && detected !== "canonical") out.push(`detectFormat says ${detected}`)
  return out
}

/**
 * L18 as a fast-check property over generated conversations in the wire format `name` (every shape this package
 * generates: API response objects, reasoning-only AI SDK messages, approvals, …).
 *
 * @example
 * ```ts
 * import { formatFidelity } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * fc.assert(formatFidelity("anthropic"), { numRuns: 50 })
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const formatFidelity = (name: FormatName, scenario: ScenarioOptions = {}): fc.IPropertyWithHooks<
  [Rendered<unknown>]
> =>
  fc.property(conversation(name, scenario), (rendered) => {
    const violations = fidelityViolations(rendered.messages, formatOf(name))
    if (violations.length > 0) {
      throw new Error(`auto reads this ${name} conversation differently: ${violations.join("; ")}`)
    }
  })
