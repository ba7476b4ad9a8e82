/** A value as short text for an error message (never the whole value: it may be a secret or huge). */
export const describeValue = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (value === null || typeof value !== "object" && typeof value !== "function") return String(value)
  return Array.isArray(value) ? "array" : typeof value
}
