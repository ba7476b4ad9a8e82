/**
 * Every wire format ctxkit ships, in one record.
 *
 * @since 0.1.0
 */
import { aiSdk } from "./formats/AiSdk.ts"
import { anthropic } from "./formats/Anthropic.ts"
import { auto } from "./formats/Auto.ts"
import { canonical } from "./formats/Canonical.ts"
import { effectAi } from "./formats/EffectAi.ts"
import { langchain } from "./formats/LangChain.ts"
import { openaiChat } from "./formats/OpenAiChat.ts"
import { openaiResponses } from "./formats/OpenAiResponses.ts"

/**
 * The shipped {@link MessageFormat} lenses: `canonical`, `openaiChat`, `openaiResponses`, `anthropic`,
 * `aiSdk`, `effectAi`, `langchain`, and `auto` (per-message detection, the default everywhere).
 *
 * @example
 * ```ts
 * import { formats, toolGroups } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "a.txt" }
 * ]
 * toolGroups(messages, formats.openaiChat).groups // [[0, 1]]
 * Object.keys(formats) // ["canonical", "openaiChat", "openaiResponses", "anthropic", "aiSdk", "effectAi", "langchain", "auto"]
 * ```
 *
 * @category formats
 * @since 0.1.0
 */
export const formats = {
  canonical,
  openaiChat,
  openaiResponses,
  anthropic,
  aiSdk,
  effectAi,
  langchain,
  auto
} as const
