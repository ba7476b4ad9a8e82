/**
 * The usage ledger: what the server last reported for this conversation, so that `used` is measured, not
 * estimated, for everything up to the last response — and only the messages added since are estimated.
 * Guards against the known failures of peers: usage from before a compaction applied after it, the same usage
 * recorded twice, usage from a truncated request, and a model change.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import { applyCalibration, type Calibration } from "./Calibration.ts"
import type { BudgetDiagnostic } from "./Diagnostics.ts"
import { isCount } from "./internal/settings.ts"
import { conversationCost, type CostOptions } from "./MessageCost.ts"
import { readUsage } from "./Usage.ts"

/**
 * The ledger state: the last sample, an epoch that changes on every clear (a response to a request prepared
 * in an older epoch is stale), the model, and why it was last cleared. Persistable (a Schema class).
 *
 * @example
 * ```ts
 * import { makeUsageLedger } from "@ctxkit/budget"
 *
 * const ledger = makeUsageLedger({ model: "qwen2.5:7b" })
 * ledger.epoch // 0
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class UsageLedger extends Schema.Class<UsageLedger>("@ctxkit/budget/UsageLedger")({
  /**
   * The last good sample, if any, from the last response that reported usage: `tokens = prompt + output`
   * (input + cache read + cache write + output), `count = messages at request + 1` (the response itself, so
   * that messages from index `count` on were added after it), and the response's id when the caller gave one
   * (a second report of it is ignored).
   */
  sample: Schema.optionalKey(Schema.Struct({
    tokens: Schema.Number,
    count: Schema.Number,
    responseId: Schema.optionalKey(Schema.String)
  })),
  /** Changes on every clear. */
  epoch: Schema.Number,
  /** The model the sample belongs to. */
  model: Schema.optionalKey(Schema.String),
  /** Why the ledger was last cleared. */
  cleared: Schema.optionalKey(Schema.Literals(["compaction", "clearing", "model-change"]))
}) {}

/**
 * Why a ledger is cleared: the conversation was compacted, old tool results were cleared, or the model
 * changed. Each makes the last reported usage describe a request that no longer exists.
 *
 * @inline
 * @since 0.1.0
 */
export type LedgerClearReason = "compaction" | "clearing" | "model-change"

/**
 * A new, empty ledger (epoch 0), optionally for a model.
 *
 * @example
 * ```ts
 * import { makeUsageLedger } from "@ctxkit/budget"
 *
 * makeUsageLedger().sample // undefined
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const makeUsageLedger = (options?: { readonly model?: string | undefined }): UsageLedger =>
  new UsageLedger({ epoch: 0, ...(typeof options?.model === "string" ? { model: options.model } : {}) })

/**
 * One response's report for {@link recordUsage}.
 *
 * @inline
 * @since 0.1.0
 */
export interface UsageReport {
  /** The provider's usage record, in any shape `readUsage` reads. */
  readonly usage: unknown
  /** How many messages the conversation had when the request was sent. */
  readonly messagesAtRequest: number
  /** The ledger's `epoch` when the request was prepared. A different epoch now means the report is stale. */
  readonly epoch?: number | undefined
  /** Whether the request looked truncated (`@ctxkit/overflow`): its usage is never recorded. */
  readonly truncated: boolean
  /** The model that answered; a different model than the ledger's clears it first. */
  readonly model?: string | undefined
  /** The response's id; a second report of the same id is ignored. */
  readonly responseId?: string | undefined
}

/**
 * What {@link recordUsage} did: the new ledger, whether the report became its sample, and why.
 *
 * - `recorded`: it did (after clearing the ledger when the model changed);
 * - `no-usage`: the provider reported no usage (0) — the ledger is unchanged;
 * - `truncated`: the request looked truncated — unchanged (its usage understates the conversation);
 * - `stale`: the request was prepared before the last clear (compaction, clearing, model change) — unchanged;
 * - `duplicate`: this response was already recorded — unchanged (usage is never counted twice);
 * - `invalid`: `messagesAtRequest` is not a whole number ≥ 0 — unchanged.
 *
 * @inline
 * @since 0.1.0
 */
export interface LedgerUpdate {
  /** The ledger to use from now on. */
  readonly ledger: UsageLedger
  /** Whether the report became the ledger's sample. */
  readonly recorded: boolean
  /** Why. */
  readonly reason: "recorded" | "no-usage" | "truncated" | "stale" | "duplicate" | "invalid"
}

const record = (ledger: UsageLedger, report: UsageReport): LedgerUpdate => {
  const current = ledger instanceof UsageLedger ? ledger : makeUsageLedger()
  const given: Partial<UsageReport> = typeof report === "object" && report !== null ? report : {}
  const unchanged = (reason: LedgerUpdate["reason"]): LedgerUpdate => ({ ledger: current, recorded: false, reason })
  const at = given.messagesAtRequest
  if (!isCount(at) || !Number.isInteger(at)) return unchanged("invalid")
  if (typeof given.epoch === "number" && given.epoch !== current.epoch) return unchanged("stale")
  if (given.truncated === true) return unchanged("truncated")
  const responseId = typeof given.responseId === "string" ? given.responseId : undefined
  if (responseId !== undefined && current.sample?.responseId === responseId) return unchanged("duplicate")
  const usage = readUsage(given.usage)
  if (usage.prompt <= 0) return unchanged("no-usage")
  const model = typeof given.model === "string" ? given.model : undefined
  const base = model !== undefined && current.model !== undefined && current.model !== model
    ? clear(current, "model-change")
    : current
  const sample = {
    tokens: usage.prompt + usage.output,
    count: at + 1,
    ...(responseId !== undefined ? { responseId } : {})
  }
  const next = new UsageLedger({
    sample,
    epoch: base.epoch,
    ...(model !== undefined ? { model } : base.model !== undefined ? { model: base.model } : {}),
    ...(base.cleared !== undefined ? { cleared: base.cleared } : {})
  })
  return { ledger: next, recorded: true, reason: "recorded" }
}

/**
 * Records a response's reported usage: `{ tokens: prompt + output, count: messagesAtRequest + 1 }` replaces
 * the previous sample (replacing, never adding: recording the same usage twice cannot double it). Usage of 0,
 * a truncated request, a stale epoch or an already-recorded response id leaves the ledger as it was and says
 * why. A report from another model than the ledger's clears it first.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { makeUsageLedger, recordUsage } from "@ctxkit/budget"
 * import { pipe } from "effect/Function"
 *
 * const ledger = makeUsageLedger()
 * const { ledger: next, reason } = recordUsage(ledger, {
 *   usage: { prompt_tokens: 3_725, completion_tokens: 8 },
 *   messagesAtRequest: 27,
 *   epoch: ledger.epoch,
 *   truncated: false
 * })
 * reason // "recorded"
 * next.sample // { tokens: 3733, count: 28 }
 *
 * pipe(next, recordUsage({ usage: { prompt_tokens: 0 }, messagesAtRequest: 29, truncated: false })).reason // "no-usage"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const recordUsage: {
  (report: UsageReport): (ledger: UsageLedger) => LedgerUpdate
  (ledger: UsageLedger, report: UsageReport): LedgerUpdate
} = dual(2, record)

const reasons: ReadonlyArray<unknown> = ["compaction", "clearing", "model-change"]

const clear = (ledger: UsageLedger, reason: LedgerClearReason): UsageLedger => {
  const current = ledger instanceof UsageLedger ? ledger : makeUsageLedger()
  const epoch = isCount(current.epoch) ? current.epoch + 1 : 1
  return new UsageLedger({
    epoch,
    ...(current.model !== undefined ? { model: current.model } : {}),
    // A reason outside the three (a JavaScript caller's typo) still clears; it just is not recorded.
    ...(reasons.includes(reason) ? { cleared: reason } : {})
  })
}

/**
 * Clears the ledger after a compaction, a clearing of old tool results, or a model change: the sample goes,
 * and the epoch changes so that a late response to a request prepared before the clear is rejected as stale.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { clearUsageLedger, makeUsageLedger } from "@ctxkit/budget"
 *
 * const cleared = clearUsageLedger(makeUsageLedger(), "compaction")
 * cleared.epoch // 1
 * cleared.cleared // "compaction"
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const clearUsageLedger: {
  (reason: LedgerClearReason): (ledger: UsageLedger) => UsageLedger
  (ledger: UsageLedger, reason: LedgerClearReason): UsageLedger
} = dual(2, clear)

/**
 * How {@link ledgerUsed} measures the conversation: the cost options for estimating messages, the tokens of
 * the parts outside `messages` that usage includes (instructions, tool catalog), and the calibration that
 * scales estimates.
 *
 * @inline
 * @since 0.1.0
 */
export interface LedgerUsedOptions<M> extends CostOptions<M> {
  /** The conversation now (the same array the `messagesAtRequest` counts referred to, grown since). */
  readonly messages: ReadonlyArray<M>
  /**
   * Tokens outside `messages` that a request carries (instructions, tool catalog), added to a full estimate.
   * Reported usage already includes them. Default 0.
   */
  readonly fixedTokens?: number | undefined
  /** Scales every estimated part. Default: none. */
  readonly calibration?: Calibration | undefined
}

/**
 * The tokens the conversation uses now, and how they were found.
 *
 * @inline
 * @since 0.1.0
 */
export interface LedgerUsed {
  /** Tokens used. */
  readonly tokens: number
  /** `usage`: the sample plus the estimate of messages added since; `estimate`: the full estimate. */
  readonly basis: "usage" | "estimate"
  /** How many messages were estimated. */
  readonly estimatedMessages: number
  /** True when a sample was ignored because the conversation is now shorter than it (a missed clear). */
  readonly stale: boolean
  /** True when an estimated part used an approximate count. */
  readonly approximate: boolean
  /** Counter failures and adjusted settings of the estimate. */
  readonly diagnostics: ReadonlyArray<BudgetDiagnostic>
}

/**
 * The tokens used now: with a sample, `sample.tokens` plus the (calibrated) estimate of the messages added
 * since (`messages.slice(sample.count)`); without one, the full (calibrated) estimate of `messages` plus
 * `fixedTokens`. A sample whose `count` exceeds the conversation (it was compacted without clearing the
 * ledger) is ignored and reported as `stale`.
 *
 * @example
 * ```ts
 * import { ledgerUsed, makeUsageLedger, recordUsage } from "@ctxkit/budget"
 *
 * const messages = [
 *   { role: "user", content: "read the files" },
 *   { role: "assistant", content: "Reading." }
 * ]
 * const { ledger } = recordUsage(makeUsageLedger(), {
 *   usage: { input_tokens: 900, output_tokens: 12 },
 *   messagesAtRequest: 1,
 *   truncated: false
 * })
 * const now = [...messages, { role: "user", content: "and now?" }]
 * const used = ledgerUsed(ledger, { messages: now })
 * used.basis // "usage"
 * used.tokens // 918: 912 reported + 6 estimated for the new message (2 + 4 overhead)
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const ledgerUsed = <M>(ledger: UsageLedger, options: LedgerUsedOptions<M>): LedgerUsed => {
  const given: Partial<LedgerUsedOptions<M>> = typeof options === "object" && options !== null ? options : {}
  const messages: ReadonlyArray<M> = Array.isArray(given.messages) ? given.messages : []
  const sample = ledger instanceof UsageLedger ? ledger.sample : undefined
  const stale = sample !== undefined && sample.count > messages.length
  const calibration = given.calibration
  const scaled = (tokens: number): number => calibration === undefined ? tokens : applyCalibration(tokens, calibration)
  if (sample !== undefined && !stale) {
    const since = messages.slice(sample.count)
    const cost = conversationCost(since, given)
    return {
      tokens: sample.tokens + scaled(cost.total),
      basis: "usage",
      estimatedMessages: since.length,
      stale: false,
      approximate: since.length > 0 && cost.approximate,
      diagnostics: cost.diagnostics
    }
  }
  const cost = conversationCost(messages, given)
  const fixed = isCount(given.fixedTokens) ? given.fixedTokens : 0
  return {
    tokens: scaled(cost.total + fixed),
    basis: "estimate",
    estimatedMessages: messages.length,
    stale,
    approximate: cost.approximate,
    diagnostics: cost.diagnostics
  }
}
