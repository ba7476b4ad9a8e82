/**
 * The LangChain message types (`_getType()` / the serialized `type`): the lens reads a message's kind by them and
 * format detection tells a LangChain message by them.
 *
 * @internal
 */
export const LANGCHAIN_TYPES: ReadonlySet<string> = new Set([
  "human",
  "ai",
  "system",
  "tool",
  "function",
  "generic",
  "developer",
  "remove"
])
