/**
 * The audit of a request that keeps every message of its input, made without the general audit's full pass
 * (tool groups, per-block descriptions of every message): what `startAudit` returns for that case, built from
 * the cached costs and the per-message flags, touching in detail only the at most 500 blocks it keeps. Used by
 * the engine's steady state, where a long session fits its window and nothing is excluded.
 */
import type { ConversationCost, CostCache, TokenCounter } from "@ctxkit/budget"
import { conversationCost } from "@ctxkit/budget"
import { type MessageFormat, toolGroups } from "@ctxkit/core"
import { PromptContextAudit } from "./hostImports.ts"
import type { PositionalMemo } from "./positional.ts"

const MAX_BLOCKS = 500
const PINNED = 1
const PROTECTED = 2
const SUMMARY = 4
const LINKED = 8
const USER = 16

export interface WholeRequestInput<M> {
  readonly messages: ReadonlyArray<M>
  /** The costs of `messages`, when already computed with the same counter, format and cache. */
  readonly cost?: ConversationCost | undefined
  readonly format: MessageFormat<M>
  readonly counter: TokenCounter
  readonly cache: CostCache
  /** The session's per-message flags, remembered across requests. */
  readonly flags: PositionalMemo
  readonly generationId: string
  readonly provider: string
  readonly model: string
  readonly strategy: string
  readonly contextLimit: number
  readonly reservedForReply: number
  readonly budget: number
  readonly startedAt: number
}

const flagsOf = <M>(message: M, format: MessageFormat<M>): number =>
  (format.isPinned(message) ? PINNED : 0) |
  (format.isProtected(message) ? PROTECTED : 0) |
  (format.isSummary(message) ? SUMMARY : 0) |
  (format.links(message).length > 0 ? LINKED : 0) |
  (format.role(message) === "user" ? USER : 0)

/**
 * The audit. A protected or pinned message in a tool group protects its whole group (as fitting does), so when
 * some protected message has links the groups are read (`toolGroups`, one linear pass): the members of those
 * groups are `protected` too, as in the general audit.
 */
export const wholeRequestAudit = <M>(input: WholeRequestInput<M>): PromptContextAudit => {
  const { format, messages } = input
  const n = messages.length
  const flags = input.flags.values(messages, (m) => flagsOf(m as M, format))
  let current = -1
  for (let i = n - 1; i >= 0; i--) {
    if (((flags[i] as number) & USER) !== 0 && ((flags[i] as number) & SUMMARY) === 0) {
      current = i
      break
    }
  }
  /** The reason from the message alone. */
  const ownReason = (i: number): "pinned" | "protected" | "summary" | "fits" => {
    const f = flags[i] as number
    if ((f & PINNED) !== 0) return "pinned"
    if ((f & PROTECTED) !== 0 || i === current) return "protected"
    return (f & SUMMARY) !== 0 ? "summary" : "fits"
  }
  const guards = (reason: string): boolean => reason === "pinned" || reason === "protected"
  let grouped = false
  for (let i = 0; i < n && !grouped; i++) grouped = guards(ownReason(i)) && ((flags[i] as number) & LINKED) !== 0
  let inLockedGroup: ((i: number) => boolean) | undefined
  if (grouped) {
    const { groupOf } = toolGroups(messages, format)
    const locked = new Set<number>()
    for (let i = 0; i < n; i++) if (guards(ownReason(i))) locked.add(groupOf[i] as number)
    inLockedGroup = (i) => locked.has(groupOf[i] as number)
  }
  const reasonOf = (i: number): "pinned" | "protected" | "summary" | "fits" => {
    const reason = ownReason(i)
    return guards(reason) || inLockedGroup?.(i) !== true ? reason : "protected"
  }
  const important: Array<number> = []
  for (let i = 0; i < n; i++) if (reasonOf(i) !== "fits") important.push(i)
  const cost = input.cost ?? conversationCost(messages, { counter: input.counter, format, cache: input.cache })
  // At most 500 blocks: protected, pinned and summary blocks first, then the most recent; real order kept.
  let chosen: Array<number>
  if (n <= MAX_BLOCKS) chosen = Array.from({ length: n }, (_, i) => i)
  else {
    const picked = new Set<number>()
    for (let k = important.length - 1; k >= 0 && picked.size < MAX_BLOCKS; k--) picked.add(important[k] as number)
    for (let i = n - 1; i >= 0 && picked.size < MAX_BLOCKS; i--) if (reasonOf(i) === "fits") picked.add(i)
    chosen = [...picked].sort((a, b) => a - b)
  }
  let chosenTokens = 0
  const blocks = chosen.map((i) => {
    const m = messages[i] as M
    const source = format.source(m)
    const id = format.id(m)
    const tokens = cost.costs[i] as number
    chosenTokens += tokens
    return {
      position: i,
      index: i,
      origin: "input" as const,
      role: format.role(m),
      ...(source === undefined ? {} : { source }),
      ...(id === undefined ? {} : { id }),
      tokens,
      included: true,
      reason: reasonOf(i)
    }
  })
  const omitted = n - chosen.length
  const approximate = cost.approximate || input.counter.approximate
  return new PromptContextAudit({
    generationId: input.generationId,
    provider: input.provider,
    model: input.model,
    status: "pending",
    strategy: { requested: input.strategy, ran: input.strategy, fallback: false },
    contextLimit: input.contextLimit,
    reservedForReply: input.reservedForReply,
    budget: input.budget,
    promptTokens: cost.total,
    fits: true,
    tokenizer: { profile: cost.counter, approximate },
    blocks,
    blocksOmitted: { count: omitted, included: omitted, excluded: 0, tokens: cost.total - chosenTokens },
    messages,
    diagnostics: approximate
      ? [{ stage: "tokenizer", tag: "TokenizerApproximate", message: `tokenizer "${cost.counter}" is approximate` }]
      : [],
    diagnosticsOmitted: 0,
    startedAt: input.startedAt
  })
}
