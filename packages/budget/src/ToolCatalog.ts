/**
 * The tool catalog: every registered tool's name, description and schema, serialized. It is part of every
 * request, so the window rule and the char fallback count it; the independent char rule and the hard limit
 * after compaction never do (it is not reducible).
 *
 * @since 0.1.0
 */
import { type BudgetDiagnostic, CatalogUnreadable } from "./Diagnostics.ts"
import type { TokenEstimate } from "./EstimateTokens.ts"
import { counterId } from "./internal/counting.ts"
import type { Counter } from "./TokenCounter.ts"
import { TokenTally } from "./TokenTally.ts"

/**
 * A tool catalog as callers hold it: already serialized text, a list of tool definitions (OpenAI `tools`,
 * Anthropic `tools`, MCP `tools/list` entries), or a record of tools by name (an AI SDK `ToolSet`).
 *
 * @inline
 * @since 0.1.0
 */
export type ToolCatalog = string | ReadonlyArray<unknown> | { readonly [name: string]: unknown }

interface Serialized {
  readonly text: string
  readonly problem: string | undefined
}

/** JSON with cycles cut (`"[Circular]"`), bigints as text and functions dropped; never throws. */
const safeJson = (value: unknown): Serialized => {
  const ancestors: Array<unknown> = []
  const replacer = function(this: unknown, _key: string, v: unknown): unknown {
    if (typeof v === "bigint") return v.toString()
    if (typeof v !== "object" || v === null) return v
    // `this` is the object holding `v`: unwind the path to it, then look for `v` on the path.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop()
    if (ancestors.includes(v)) return "[Circular]"
    ancestors.push(v)
    return v
  }
  try {
    return { text: JSON.stringify(value, replacer) ?? "", problem: undefined }
  } catch (error) {
    return { text: "", problem: error instanceof Error ? error.message : String(error) }
  }
}

const serialize = (tools: ToolCatalog | undefined): Serialized => {
  if (typeof tools === "string") return { text: tools, problem: undefined }
  if (tools === undefined || tools === null) return { text: "", problem: undefined }
  if (Array.isArray(tools)) {
    const parts: Array<string> = []
    for (const tool of tools) {
      const one = safeJson(tool)
      if (one.problem !== undefined) return { text: "", problem: one.problem }
      parts.push(one.text)
    }
    return { text: parts.join("\n"), problem: undefined }
  }
  return safeJson(tools)
}

/**
 * The catalog as the text that is counted: itself when it is a string; otherwise each tool as JSON, one per
 * line (cycles cut, bigints as text). Empty when there is no catalog or it cannot be serialized.
 *
 * @example
 * ```ts
 * import { serializeToolCatalog } from "@ctxkit/budget/ToolCatalog"
 *
 * serializeToolCatalog([{ name: "ls" }, { name: "cat" }]) // "{\"name\":\"ls\"}\n{\"name\":\"cat\"}"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const serializeToolCatalog = (tools: ToolCatalog | undefined): string => serialize(tools).text

/**
 * The tokens of the tool catalog, as sent with every request: the counter's count of the catalog serialized
 * (itself when it is a string, else each tool as JSON, one per line). A catalog that cannot be serialized counts
 * as empty, with a `CatalogUnreadable` diagnostic; a failing counter falls back to the approximate count, with `CounterFailed`.
 *
 * @example
 * ```ts
 * import { toolCatalogCost } from "@ctxkit/budget"
 *
 * const tools = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }]
 * toolCatalogCost(tools).tokens // 21: ceil(82 characters / 4)
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const toolCatalogCost = (tools: ToolCatalog | undefined, counter?: Counter): TokenEstimate => {
  const { problem, text } = serialize(tools)
  const tally = new TokenTally(counter)
  const tokens = tally.count(text)
  const diagnostics: Array<BudgetDiagnostic> = problem === undefined ? [] : [new CatalogUnreadable({ detail: problem })]
  return {
    tokens,
    counter: counterId(tally.counter),
    approximate: tally.approximate,
    diagnostics: [...diagnostics, ...tally.diagnostics()]
  }
}
