/** Whether `value` can key a `WeakMap`. */
export const isKey = (value: unknown): value is object =>
  (typeof value === "object" && value !== null) || typeof value === "function"
