/** `4,096`; non-finite values as `NaN` / `Infinity`. */
export const formatCount = (n: number): string => Number.isFinite(n) ? n.toLocaleString("en-US") : String(n)

/** Any value as short text for a diagnostic (`NaN`, `-1`, `"12"`, `undefined`, `object`). */
export const describeValue = (value: unknown): string => {
  if (typeof value === "number") return String(value)
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (value === null || value === undefined || typeof value === "boolean" || typeof value === "bigint") {
    return String(value)
  }
  return typeof value
}
