import { byteLength, tailBytes } from "./files.ts"

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
