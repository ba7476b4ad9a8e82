/**
 * Reading tool-call arguments: parsing the model's JSON, picking fields, a canonical key for comparisons.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { ToolArguments } from "../ToolKinds.ts"

const EMPTY: ToolArguments = Object.freeze({})

/** The arguments as an object: the parsed JSON when it is an object, `{}` otherwise (never throws). */
export const parseArguments = (raw: string): ToolArguments => {
  if (raw.length === 0 || raw.charCodeAt(0) !== 123 /* { */ && raw.trimStart()[0] !== "{") return EMPTY
  try {
    const parsed: unknown = JSON.parse(raw)
    return Predicate.isObject(parsed) ? parsed : EMPTY
  } catch {
    return EMPTY
  }
}

/** The first of `keys` whose value is a non-empty string. */
export const stringArg = (args: ToolArguments, ...keys: ReadonlyArray<string>): string | undefined => {
  for (const key of keys) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined
    if (typeof value === "string" && value.length > 0) return value
  }
  return undefined
}

/** The first of `keys` whose value is a non-negative integer (a number, or a string of digits). */
export const intArg = (args: ToolArguments, ...keys: ReadonlyArray<string>): number | undefined => {
  for (const key of keys) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value
    if (typeof value === "string" && /^\d{1,15}$/.test(value)) return Number(value)
  }
  return undefined
}

/** A non-negative integer written as digits, or `undefined`. */
export const intWord = (word: string | undefined): number | undefined =>
  word !== undefined && /^\d{1,15}$/.test(word) ? Number(word) : undefined

const canonical = (value: unknown, depth: number): unknown => {
  if (depth > 64 || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map((v) => canonical(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key], depth + 1)
  return out
}

/**
 * A key equal for equal arguments: the parsed JSON re-serialized with sorted keys, or the raw text when it is
 * not JSON.
 */
export const argumentsKey = (raw: string): string => {
  try {
    return JSON.stringify(canonical(JSON.parse(raw), 0)) ?? raw
  } catch {
    return "\u0000raw\u0000" + raw
  }
}
