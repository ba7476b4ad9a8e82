/**
 * The size of a request in characters, split the way the triggers need it: the full request (instructions,
 * transcript and tool catalog) for the window rule's char fallback; the conversation (instructions and
 * transcript, never the tool catalog) for the independent char rule and the hard limit.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { CostCache } from "./CostCache.ts"
import { isKey } from "./internal/cache.ts"
import { serializeToolCatalog, type ToolCatalog } from "./ToolCatalog.ts"

/**
 * What a request is made of: instructions (system prompt, project instructions), the transcript, the tool
 * catalog. Characters are UTF-16 code units (`string.length`), the unit of the ≈ 4 characters per token rule.
 *
 * @inline
 * @since 0.1.0
 */
export interface RequestParts<M> {
  /** The instructions, as one text or several. */
  readonly instructions?: string | ReadonlyArray<string> | undefined
  /** The transcript. */
  readonly messages?: ReadonlyArray<M> | undefined
  /** The wire format of `messages`. Default: `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** The tool catalog. */
  readonly tools?: ToolCatalog | undefined
  /** Character counts by message identity, shared across calls. */
  readonly cache?: CostCache | undefined
}

/**
 * Characters of each part of a request, and the two sums the triggers use.
 *
 * @inline
 * @since 0.1.0
 */
export interface RequestChars {
  /** Characters of the instructions. */
  readonly instructions: number
  /** Characters of the transcript (each message's countable text). */
  readonly transcript: number
  /** Characters of the serialized tool catalog. */
  readonly toolCatalog: number
  /** `instructions + transcript`: what the independent char rule and the hard limit measure. */
  readonly conversation: number
  /** `instructions + transcript + toolCatalog`: what the char fallback measures. */
  readonly request: number
}

const textLength = (value: unknown): number => typeof value === "string" ? value.length : 0

/**
 * Measures a request in characters: instructions, transcript (`format.text` of each message) and tool catalog,
 * with `conversation` (never the tool catalog) for the independent char rule and `request` (everything) for
 * the char fallback. With a {@link CostCache}, each message's length is read once across calls.
 *
 * @example
 * ```ts
 * import { charRuleFires, requestChars } from "@ctxkit/budget"
 * import { formats } from "@ctxkit/core"
 *
 * const chars = requestChars({
 *   instructions: "Be terse.",
 *   messages: [{ role: "user", content: "hello" }],
 *   format: formats.openaiChat,
 *   tools: "x".repeat(700_000)
 * })
 * chars.conversation // 14
 * charRuleFires({ conversationChars: chars.conversation }).compact // false: the catalog is not counted
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const requestChars = <M>(parts: RequestParts<M>): RequestChars => {
  const given = typeof parts === "object" && parts !== null ? parts : {}
  const format = given.format ?? (formats.auto as unknown as MessageFormat<M>)
  const list = given.instructions
  let instructions = 0
  if (typeof list === "string") instructions = list.length
  else if (Array.isArray(list)) { for (const text of list) instructions += textLength(text) }
  const cache = given.cache instanceof CostCache ? given.cache : undefined
  const profile = `chars\u0000${format.name}`
  const store = cache?.store(profile)
  const messages: ReadonlyArray<M> = Array.isArray(given.messages) ? given.messages : []
  // As in conversationCost: positions still holding the message counted last time are matched by reference.
  const snapshot = cache?.snapshot(profile)
  const refs = snapshot?.refs ?? []
  const values = snapshot?.values ?? []
  const known = Math.min(refs.length, messages.length)
  const lengths = new Float64Array(messages.length)
  let transcript = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as M
    let length = i < known && refs[i] === message ? values[i] : undefined
    if (length === undefined) {
      const keyed = store !== undefined && isKey(message)
      length = keyed ? store.get(message) : undefined
      if (length === undefined) {
        length = textLength(format.text(message))
        if (keyed) store.set(message, length)
      }
    }
    lengths[i] = length
    transcript += length
  }
  if (cache !== undefined) cache.remember(profile, { refs: messages.slice(), values: lengths })
  const toolCatalog = serializeToolCatalog(given.tools).length
  return {
    instructions,
    transcript,
    toolCatalog,
    conversation: instructions + transcript,
    request: instructions + transcript + toolCatalog
  }
}
