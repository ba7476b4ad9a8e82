/** `4,096`; non-finite values as `NaN` / `Infinity`. */
export const formatCount = (n: number): string => Number.isFinite(n) ? n.toLocaleString("en-US") : String(n)
