/**
 * `pruneMessages`: a pure policy step before fitting, under the AI SDK's option names — drop reasoning before
 * the last message, tool calls older than the last N messages, and empty messages — in any wire format. A call
 * goes with its results and approvals, so the pruned conversation stays valid.
 *
 * @since 0.1.0
 */
import { type FormatInput, formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { NotAConversation, OptionAdjusted } from "./Diagnostics.ts"

/**
 * Which tool calls to remove: `"all"`, those before the last message (`"before-last-message"`) or before the
 * last N messages (`"before-last-N-messages"`, e.g. `"before-last-2-messages"`); `"none"` keeps them.
 *
 * @example
 * ```ts
 * import { pruneMessages, type PruneScope } from "@ctxkit/fit"
 *
 * const scope: PruneScope = "before-last-3-messages"
 * pruneMessages([{ role: "user", content: "hi" }], { toolCalls: scope }).removed // []
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type PruneScope = "all" | "before-last-message" | `before-last-${number}-messages`

/**
 * Options of {@link pruneMessages}, named as the AI SDK's `pruneMessages` names them.
 *
 * @example
 * ```ts
 * import type { PruneOptions } from "@ctxkit/fit"
 *
 * const options: PruneOptions<unknown> = {
 *   reasoning: "before-last-message",
 *   toolCalls: [{ type: "before-last-2-messages", tools: ["read_file"] }],
 *   emptyMessages: "remove"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PruneOptions<M> {
  /** Remove the reasoning of assistant messages: all of it, all but the last message's, or none. Default `"none"`. */
  readonly reasoning?: "all" | "before-last-message" | "none" | undefined
  /**
   * Remove tool calls, each with its results and its approval request and response: by {@link PruneScope}, or
   * by a list of rules, each for some `tools` (by name) or all. A call mentioned in the last N messages is kept
   * everywhere. Default `"none"`.
   */
  readonly toolCalls?:
    | PruneScope
    | "none"
    | ReadonlyArray<{ readonly type: PruneScope; readonly tools?: ReadonlyArray<string> | undefined }>
    | undefined
  /**
   * Remove messages with no content: `"remove"` (default) removes them, `"keep"` keeps those that were empty
   * in the input. A message emptied by pruning is always removed: an empty tool or assistant shell is not
   * something every wire format can carry.
   */
  readonly emptyMessages?: "keep" | "remove" | undefined
  /** The wire format. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
}

/**
 * One thing {@link pruneMessages} removed; indices refer to the input. `tool-call` is a call with its results
 * and approvals (`indices`: every message that lost a part of it); `message` is a message removed whole.
 *
 * @example
 * ```ts
 * import type { Pruned } from "@ctxkit/fit"
 *
 * const describe = (p: Pruned) => p.kind === "tool-call" ? `${p.name} (${p.callId})` : `${p.kind} at ${p.index}`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Pruned =
  | { readonly kind: "reasoning"; readonly index: number }
  | {
    readonly kind: "tool-call"
    readonly callId: string
    readonly name: string
    readonly indices: ReadonlyArray<number>
  }
  | { readonly kind: "message"; readonly index: number }

/**
 * What {@link pruneMessages} returns: the pruned messages (the input array itself when nothing was removed;
 * untouched messages are the same objects), what it removed, and diagnostics for unusable options or input.
 *
 * @example
 * ```ts
 * import { pruneMessages, type PruneResult } from "@ctxkit/fit"
 *
 * const result: PruneResult<unknown> = pruneMessages([{ role: "user", content: "hi" }], {})
 * result.removed.length // 0
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PruneResult<M> {
  readonly messages: ReadonlyArray<M>
  readonly removed: ReadonlyArray<Pruned>
  readonly diagnostics: ReadonlyArray<OptionAdjusted | NotAConversation>
}

const Scope = Schema.Union([
  Schema.Literals(["all", "before-last-message"]),
  Schema.TemplateLiteral(["before-last-", Schema.Number, "-messages"])
])
const isReasoning = Schema.is(Schema.Literals(["all", "before-last-message", "none"]))
const isEmptyMessages = Schema.is(Schema.Literals(["keep", "remove"]))
const isToolCalls = Schema.is(Schema.Union([
  Scope,
  Schema.Literal("none"),
  Schema.Array(Schema.Struct({ type: Scope, tools: Schema.optional(Schema.Array(Schema.String)) }))
]))

/** One tool-call rule: remove the calls mentioned only before the last `last` messages (`Infinity`: all). */
interface Rule {
  readonly last: number
  readonly tools: ReadonlySet<string> | undefined
}

/** How many trailing messages a scope spares, or `undefined` for a count that is not a whole number. */
const sparedBy = (scope: PruneScope): number | undefined => {
  if (scope === "all") return 0
  if (scope === "before-last-message") return 1
  const n = Number(scope.slice("before-last-".length, -"-messages".length))
  return Number.isInteger(n) && n >= 0 ? n : undefined
}

const rulesOf = (toolCalls: NonNullable<PruneOptions<unknown>["toolCalls"]>): ReadonlyArray<Rule> | undefined => {
  if (toolCalls === "none") return []
  const list = Predicate.isString(toolCalls) ? [{ type: toolCalls, tools: undefined }] : toolCalls
  const rules: Array<Rule> = []
  for (const rule of list) {
    const last = sparedBy(rule.type)
    if (last === undefined) return undefined
    rules.push({ last, tools: rule.tools === undefined ? undefined : new Set(rule.tools) })
  }
  return rules
}

const prune = <M>(messages: ReadonlyArray<M>, options: PruneOptions<M>): PruneResult<M> => {
  const diagnostics: Array<OptionAdjusted | NotAConversation> = []
  if (!Array.isArray(messages)) {
    return { messages: [], removed: [], diagnostics: [new NotAConversation({ given: describeValue(messages) })] }
  }
  const opts: PruneOptions<M> = Predicate.isObject(options) ? options : {}
  // Each option falls back to its default (nothing removed) when unusable, and says so.
  const adjusted = (option: "reasoning" | "toolCalls" | "emptyMessages" | "format", given: unknown, used: string) =>
    diagnostics.push(new OptionAdjusted({ option, given: describeValue(given), used }))
  let reasoning = opts.reasoning ?? "none"
  if (!isReasoning(reasoning)) {
    adjusted("reasoning", reasoning, "\"none\"")
    reasoning = "none"
  }
  let emptyMessages = opts.emptyMessages ?? "remove"
  if (!isEmptyMessages(emptyMessages)) {
    adjusted("emptyMessages", emptyMessages, "\"remove\"")
    emptyMessages = "remove"
  }
  const toolCalls = opts.toolCalls ?? "none"
  let rules = isToolCalls(toolCalls) ? rulesOf(toolCalls) : undefined
  if (rules === undefined) {
    adjusted("toolCalls", toolCalls, "\"none\"")
    rules = []
  }
  let format = opts.format ?? (formats.auto as unknown as MessageFormat<M>)
  if (!Predicate.isObject(format) || !Predicate.isFunction(format.withoutToolParts)) {
    adjusted("format", format, "auto")
    format = formats.auto as unknown as MessageFormat<M>
  }

  const n = messages.length
  // A protected or pinned message is never changed or removed, nor is any call it mentions.
  const locked = messages.map((m) => format.isProtected(m) || format.isPinned(m))
  const work: Array<M | undefined> = [...messages]
  const removed: Array<Pruned> = []
  const gone = new Set<number>()

  // 1. Reasoning, in assistant messages (not the last message's under "before-last-message").
  if (reasoning !== "none") {
    for (let i = 0; i < n; i++) {
      const m = messages[i]!
      if (locked[i] || format.role(m) !== "assistant" || (reasoning === "before-last-message" && i === n - 1)) continue
      const next = format.withoutReasoning(m)
      if (next === m) continue
      removed.push({ kind: "reasoning", index: i })
      work[i] = next
      if (next === undefined) gone.add(i)
    }
  }

  // 2. Tool calls. Every message that mentions a call id: its call, its results, its approval request, and the
  // approval response (which names only the approval, hence the map).
  if (rules.length > 0) {
    const approvalCall = new Map<string, string>()
    const names = new Map<string, string>()
    for (const m of messages) {
      for (const a of format.approvals(m)) if (a.kind === "request") approvalCall.set(a.approvalId, a.callId)
      for (const c of format.toolCalls(m)) if (!names.has(c.id)) names.set(c.id, c.name)
    }
    const mentions = new Map<string, Array<number>>()
    const mention = (id: string, i: number) => {
      const at = mentions.get(id)
      if (at === undefined) mentions.set(id, [i])
      else if (at[at.length - 1] !== i) at.push(i)
    }
    messages.forEach((m, i) => {
      for (const c of format.toolCalls(m)) mention(c.id, i)
      for (const r of format.toolResults(m)) {
        mention(r.callId, i)
        if (!names.has(r.callId) && r.name !== undefined) names.set(r.callId, r.name)
      }
      for (const a of format.approvals(m)) {
        const callId = a.kind === "request" ? a.callId : approvalCall.get(a.approvalId)
        if (callId !== undefined) mention(callId, i)
      }
    })
    const removeCalls = new Set<string>()
    for (const [id, at] of mentions) {
      if (at.some((i) => locked[i])) continue
      const name = names.get(id) ?? ""
      // A call goes when some rule covers it: it is mentioned only before that rule's last messages.
      const covered = rules.some((rule) =>
        (rule.tools === undefined || rule.tools.has(name)) && at[at.length - 1]! < n - rule.last
      )
      if (covered) removeCalls.add(id)
    }
    if (removeCalls.size > 0) {
      const removeApprovals = new Set<string>()
      for (const [approvalId, callId] of approvalCall) if (removeCalls.has(callId)) removeApprovals.add(approvalId)
      for (const id of removeCalls) {
        removed.push({ kind: "tool-call", callId: id, name: names.get(id) ?? "", indices: mentions.get(id)! })
      }
      const touched = new Set<number>()
      for (const id of removeCalls) for (const i of mentions.get(id)!) touched.add(i)
      for (const i of [...touched].sort((a, b) => a - b)) {
        const current = work[i]
        if (current === undefined) continue
        const next = format.withoutToolParts(current, removeCalls, removeApprovals)
        work[i] = next
        if (next === undefined) gone.add(i)
      }
    }
  }

  // 3. Empty messages: emptied by pruning (always), or empty in the input (under "remove").
  for (let i = 0; i < n; i++) {
    const m = work[i]
    if (m === undefined || locked[i] || (emptyMessages === "keep" && m === messages[i])) continue
    if (isEmpty(format, m)) {
      work[i] = undefined
      gone.add(i)
    }
  }
  for (const i of [...gone].sort((a, b) => a - b)) removed.push({ kind: "message", index: i })

  if (removed.length === 0) return { messages, removed, diagnostics }
  const out: Array<M> = []
  for (const m of work) if (m !== undefined) out.push(m)
  return { messages: out, removed, diagnostics }
}

/** No text, reasoning, calls, results, approvals, attachments or other links. */
const isEmpty = <M>(format: MessageFormat<M>, m: M): boolean =>
  format.text(m) === "" && format.links(m).length === 0 && format.approvals(m).length === 0 &&
  format.attachments(m).length === 0

/**
 * Prunes a conversation by policy, under the AI SDK's `pruneMessages` option names, in any wire format:
 * `reasoning` removes the reasoning of assistant messages (all, or all but the last message's); `toolCalls`
 * removes tool calls — each with its results and its approval request and response, wherever they sit — that
 * are mentioned only before the last N messages (or all of them, or per tool); `emptyMessages` removes messages
 * left with nothing in them. Protected and pinned messages are never touched. Reports what it removed; returns
 * the input array itself when nothing was. Unusable options fall back to removing nothing, with an
 * `OptionAdjusted` diagnostic.
 *
 * Data-first or data-last.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { pruneMessages } from "@ctxkit/fit"
 *
 * const messages = [
 *   { role: "user", content: "weather in Paris?" },
 *   {
 *     role: "assistant",
 *     content: [
 *       { type: "reasoning", text: "I should call the weather tool." },
 *       { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Paris" } }
 *     ]
 *   },
 *   { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "weather", output: { type: "text", value: "18°C" } }] },
 *   { role: "assistant", content: [{ type: "text", text: "18°C in Paris." }] },
 *   { role: "user", content: "thanks" }
 * ] as const
 *
 * const { messages: pruned, removed } = pruneMessages(messages, {
 *   reasoning: "before-last-message",
 *   toolCalls: "before-last-2-messages",
 *   format: formats.aiSdk
 * })
 * pruned.length // 3: the call, its result and the emptied assistant message are gone
 * removed.map((r) => r.kind) // ["reasoning", "tool-call", "message", "message"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const pruneMessages: {
  <F>(
    options: PruneOptions<F> & { readonly format: MessageFormat<F> }
  ): <M extends FormatInput<F>>(messages: ReadonlyArray<M>) => PruneResult<M>
  (options?: Omit<PruneOptions<unknown>, "format">): <M>(messages: ReadonlyArray<M>) => PruneResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    options: PruneOptions<F> & { readonly format: MessageFormat<F> }
  ): PruneResult<M>
  <M>(messages: ReadonlyArray<M>, options?: Omit<PruneOptions<unknown>, "format">): PruneResult<M>
} = dual(
  (args: IArguments) => args.length >= 2 || Array.isArray(args[0]),
  <M>(messages: ReadonlyArray<M>, options?: PruneOptions<M>): PruneResult<M> => prune(messages, options ?? {})
)
