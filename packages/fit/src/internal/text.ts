/** Runs of whitespace as one space, trimmed. */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/g, " ").trim()
