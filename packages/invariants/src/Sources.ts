/**
 * What the `<invariants>` block is built from: the accepted user quotes and the host's live sources (the
 * goal, the approved plan, the acceptance criteria, the active grants). All Schema-defined, so a host can
 * decode them at its edge; {@link renderInvariants} also checks each part itself and leaves out, with a
 * diagnostic, whatever does not have the documented shape.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The goal statuses under which the goal is live and goes into the block: `active`, `paused`, `blocked`
 * and `budget_limited`. A goal in any other status (`completed`, `abandoned`, …) is left out.
 *
 * @category constants
 * @since 0.1.0
 */
export const LIVE_GOAL_STATUSES: ReadonlyArray<string> = ["active", "paused", "blocked", "budget_limited"]

/**
 * The plan statuses under which a plan counts as approved by the user: `approved` and `implementing`.
 * A plan given without a status is taken as approved (the host passes only the plan the user approved).
 *
 * @category constants
 * @since 0.1.0
 */
export const APPROVED_PLAN_STATUSES: ReadonlyArray<string> = ["approved", "implementing"]

/**
 * The session's goal and its status. It goes into the block, whole and never cut, only while its status is
 * one of `LIVE_GOAL_STATUSES`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantGoal = Schema.Struct({
  /** The goal as the user set it. */
  text: Schema.String,
  /** The goal's status in the host (`active`, `paused`, `blocked`, `budget_limited`, `completed`, …). */
  status: Schema.String
})

/**
 * The type of a value of the `InvariantGoal` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantGoal = typeof InvariantGoal.Type

/**
 * A plan the user approved: its title, revision number and content hash (only the first 8 characters of
 * the hash go into the block). With a `status`, the plan goes in only when it is one of
 * `APPROVED_PLAN_STATUSES`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantPlan = Schema.Struct({
  /** The plan's title. */
  title: Schema.String,
  /** The revision the user approved: an integer ≥ 0. */
  revision: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** The plan's content hash (hex); the block shows its first 8 characters. */
  hash: Schema.String,
  /** The plan's status in the host; absent means approved. */
  status: Schema.optional(Schema.String)
})

/**
 * The type of a value of the `InvariantPlan` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantPlan = typeof InvariantPlan.Type

/**
 * One acceptance criterion of the session: its text, whether it is required, and whether it applies
 * (`applicable: false` leaves it out of the block). Live state (passing, failing) is deliberately not part of
 * it: the block is standing context, not a status report.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantCriterion = Schema.Struct({
  /** What must hold. */
  text: Schema.String,
  /** `[required]` when true, `[optional]` when false. */
  required: Schema.Boolean,
  /** `false` when the criterion was marked not applicable; absent means it applies. */
  applicable: Schema.optional(Schema.Boolean)
})

/**
 * The type of a value of the `InvariantCriterion` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantCriterion = typeof InvariantCriterion.Type

/**
 * What the user approved for the session: the names of approved effects and capability grants
 * (`write_file`, `analysis.run`), and how many external directories were approved. Never paths, scripts or
 * arguments: a name must look like a name (letters, digits and `_ . : @ + -`, at most 100 characters), and
 * directories are only counted.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantGrants = Schema.Struct({
  /** Names of approved effects and capability grants, in the order they were approved. */
  names: Schema.Array(Schema.String),
  /** How many directories outside the workspace the user approved: an integer ≥ 0. */
  externalDirectories: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/**
 * The type of a value of the `InvariantGrants` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantGrants = typeof InvariantGrants.Type

/**
 * Everything the block is built from. `compacted` says whether the session has been compacted at least
 * once (nothing is sent before that); `instructions` are the accepted user quotes, oldest first (see
 * `acceptQuotes`).
 *
 * @example
 * ```ts
 * import type { InvariantSources } from "@ctxkit/invariants"
 *
 * const sources: InvariantSources = {
 *   compacted: true,
 *   instructions: ["Never use semicolons in generated code"],
 *   goal: { text: "Migrate the CLI to Effect 4", status: "active" },
 *   criteria: [{ text: "npm test passes", required: true }]
 * }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const InvariantSources = Schema.Struct({
  /** Whether the session has been compacted at least once. */
  compacted: Schema.Boolean,
  /** Accepted user quotes, oldest first: at most 20, each at most 500 characters. */
  instructions: Schema.Array(Schema.String),
  /** The live goal. */
  goal: Schema.optional(InvariantGoal),
  /** The plan the user approved. */
  plan: Schema.optional(InvariantPlan),
  /** The session's acceptance criteria, in order. */
  criteria: Schema.optional(Schema.Array(InvariantCriterion)),
  /** The session's active grants. */
  grants: Schema.optional(InvariantGrants)
})

/**
 * The type of a value of the {@link InvariantSources} schema.
 *
 * @example
 * ```ts
 * import type { InvariantSources } from "@ctxkit/invariants"
 *
 * const sources: InvariantSources = { compacted: false, instructions: [] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type InvariantSources = typeof InvariantSources.Type

/**
 * Options of `renderInvariants`: the block's size limit (default 4,000 characters, allowed
 * 1,000–20,000; a value out of range is clamped and reported) and the name written in the block's second
 * line (default `ctxkit`).
 *
 * @example
 * ```ts
 * import type { InvariantsOptions } from "@ctxkit/invariants/Sources"
 *
 * const options: InvariantsOptions = { maxChars: 6_000, maintainer: "Alisio" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InvariantsOptions {
  /** The most characters the whole block may have (`context.invariants.maxChars`). Default 4,000. */
  readonly maxChars?: number | undefined
  /**
   * Who maintains the block, as written in "Maintained by … across context compaction." Default `ctxkit`.
   * 1–64 characters with no control characters, line breaks, `<` or `>`; anything else falls back to the default.
   */
  readonly maintainer?: string | undefined
}
