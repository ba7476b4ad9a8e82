/**
 * Rendering {@link Scenario}s into each wire format ctxkit ships.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { render as aiSdk } from "./internal/render/AiSdk.ts"
import { render as anthropic } from "./internal/render/Anthropic.ts"
import { render as canonical } from "./internal/render/Canonical.ts"
import { render as effectAi } from "./internal/render/EffectAi.ts"
import { render as langchain } from "./internal/render/LangChain.ts"
import { render as openaiChat } from "./internal/render/OpenAiChat.ts"
import { render as openaiResponses } from "./internal/render/OpenAiResponses.ts"
import type { Rendered, Scenario } from "./Scenario.ts"

/**
 * The name of a concrete wire format (every entry of `formats` but `auto`).
 *
 * @example
 * ```ts
 * import type { FormatName } from "@ctxkit/testing"
 *
 * const name: FormatName = "openaiResponses"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type FormatName = Exclude<keyof typeof formats, "auto">

/**
 * Every concrete format name, in `formats` order.
 *
 * @example
 * ```ts
 * import { formatNames } from "@ctxkit/testing"
 *
 * formatNames.length // 7
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const formatNames: ReadonlyArray<FormatName> = [
  "canonical",
  "openaiChat",
  "openaiResponses",
  "anthropic",
  "aiSdk",
  "effectAi",
  "langchain"
]

const renderers: { readonly [K in FormatName]: (scenario: Scenario) => Rendered<unknown> } = {
  canonical,
  openaiChat,
  openaiResponses,
  anthropic,
  aiSdk,
  effectAi,
  langchain
}

/**
 * Renders a scenario into the messages of one wire format, with the link keys of every message.
 * Features a format cannot express are rendered as plain text (approvals in formats without them) or left
 * out (reasoning, memory sources), never as invalid messages.
 *
 * @example
 * ```ts
 * import { render } from "@ctxkit/testing"
 *
 * const { messages } = render("openaiChat", {
 *   turns: [{ kind: "user", text: "hi", pinned: false, summary: false }]
 * })
 * messages // [{ role: "user", content: "hi" }]
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const render = (format: FormatName, scenario: Scenario): Rendered<unknown> => renderers[format](scenario)

/**
 * The lens of a concrete format, by name.
 *
 * @example
 * ```ts
 * import { formatOf } from "@ctxkit/testing"
 *
 * formatOf("anthropic").name // "anthropic"
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const formatOf = (format: FormatName): MessageFormat<unknown> => formats[format] as MessageFormat<unknown>
