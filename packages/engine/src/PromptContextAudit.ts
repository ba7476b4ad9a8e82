/**
 * `PromptContextAudit`: the record of one generation's prompt — every block in real order with its tokens and a
 * stable reason, the limits, the tokenizer, the messages sent, the host's diagnostics — created before the
 * network call (`startAudit`) and finalized with a terminal status (`finalizeAudit`). Pure constructors over
 * Schema-defined data, so an audit can be stored and decoded back.
 *
 * @since 0.1.0
 */
import { type FormatInput, type MessageFormat, toolGroups } from "@ctxkit/core"
import { capByTier } from "@ctxkit/core/CapByTier"
import { type CountTokens, type FitOptions, FitReason } from "@ctxkit/fit"
import * as Schema from "effect/Schema"
import { TokenizerApproximate } from "./HostDiagnostics.ts"
import {
  budgetUsable,
  costingOf,
  costs,
  formatOf,
  isObject,
  keptSlots,
  nextInputSlots,
  protectedPositions
} from "./internal/host.ts"
import type { InterceptorRun } from "./RunInterceptors.ts"
import type { DroppedBlock, StrategyRun } from "./RunStrategy.ts"

/**
 * The most blocks, and the most diagnostics, an audit lists: 500.
 *
 * @example
 * ```ts
 * import { MAX_AUDIT_ENTRIES } from "@ctxkit/engine/PromptContextAudit"
 *
 * MAX_AUDIT_ENTRIES // 500
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_AUDIT_ENTRIES = 500

/**
 * An audit's status: `pending` from `startAudit` (before the network call) until `finalizeAudit` sets a terminal
 * one — `completed`, `failed` or `cancelled`.
 *
 * @example
 * ```ts
 * import { AuditStatus } from "@ctxkit/engine/PromptContextAudit"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(AuditStatus)("cancelled") // "cancelled"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const AuditStatus = Schema.Literals(["pending", "completed", "failed", "cancelled"])

/**
 * An audit's status (see the {@link AuditStatus} schema).
 *
 * @example
 * ```ts
 * import type { AuditStatus } from "@ctxkit/engine/PromptContextAudit"
 *
 * const status: AuditStatus = "completed"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type AuditStatus = typeof AuditStatus.Type

/**
 * A provider failure, normalized to a stable code: what an audit keeps of it (never a provider response body).
 *
 * @example
 * ```ts
 * import { ProviderErrorCode } from "@ctxkit/engine/PromptContextAudit"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(ProviderErrorCode)("rate_limited") // "rate_limited"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProviderErrorCode = Schema.Literals([
  "authentication",
  "permission_denied",
  "not_found",
  "bad_request",
  "context_length_exceeded",
  "token_budget_exceeded",
  "rate_limited",
  "quota_exceeded",
  "content_policy",
  "overloaded",
  "server_error",
  "invalid_response",
  "timeout",
  "network",
  "cancelled",
  "unknown"
])

/**
 * A normalized provider error code (see the {@link ProviderErrorCode} schema).
 *
 * @example
 * ```ts
 * import type { ProviderErrorCode } from "@ctxkit/engine/PromptContextAudit"
 *
 * const code: ProviderErrorCode = "context_length_exceeded"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ProviderErrorCode = typeof ProviderErrorCode.Type

/**
 * One prompt block of an audit: where it is in the real order, what it is, what it costs, whether it was sent and
 * the stable reason why.
 *
 * - `origin`: `input` (a message of the conversation), `compressed` (sent as its compressed copy), `inserted` (a
 *   note the strategy made: the summary), `plugin` (added by an interceptor), `omitted` (a block the harness
 *   declared but never made a message: empty or disabled).
 * - `reason` when sent: `protected` (system from the system itself, the current request, or in a tool-call group
 *   with one of them), `pinned`, `summary`, `fits`, `interceptor` (added by one); when not sent: `manual`,
 *   `context-shift` (the strategy removed it), `final-budget` (a host recount found the prompt over budget),
 *   `interceptor` (one removed it; `interceptor` names it), `empty`, `disabled`.
 *
 * @example
 * ```ts
 * import { AuditBlock } from "@ctxkit/engine"
 * import * as Schema from "effect/Schema"
 *
 * const block: AuditBlock = Schema.decodeUnknownSync(AuditBlock)({
 *   position: 0, index: 0, origin: "input", role: "system", tokens: 12, included: true, reason: "protected"
 * })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const AuditBlock = Schema.Struct({
  /** Position in the real order (the order sent, with left-out blocks where they were). */
  position: Schema.Number,
  /** Index of the message in the conversation, for `input` and `compressed` blocks. */
  index: Schema.optionalKey(Schema.Number),
  /** What the block is. */
  origin: Schema.Literals(["input", "compressed", "inserted", "plugin", "omitted"]),
  /** The message's role, for message blocks. */
  role: Schema.optionalKey(Schema.Literals(["system", "user", "assistant", "tool"])),
  /** Where a block came from, when the format records it (`memory`, `lorebook`, `plugin`, …). */
  source: Schema.optionalKey(Schema.String),
  /** The message's own id, when it has one. */
  id: Schema.optionalKey(Schema.String),
  /** A declared block's label, for `omitted` blocks. */
  label: Schema.optionalKey(Schema.String),
  /** What it costs (what was sent when sent; the original when left out), overhead included. */
  tokens: Schema.Number,
  /** Whether it was sent. */
  included: Schema.Boolean,
  /** Why it was sent or left out. */
  reason: FitReason,
  /** For `plugin` blocks, the interceptor that added it; for other blocks an interceptor left out, that one. */
  interceptor: Schema.optionalKey(Schema.String)
})

/**
 * One prompt block of an audit (see the {@link AuditBlock} schema).
 *
 * @example
 * ```ts
 * import type { AuditBlock } from "@ctxkit/engine"
 *
 * const sent = (blocks: ReadonlyArray<AuditBlock>) => blocks.filter((b) => b.included)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type AuditBlock = typeof AuditBlock.Type

/**
 * One diagnostic of an audit: the stage that reported it, its tag, and its message.
 *
 * @example
 * ```ts
 * import { AuditDiagnostic } from "@ctxkit/engine/PromptContextAudit"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(AuditDiagnostic)({
 *   stage: "tokenizer", tag: "TokenizerApproximate", message: "tokenizer \"approximate-chars-v1\" is approximate"
 * })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const AuditDiagnostic = Schema.Struct({
  /** `strategy` (the guard), `fit` (fitting and counting), `interceptor`, or `tokenizer`. */
  stage: Schema.Literals(["strategy", "fit", "interceptor", "tokenizer"]),
  /** The diagnostic's `_tag`. */
  tag: Schema.String,
  /** Its message. */
  message: Schema.String
})

/**
 * One diagnostic of an audit (see the {@link AuditDiagnostic} schema).
 *
 * @example
 * ```ts
 * import type { AuditDiagnostic } from "@ctxkit/engine/PromptContextAudit"
 *
 * const interceptorProblems = (diagnostics: ReadonlyArray<AuditDiagnostic>) => diagnostics.filter((d) => d.stage === "interceptor")
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type AuditDiagnostic = typeof AuditDiagnostic.Type

/**
 * The audit of one generation's prompt. Created `pending` by {@link startAudit} before the network call, finalized
 * by {@link finalizeAudit} with a terminal status. A store keeps the last complete one per chat.
 *
 * At most {@link MAX_AUDIT_ENTRIES} blocks are listed: every block that was sent before any that was left out;
 * among sent blocks, protected, pinned and summary blocks first; within each kind, the most recent first — and
 * the list stays in real order. `blocksOmitted` counts and sums what the cap left out, so totals still add up.
 * Diagnostics are capped the same way (the first ones kept; `diagnosticsOmitted` counts the rest). `messages`,
 * the final provider messages, are kept whole: they are the request.
 *
 * It is not the governor's `ContextReport`, though both list messages with tokens, an origin and a reason: the
 * audit records what one fitting sent and why (a fit reason, the origin of a block in the prompt), the report
 * classifies the stored history (a criticality reason, where a segment's content came from). docs/architecture.md
 * ("One vocabulary") says what they share and why their schemas stay apart.
 *
 * @example
 * ```ts
 * import { PromptContextAudit } from "@ctxkit/engine"
 * import * as Schema from "effect/Schema"
 *
 * declare const stored: string
 * const audit = Schema.decodeUnknownSync(PromptContextAudit)(JSON.parse(stored))
 * audit.blocks.filter((b) => !b.included).map((b) => `${b.position}: ${b.reason}`)
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export class PromptContextAudit extends Schema.Class<PromptContextAudit>("@ctxkit/engine/PromptContextAudit")({
  /** The generation's id (given by the caller). */
  generationId: Schema.String,
  /** The provider's name. */
  provider: Schema.String,
  /** The model's name. */
  model: Schema.String,
  /** `pending` until finalized. */
  status: AuditStatus,
  /** The strategy asked for, the one whose result was used, and whether that was a fallback. */
  strategy: Schema.Struct({ requested: Schema.String, ran: Schema.String, fallback: Schema.Boolean }),
  /** The model's context window, in tokens. */
  contextLimit: Schema.Number,
  /** Tokens reserved for the reply. */
  reservedForReply: Schema.Number,
  /** The prompt's budget (0 when unusable). */
  budget: Schema.Number,
  /** Tokens of the final prompt, by the host's count. */
  promptTokens: Schema.Number,
  /** Whether the prompt fits the budget with everything protected in it (a request is sent only then). */
  fits: Schema.Boolean,
  /** The tokenizer profile (the counter's id) and whether its counts are approximate. */
  tokenizer: Schema.Struct({ profile: Schema.String, approximate: Schema.Boolean }),
  /** The prompt blocks, in real order (capped). */
  blocks: Schema.Array(AuditBlock),
  /** What the cap on `blocks` left out. */
  blocksOmitted: Schema.Struct({
    count: Schema.Number,
    included: Schema.Number,
    excluded: Schema.Number,
    tokens: Schema.Number
  }),
  /** The final provider messages. */
  messages: Schema.Array(Schema.Unknown),
  /** The diagnostics of the guard, of fitting, of the interceptors and of the tokenizer (capped). */
  diagnostics: Schema.Array(AuditDiagnostic),
  /** How many diagnostics the cap left out. */
  diagnosticsOmitted: Schema.Number,
  /** For `failed`: the normalized provider error code. */
  errorCode: Schema.optionalKey(ProviderErrorCode),
  /** When the audit was started, as given by the caller (no clock is read). */
  startedAt: Schema.optionalKey(Schema.Number),
  /** When it was finalized, as given by the caller. */
  finishedAt: Schema.optionalKey(Schema.Number)
}) {}

/**
 * A block the harness declared but never made a message (an empty persona, a disabled lorebook entry), shown in
 * the audit with its reason.
 *
 * @example
 * ```ts
 * import type { OmittedBlock } from "@ctxkit/engine/PromptContextAudit"
 *
 * const block: OmittedBlock = { label: "lorebook: dragons", reason: "disabled", source: "lorebook", before: 1 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface OmittedBlock {
  /** What it is, for a reader. */
  readonly label: string
  /** `empty` (nothing to send) or `disabled` (turned off). */
  readonly reason: "empty" | "disabled"
  /** Where it came from (`persona`, `lorebook`, …). */
  readonly source?: string | undefined
  /** What it would have cost. Default 0. */
  readonly tokens?: number | undefined
  /** The conversation index it would have preceded. Default 0 (the start). */
  readonly before?: number | undefined
}

/**
 * What {@link startAudit} needs: who is generating, the limits, the conversation, what the strategy guard and the
 * interceptors did, and how tokens were counted.
 *
 * @example
 * ```ts
 * import type { StrategyRun } from "@ctxkit/engine/RunStrategy"
 * import type { AuditStart } from "@ctxkit/engine/PromptContextAudit"
 *
 * declare const run: StrategyRun<unknown>
 * const start: AuditStart<unknown> = {
 *   generationId: "gen-42",
 *   provider: "openai",
 *   model: "gpt-4.1",
 *   contextLimit: 8_192,
 *   reservedForReply: 1_024,
 *   messages: [],
 *   strategy: run,
 *   countTokens: (text) => Math.ceil(text.length / 4)
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface AuditStart<M, F = M> {
  /** The generation's id (no randomness here: the caller makes it). */
  readonly generationId: string
  /** The provider's name. */
  readonly provider: string
  /** The model's name. */
  readonly model: string
  /** The model's context window, in tokens. */
  readonly contextLimit: number
  /** Tokens reserved for the reply. Default 0. */
  readonly reservedForReply?: number | undefined
  /** The conversation that was fitted (the input of `runStrategy`). */
  readonly messages: ReadonlyArray<M>
  /** What the strategy guard returned. */
  readonly strategy: StrategyRun<M>
  /** What the interceptors returned, when they ran (their result is then the final one). */
  readonly interceptors?: InterceptorRun<M> | undefined
  /** The host's counter (its id is the tokenizer profile). */
  readonly countTokens: CountTokens
  /** The fitting options used (format, overhead, cache, `protectCurrentRequest`). */
  readonly options?: FitOptions<F> | undefined
  /** Declared blocks that never became messages. */
  readonly omitted?: ReadonlyArray<OmittedBlock> | undefined
  /** When the generation started, if you record it. */
  readonly startedAt?: number | undefined
}

type Block = typeof AuditBlock.Type
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface Ordered {
  readonly block: Omit<Block, "position">
  readonly anchor: number
  readonly rank: number
  readonly seq: number
}

const important = (b: Omit<Block, "position">): boolean =>
  b.included && (b.reason === "protected" || b.reason === "pinned" || b.reason === "summary")

/** At most `max` blocks: sent before left out, protected/pinned/summary first, most recent first; real order kept. */
const capBlocks = (
  blocks: ReadonlyArray<Block>,
  max: number
): { readonly blocks: ReadonlyArray<Block>; readonly omitted: PromptContextAudit["blocksOmitted"] } => {
  if (blocks.length <= max) return { blocks, omitted: { count: 0, included: 0, excluded: 0, tokens: 0 } }
  const out = capByTier(blocks, max, (b) => important(b) ? 0 : b.included ? 1 : 2)
  const keep = new Set(out)
  let included = 0
  let excluded = 0
  let tokens = 0
  for (const b of blocks) {
    if (!keep.has(b)) {
      if (b.included) included++
      else excluded++
      tokens += b.tokens
    }
  }
  return { blocks: out, omitted: { count: included + excluded, included, excluded, tokens } }
}

const nonNegative = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0

/**
 * Creates the audit of a generation's prompt, `pending`, before the network call — from what the strategy guard
 * (`runStrategy`) and the interceptors (`runInterceptors`) returned. Pure: the generation id and the time are
 * inputs; nothing is read from a clock or a random source. Given a `format` in `options`, the messages are the
 * caller's own type, read through it.
 *
 * Every block is listed in real order: sent messages in the order sent (compressed copies, the strategy's notes,
 * the interceptors' additions where they are), left-out messages where they were, declared `omitted` blocks where
 * they would have been; each with its tokens and a stable reason (see {@link AuditBlock}). The tokenizer profile is
 * the counter's id; when its counts are approximate, the diagnostic `tokenizer "<profile>" is approximate` is
 * added. At most {@link MAX_AUDIT_ENTRIES} blocks and diagnostics are kept (see {@link PromptContextAudit}).
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import { formats, type Message } from "@ctxkit/core"
 * import { runInterceptors, runStrategy, startAudit } from "@ctxkit/engine"
 * import { strategies } from "@ctxkit/fit"
 * import * as Effect from "effect/Effect"
 *
 * const messages: ReadonlyArray<Message> = [
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "An old question. ".repeat(40) },
 *   { role: "user", content: "Now?" }
 * ]
 * const options = { format: formats.canonical }
 * const audit = Effect.runSync(Effect.gen(function*() {
 *   const strategy = yield* runStrategy(strategies.truncate, messages, approximateCounter, 64, options)
 *   const interceptors = yield* runInterceptors(strategy.result, [], approximateCounter, 64, options)
 *   return startAudit({
 *     generationId: "gen-1", provider: "openai", model: "gpt-4.1-mini", contextLimit: 128, reservedForReply: 64,
 *     messages, strategy, interceptors, countTokens: approximateCounter, options
 *   })
 * }))
 * audit.status // "pending"
 * audit.blocks.map((b) => b.reason) // ["protected", "context-shift", "protected"]
 * audit.diagnostics.at(-1)?.message // "tokenizer \"approximate-chars-v1\" is approximate"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const startAudit: {
  <M>(start: AuditStart<M>): PromptContextAudit
  <M extends FormatInput<F>, F>(
    start: AuditStart<M, F> & { readonly options: FitOptions<F> & { readonly format: MessageFormat<F> } }
  ): PromptContextAudit
} = <M>(start: AuditStart<M>): PromptContextAudit => {
  const input = Array.isArray(start.messages) ? start.messages : []
  const options: FitOptions<M> | undefined = isObject(start.options) ? start.options : undefined
  const format = formatOf(options)
  const final = start.interceptors?.result ?? start.strategy.result
  const costing = costingOf(start.countTokens, options)
  const sent = costs(final.kept, costing)
  const { slots } = keptSlots(final)
  const protectedAt = protectedPositions(input, format, options?.protectCurrentRequest)
  const { groupOf } = toolGroups(input, format)
  const lockedGroups = new Set<number>()
  for (let i = 0; i < input.length; i++) if (protectedAt[i] === 1) lockedGroups.add(groupOf[i] as number)
  const copies = new Set(final.truncated.map((t) => t.message))
  const addedBy = new Map((start.interceptors?.added ?? []).map((a) => [a.message, a.interceptor]))
  const removedBy = new Map((start.interceptors?.removed ?? []).map((r) => [r.index, r.interceptor]))

  const describe = (m: M): Pick<Mutable<Block>, "role" | "source" | "id"> => {
    const source = format.source(m)
    const id = format.id(m)
    return {
      role: format.role(m),
      ...(source === undefined ? {} : { source }),
      ...(id === undefined ? {} : { id })
    }
  }
  const sentReason = (index: number): Block["reason"] => {
    const m = input[index] as M
    if (format.isPinned(m)) return "pinned"
    if (protectedAt[index] === 1 || lockedGroups.has(groupOf[index] as number)) return "protected"
    return format.isSummary(m) ? "summary" : "fits"
  }

  const ordered: Array<Ordered> = []
  const nextSlot = nextInputSlots(slots, input.length)
  final.kept.forEach((m, p) => {
    const slot = slots[p] as number
    const tokens = sent.costs[p] as number
    if (slot >= 0) {
      ordered.push({
        block: {
          index: slot,
          origin: copies.has(m) ? "compressed" : "input",
          ...describe(input[slot] as M),
          tokens,
          included: true,
          reason: sentReason(slot)
        },
        anchor: slot,
        rank: 1,
        seq: p
      })
      return
    }
    const by = addedBy.get(m)
    const plugin = by !== undefined
    ordered.push({
      block: {
        origin: plugin ? "plugin" : "inserted",
        ...describe(m),
        ...(plugin ? { source: "plugin", interceptor: by } : {}),
        tokens,
        included: true,
        reason: plugin ? "interceptor" : format.isSummary(m) ? "summary" : "fits"
      },
      anchor: nextSlot[p + 1] as number,
      rank: 0,
      seq: p
    })
  })
  for (const e of final.excluded) {
    const interceptor = e.reason === "interceptor" ? removedBy.get(e.index) : undefined
    ordered.push({
      block: {
        index: e.index,
        origin: "input",
        ...describe(e.message),
        // The host prices what it excludes; a hand-made result may not have.
        tokens: e.tokens ?? costs([e.message], costing).total,
        included: false,
        reason: e.reason,
        ...(interceptor === undefined ? {} : { interceptor })
      },
      anchor: e.index,
      rank: 1,
      seq: 0
    })
  }
  const dropped: ReadonlyArray<DroppedBlock<M>> = [...start.strategy.dropped, ...(start.interceptors?.dropped ?? [])]
  const droppedCosts = costs(dropped.map((d) => d.message), costing).costs
  dropped.forEach((d, n) => {
    ordered.push({
      block: {
        origin: d.origin,
        ...describe(d.message),
        ...(d.origin === "plugin" ? { source: "plugin" } : {}),
        tokens: droppedCosts[n] as number,
        included: false,
        reason: d.reason,
        ...(d.origin === "plugin" && d.addedBy !== undefined
          ? { interceptor: d.addedBy }
          : d.interceptor === undefined
          ? {}
          : { interceptor: d.interceptor })
      },
      anchor: d.before,
      rank: 0,
      seq: final.kept.length + n
    })
  })
  ;(start.omitted ?? []).forEach((o, n) => {
    ordered.push({
      block: {
        origin: "omitted",
        label: String(o.label),
        ...(typeof o.source === "string" ? { source: o.source } : {}),
        tokens: nonNegative(o.tokens),
        included: false,
        reason: o.reason === "disabled" ? "disabled" : "empty"
      },
      anchor: Math.min(input.length, nonNegative(o.before)),
      rank: 0,
      seq: -1 - (start.omitted?.length ?? 0) + n
    })
  })
  ordered.sort((a, b) => a.anchor - b.anchor || a.rank - b.rank || a.seq - b.seq)
  const capped = capBlocks(ordered.map((o, position) => ({ position, ...o.block })), MAX_AUDIT_ENTRIES)

  const approximate = sent.approximate || costing.counter.approximate === true
  const diagnostics: Array<AuditDiagnostic> = [
    ...start.strategy.diagnostics.map((d) => ({ stage: "strategy" as const, tag: d._tag, message: d.message })),
    ...final.diagnostics.map((d) => ({ stage: "fit" as const, tag: d._tag, message: d.message })),
    ...(start.interceptors?.diagnostics ?? []).map((d) => ({
      stage: "interceptor" as const,
      tag: d._tag,
      message: d.message
    })),
    ...(approximate ? [new TokenizerApproximate({ profile: sent.counter })] : []).map((d) => ({
      stage: "tokenizer" as const,
      tag: d._tag,
      message: d.message
    }))
  ]
  const reserve = nonNegative(start.reservedForReply)
  return new PromptContextAudit({
    generationId: String(start.generationId),
    provider: String(start.provider),
    model: String(start.model),
    status: "pending",
    strategy: {
      requested: start.strategy.requested,
      ran: start.strategy.ran,
      fallback: start.strategy.fallback
    },
    contextLimit: typeof start.contextLimit === "number" ? start.contextLimit : Number.NaN,
    reservedForReply: reserve,
    budget: budgetUsable(final.budget) ? final.budget : 0,
    promptTokens: final.tokens,
    fits: final.fits,
    tokenizer: { profile: sent.counter, approximate },
    blocks: capped.blocks,
    blocksOmitted: capped.omitted,
    messages: final.kept,
    diagnostics: diagnostics.slice(0, MAX_AUDIT_ENTRIES),
    diagnosticsOmitted: Math.max(0, diagnostics.length - MAX_AUDIT_ENTRIES),
    ...(typeof start.startedAt === "number" ? { startedAt: start.startedAt } : {})
  })
}

/**
 * How a generation ended: `completed`, `cancelled`, or `failed` — with the provider error (normalized with
 * {@link normalizeProviderError}; only the code is kept) or a code of your own.
 *
 * @example
 * ```ts
 * import type { AuditOutcome } from "@ctxkit/engine/PromptContextAudit"
 *
 * const outcome: AuditOutcome = { status: "failed", error: { status: 429 } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type AuditOutcome =
  | { readonly status: "completed" }
  | { readonly status: "cancelled" }
  | {
    readonly status: "failed"
    /** The error the provider call failed with (read for its code only). */
    readonly error?: unknown
    /** A code to record instead of normalizing `error`. */
    readonly errorCode?: ProviderErrorCode | undefined
  }

/**
 * Finalizes a pending audit with its terminal status (and, for `failed`, the normalized provider error code —
 * never a response body). An audit that is already terminal is returned as it is: a terminal status is final.
 * Pure: the time is an input.
 *
 * @example
 * ```ts
 * import { finalizeAudit, type PromptContextAudit } from "@ctxkit/engine"
 *
 * declare const pending: PromptContextAudit
 * const failed = finalizeAudit(pending, { status: "failed", error: { status: 429, body: "…" } }, 1_700_000_000_000)
 * failed.status // "failed"
 * failed.errorCode // "rate_limited"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const finalizeAudit = (
  audit: PromptContextAudit,
  outcome: AuditOutcome,
  finishedAt?: number
): PromptContextAudit => {
  if (audit.status !== "pending") return audit
  const status = outcome.status === "completed" || outcome.status === "cancelled" ? outcome.status : "failed"
  const errorCode = outcome.status === "failed"
    ? outcome.errorCode !== undefined && Schema.is(ProviderErrorCode)(outcome.errorCode)
      ? outcome.errorCode
      : normalizeProviderError(outcome.error)
    : undefined
  return new PromptContextAudit({
    ...audit,
    status,
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(typeof finishedAt === "number" ? { finishedAt } : {})
  })
}

const BY_STATUS: ReadonlyArray<readonly [number, ProviderErrorCode]> = [
  [400, "bad_request"],
  [401, "authentication"],
  [402, "quota_exceeded"],
  [403, "permission_denied"],
  [404, "not_found"],
  [408, "timeout"],
  [413, "context_length_exceeded"],
  [422, "bad_request"],
  [429, "rate_limited"],
  [499, "cancelled"],
  [504, "timeout"],
  [529, "overloaded"]
]

const BY_NAME: ReadonlyArray<readonly [string, ProviderErrorCode]> = [
  // ctxkit and effect/ai error tags
  ["tokenbudgetexceeded", "token_budget_exceeded"],
  ["token_budget_exceeded", "token_budget_exceeded"],
  ["ratelimiterror", "rate_limited"],
  ["quotaexhaustederror", "quota_exceeded"],
  ["authenticationerror", "authentication"],
  ["contentpolicyerror", "content_policy"],
  ["invalidrequesterror", "bad_request"],
  ["internalprovidererror", "server_error"],
  ["invalidresponseerror", "invalid_response"],
  ["invalidoutputerror", "invalid_response"],
  ["networkerror", "network"],
  ["timeouterror", "timeout"],
  ["aborterror", "cancelled"],
  // provider error codes and types (OpenAI, Anthropic and compatible servers)
  ["context_length_exceeded", "context_length_exceeded"],
  ["string_above_max_length", "context_length_exceeded"],
  ["rate_limit_exceeded", "rate_limited"],
  ["rate_limit_error", "rate_limited"],
  ["insufficient_quota", "quota_exceeded"],
  ["billing_error", "quota_exceeded"],
  ["invalid_api_key", "authentication"],
  ["authentication_error", "authentication"],
  ["permission_error", "permission_denied"],
  ["not_found_error", "not_found"],
  ["model_not_found", "not_found"],
  ["content_filter", "content_policy"],
  ["invalid_request_error", "bad_request"],
  ["overloaded_error", "overloaded"],
  ["api_error", "server_error"],
  ["server_error", "server_error"],
  // transport
  ["etimedout", "timeout"],
  ["und_err_connect_timeout", "timeout"],
  ["und_err_headers_timeout", "timeout"],
  ["und_err_body_timeout", "timeout"],
  ["econnrefused", "network"],
  ["econnreset", "network"],
  ["enotfound", "network"],
  ["eai_again", "network"],
  ["epipe", "network"],
  ["und_err_socket", "network"]
]

const byStatus = (status: unknown): ProviderErrorCode | undefined => {
  if (typeof status !== "number" || !Number.isInteger(status)) return undefined
  const known = BY_STATUS.find(([s]) => s === status)
  if (known !== undefined) return known[1]
  return status >= 500 && status < 600 ? "server_error" : undefined
}

const byName = (name: unknown): ProviderErrorCode | undefined => {
  if (typeof name !== "string") return undefined
  const key = name.toLowerCase()
  return BY_NAME.find(([n]) => n === key)?.[1]
}

const normalize = (error: unknown, depth: number): ProviderErrorCode | undefined => {
  if (depth > 4) return undefined
  if (typeof error === "number") return byStatus(error)
  if (typeof error === "string") return byName(error)
  if (!isObject(error)) return undefined
  const body = isObject(error["error"]) ? error["error"] : undefined
  const response = isObject(error["response"]) ? error["response"] : undefined
  return byName(error["_tag"] === "AiError" && isObject(error["reason"]) ? error["reason"]["_tag"] : undefined) ??
    byName(error["code"]) ?? byName(body?.["code"]) ?? byName(body?.["type"]) ?? byName(error["type"]) ??
    byName(error["_tag"]) ?? byName(error["name"]) ??
    byStatus(error["status"]) ?? byStatus(error["statusCode"]) ?? byStatus(response?.["status"]) ??
    normalize(error["cause"], depth + 1)
}

/**
 * A provider failure as a stable {@link ProviderErrorCode}: read from an `effect/ai` `AiError`'s reason, an error's
 * `_tag`, `name` or `code` (`ECONNRESET`, `context_length_exceeded`, …), a provider error body's `error.code` /
 * `error.type`, or an HTTP status (`status`, `statusCode`, `response.status`; 429 → `rate_limited`, 5xx →
 * `server_error`), then its `cause`; `unknown` otherwise. Only codes are read: no message or body text is kept.
 *
 * @example
 * ```ts
 * import { normalizeProviderError } from "@ctxkit/engine/PromptContextAudit"
 *
 * normalizeProviderError({ status: 400, error: { code: "context_length_exceeded", message: "…" } }) // "context_length_exceeded"
 * normalizeProviderError(Object.assign(new Error("The user aborted a request."), { name: "AbortError" })) // "cancelled"
 * normalizeProviderError({ statusCode: 503 }) // "server_error"
 * normalizeProviderError("weird") // "unknown"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const normalizeProviderError = (error: unknown): ProviderErrorCode => normalize(error, 0) ?? "unknown"
