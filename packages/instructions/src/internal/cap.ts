import { describeValue } from "@ctxkit/core/Describe"
import { readSetting, setting } from "@ctxkit/core/Settings"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { InstructionsOptionAdjusted } from "../Diagnostics.ts"
import { InvalidInstructionsOption } from "../Errors.ts"
import { byteLength, tailBytes } from "./files.ts"

/** The cap's default and range (`DEFAULT_MAX_BYTES` and `MAX_BYTES_RANGE` of the public module). */
export const CAP_DEFAULT_BYTES = 32_768
export const CAP_BYTES_RANGE: readonly [number, number] = [1_024, 1_048_576]

/** What the cap did to one text: kept `whole`, kept its `tail`, or `dropped`. */
export interface Capped<A> {
  readonly item: A
  readonly status: "whole" | "tail" | "dropped"
  readonly bytes: number
  readonly keptBytes: number
  readonly text: string
}

/**
 * The cap rule shared by the main assembly and nested attachments: items come farthest first; walking from the
 * closest, each whole text is kept while it fits in `maxBytes`, the first that does not fit keeps its tail (on a
 * character boundary), and farther ones are dropped. Returns the items farthest first and the bytes omitted.
 */
export const capClosestFirst = <A extends { readonly text: string }>(
  items: ReadonlyArray<A>,
  maxBytes: number
): { readonly capped: ReadonlyArray<Capped<A>>; readonly omittedBytes: number } => {
  const closestFirst = [...items].reverse().reduce<{
    readonly remaining: number
    readonly out: ReadonlyArray<Capped<A>>
  }>((acc, item) => {
    const bytes = byteLength(item.text)
    if (bytes <= acc.remaining) {
      return {
        remaining: acc.remaining - bytes,
        out: [...acc.out, { item, status: "whole", bytes, keptBytes: bytes, text: item.text }]
      }
    }
    if (acc.remaining > 0) {
      const text = tailBytes(item.text, acc.remaining)
      return { remaining: 0, out: [...acc.out, { item, status: "tail", bytes, keptBytes: byteLength(text), text }] }
    }
    return { remaining: 0, out: [...acc.out, { item, status: "dropped", bytes, keptBytes: 0, text: "" }] }
  }, { remaining: maxBytes, out: [] })
  const capped = [...closestFirst.out].reverse()
  return { capped, omittedBytes: capped.reduce((sum, c) => sum + c.bytes - c.keptBytes, 0) }
}

/** Clamps a cap into `range` (inclusive); a non-finite cap means `fallback`. */
export const clampBytes = (maxBytes: number, range: readonly [number, number], fallback: number): number =>
  Number.isFinite(maxBytes) ? Math.min(range[1], Math.max(range[0], Math.floor(maxBytes))) : fallback

// The pure steps cannot fail, so a cap they cannot use is repaired (clamped into range, rounded down; the default
// when not a finite number) and reported.
const repairedMaxBytes = setting(
  Schema.Int.check(Schema.isBetween({ minimum: CAP_BYTES_RANGE[0], maximum: CAP_BYTES_RANGE[1] })),
  {
    accepted: `an integer from ${CAP_BYTES_RANGE[0]} to ${CAP_BYTES_RANGE[1]}`,
    default: CAP_DEFAULT_BYTES,
    repair: (given) => clampBytes(Predicate.isNumber(given) ? given : Number.NaN, CAP_BYTES_RANGE, CAP_DEFAULT_BYTES)
  }
)

/**
 * The `maxBytes` option of the pure steps (`assembleInstructions`, `planNestedAttachment`): the value to use, and
 * an `InstructionsOptionAdjusted` when the one given could not be used as it is.
 */
export const readMaxBytes = (
  options: unknown
): { readonly maxBytes: number; readonly diagnostics: ReadonlyArray<InstructionsOptionAdjusted> } => {
  const given = Predicate.isObject(options) ? (options as { readonly maxBytes?: unknown }).maxBytes : undefined
  const { adjustment, value } = readSetting("maxBytes", repairedMaxBytes, given)
  return {
    maxBytes: value,
    diagnostics: adjustment === undefined ? [] : [
      new InstructionsOptionAdjusted({
        option: adjustment.option,
        given: describeValue(adjustment.given),
        accepted: adjustment.accepted,
        used: String(adjustment.used)
      })
    ]
  }
}

const allowedMaxBytes = setting(
  Schema.Number.check(Schema.isBetween({ minimum: CAP_BYTES_RANGE[0], maximum: CAP_BYTES_RANGE[1] })),
  { accepted: `${CAP_BYTES_RANGE[0]}-${CAP_BYTES_RANGE[1]}`, default: CAP_DEFAULT_BYTES }
)

/**
 * The `maxBytes` option of the Effect operations (`loadInstructions`, `attachNestedInstructions`): the value to
 * use, or an `InvalidInstructionsOption` failure naming it (an operation fails rather than replacing the value).
 */
export const requireMaxBytes = (given: unknown): Effect.Effect<number, InvalidInstructionsOption> => {
  const { adjustment, value } = readSetting("maxBytes", allowedMaxBytes, given)
  return adjustment === undefined ? Effect.succeed(value) : Effect.fail(
    new InvalidInstructionsOption({
      option: "maxBytes",
      value: Predicate.isNumber(adjustment.given) ? adjustment.given : Number.NaN,
      allowed: adjustment.accepted
    })
  )
}
