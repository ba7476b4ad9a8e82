/**
 * The version of the `<invariants>` block's wording and the limits it is built under.
 *
 * @since 0.1.0
 */

/**
 * The policy version written in the block's opening tag (`<invariants policy="1">`). It changes when the
 * block's wording, sections or rules change, so a host (or a test) can tell which rules a block follows.
 *
 * @example
 * ```ts
 * import { INVARIANTS_POLICY } from "@ctxkit/invariants"
 *
 * `<invariants policy="${INVARIANTS_POLICY}">` // "<invariants policy=\"1\">"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const INVARIANTS_POLICY = 1 as const

/**
 * The limits of the block and of the quote store, in characters (UTF-16 code units, `String#length`):
 * `maxChars` of the whole block (default 4,000, allowed 1,000–20,000), at most `instructions` (20) user
 * instructions, each at most `instructionChars` (500) long.
 *
 * @category constants
 * @since 0.1.0
 */
export const INVARIANTS_LIMITS = {
  /** Size of the whole block, newlines included. */
  maxChars: { default: 4_000, min: 1_000, max: 20_000 },
  /** How many user instructions the store keeps. */
  instructions: 20,
  /** The longest user instruction the store accepts. */
  instructionChars: 500
} as const
