/**
 * The `context_governed` event: what the governor did (or would do) to one model request, in counts and ids —
 * never paths, patterns, stub text or file contents.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { UsageSummary } from "./UsageSummary.ts"

/**
 * How many results were elided, in total and by reason.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElidedCounts = Schema.Struct({
  total: Schema.Number,
  superseded_read: Schema.Number,
  stale_bg_output: Schema.Number,
  duplicate_search: Schema.Number
})

/**
 * The type of `ElidedCounts` values.
 *
 * @category models
 * @since 0.1.0
 */
export type ElidedCounts = typeof ElidedCounts.Type

/**
 * At most this many call ids are listed in {@link ContextGoverned}'s `newlyElided`; the rest are counted in
 * `newlyElidedMore`.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_EVENT_CALL_IDS = 32

/**
 * The `context_governed` event, emitted once per model request when the governor is in `shadow` or `on` (again
 * for a retry after a truncation): the mode, the policy version, the request number within the run, message
 * and segment counts, elisions by reason, token estimates before and after (`after` is what `on` sends, or
 * would send), and the call ids elided for the first time in this request — at most 32, plus a count of the
 * rest. With `usage` asked for, it carries the usage summary (tool names and counts only).
 *
 * @example
 * ```ts
 * import { ContextGoverned, govern } from "@ctxkit/governor"
 * import * as Schema from "effect/Schema"
 *
 * const { event } = govern([{ role: "user", content: "hi" }], { mode: "shadow" })
 * event?.type // "context_governed"
 * Schema.is(ContextGoverned)(event) // true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextGoverned = Schema.Struct({
  type: Schema.Literal("context_governed"),
  mode: Schema.Literals(["shadow", "on"]),
  policyVersion: Schema.Literal(1),
  /** The request's number within the run (the caller's count; 1 by default). */
  request: Schema.Number,
  /** Messages in the history. */
  messages: Schema.Number,
  /** Segments of the history: one per message, or one per tool result for a message carrying results. */
  segments: Schema.Number,
  elided: ElidedCounts,
  /** Estimated tokens of the full history. */
  tokensBefore: Schema.Number,
  /** Estimated tokens of the request `on` sends (in `shadow`: would send). */
  tokensAfter: Schema.Number,
  /** Whether the token figures are estimates (an approximate counter, or a counter that failed). */
  approximate: Schema.Boolean,
  /** Call ids elided in this request and not in the previous one (at most 32). */
  newlyElided: Schema.Array(Schema.String),
  /** How many more call ids were elided for the first time than `newlyElided` lists. */
  newlyElidedMore: Schema.Number,
  usage: Schema.optionalKey(UsageSummary)
})

/**
 * The type of {@link ContextGoverned} values.
 *
 * @category models
 * @since 0.1.0
 */
export type ContextGoverned = typeof ContextGoverned.Type
