/**
 * What every fitting function and strategy takes besides the messages and the budget: how to count, how to
 * read the wire format, what to protect, in which order to remove, and whether to compress before removing.
 *
 * @since 0.1.0
 */
import type { CostCache, Counter } from "@ctxkit/budget"
import type { MessageFormat, Role } from "@ctxkit/core"

/**
 * How to count tokens: `Counter` from `@ctxkit/budget` — a `TokenCounter` (`approximateCounter`, an exact
 * counter), a `MessageCounter` that prices whole messages with their framing (`o200kChatCounter`), or a plain
 * `(text) => number`. Either way a counter that throws or returns NaN never crashes fitting: the text is
 * counted approximately and a `CounterFailed` diagnostic says so.
 *
 * @example
 * ```ts
 * import { approximateCounter } from "@ctxkit/budget"
 * import type { CountTokens } from "@ctxkit/fit"
 *
 * const exactish: CountTokens = approximateCounter
 * const words: CountTokens = (text) => text.split(/\s+/).filter(Boolean).length
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type CountTokens = Counter

/**
 * Opt-in compression: an unprotected message whose text costs more than `threshold` tokens keeps its head and
 * its tail, joined by a visible marker (`[… N characters omitted to fit the context window …]`), before any
 * message is dropped outright. Tool results are rewritten through the format's `withResultText` (call ids and
 * every other part untouched), other messages through `withText`; messages that issue tool calls, summaries and
 * reasoning items are never compressed, and a surrogate pair is never split.
 *
 * @example
 * ```ts
 * import type { CompressOptions } from "@ctxkit/fit/FitOptions"
 *
 * const compress: CompressOptions = { threshold: 2_000, keep: 500 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface CompressOptions {
  /** Messages whose text costs more than this many tokens are compressed. Default 1,000. */
  readonly threshold?: number | undefined
  /** Tokens of text a compressed message keeps (head and tail together), below `threshold`. Default 400. */
  readonly keep?: number | undefined
}

/**
 * One removable group, as `removalPriority` sees it: its messages (ascending input indices), and what it costs.
 *
 * @example
 * ```ts
 * import type { RemovalCandidate } from "@ctxkit/fit"
 *
 * // Drop tool traffic before conversation turns (lower priority is removed first).
 * const priority = (group: RemovalCandidate<{ readonly role: string }>) =>
 *   group.messages.some((m) => m.role === "tool") ? 0 : 1
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RemovalCandidate<M> {
  /** Input indices of the group's messages, ascending; the first is the group's age. */
  readonly indices: ReadonlyArray<number>
  /** The group's messages, in input order. */
  readonly messages: ReadonlyArray<M>
  /** What the group costs, in tokens (overhead included). */
  readonly tokens: number
}

/**
 * Scores documents against a query: one finite score ≥ 0 per document, higher meaning more relevant, on any
 * scale (scores are divided by the highest one). `bm25Scores` is the default; an engine can pass an embedding
 * scorer here (computed beforehand: fitting is synchronous and pure).
 *
 * @example
 * ```ts
 * import { bm25Scores, type RelevanceScorer } from "@ctxkit/fit"
 *
 * const scorer: RelevanceScorer = (query, documents) => bm25Scores(query, documents)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type RelevanceScorer = (query: string, documents: ReadonlyArray<string>) => ReadonlyArray<number>

/**
 * A role constraint of `startOn` / `endOn`: a role, or several. LangChain's message type names are accepted too:
 * `"human"` is `"user"` and `"ai"` is `"assistant"`.
 *
 * @example
 * ```ts
 * import type { RoleFilter } from "@ctxkit/fit/FitOptions"
 *
 * const startOn: RoleFilter = "human"
 * const endOn: RoleFilter = ["user", "tool"]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type RoleFilter = Role | "human" | "ai" | ReadonlyArray<Role | "human" | "ai">

/**
 * Options of `shiftContext`, `fitOrFail` and every strategy's `fit`. All are optional.
 *
 * LangChain's `trimMessages` options are here under their own names: `strategy` (`"last"` keeps the newest
 * messages, `"first"` the oldest), `allowPartial` with `textSplitter`, `startOn` and `endOn`. Unlike
 * `trimMessages`, protection still holds with each of them (the system prompt, pinned messages, the current
 * request), and tool calls stay with their results.
 *
 * @example
 * ```ts
 * import { makeCostCache } from "@ctxkit/budget"
 * import { type Message, formats } from "@ctxkit/core"
 * import type { FitOptions } from "@ctxkit/fit"
 *
 * const options: FitOptions<Message> = {
 *   format: formats.canonical,
 *   perMessageOverhead: 4,
 *   cache: makeCostCache(),
 *   compress: { threshold: 2_000 }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FitOptions<M> {
  /** The wire format of the messages. Default: `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** Tokens added to every message for its framing. Default 4 (`DEFAULT_PER_MESSAGE_OVERHEAD`). */
  readonly perMessageOverhead?: number | undefined
  /**
   * Per-message counts by identity, shared across calls, so that re-fitting a growing conversation counts only
   * its new messages (`makeCostCache()` from `@ctxkit/budget`). Without one, each call counts every message once.
   */
  readonly cache?: CostCache | undefined
  /** Protect the current request (the last user message that is not a summary). Default true. */
  readonly protectCurrentRequest?: boolean | undefined
  /**
   * Reorders removal: groups with a lower priority are removed first; equal priorities are removed oldest first.
   * Default: every group has the same priority (oldest first). `vector-recall` uses it for the history only.
   */
  readonly removalPriority?: ((group: RemovalCandidate<M>) => number) | undefined
  /** Compress large blocks before dropping anything (`true` for the defaults). Default: off. */
  readonly compress?: boolean | CompressOptions | undefined
  /** `vector-recall`: scores memory and lorebook blocks against the current request. Default: BM25. */
  readonly relevance?: RelevanceScorer | undefined
  /**
   * LangChain's `strategy`: `"last"` (default) keeps the newest messages and removes the oldest first; `"first"`
   * keeps the oldest and removes the newest first (the protected messages stay either way; turn
   * `protectCurrentRequest` off to let the current request go too).
   */
  readonly strategy?: "last" | "first" | undefined
  /**
   * LangChain's `allowPartial`: the message at the cut (the newest that does not fit whole; the oldest with
   * `strategy: "first"`) keeps the newest pieces of its text that fit (its first pieces with `"first"`) instead
   * of going whole. It goes to `truncated`. Only a plain text message is cut: never one that issues or answers a
   * tool call, never a summary; a cut never leaves half of a surrogate pair. Default false.
   */
  readonly allowPartial?: boolean | undefined
  /**
   * LangChain's `textSplitter`, with `allowPartial`: splits a text into the pieces a partial message keeps whole
   * (joined, they should be the text). Default: after every newline, each line keeping its newline.
   */
  readonly textSplitter?: ((text: string) => ReadonlyArray<string>) | undefined
  /**
   * LangChain's `startOn`: the first kept message after the system prompt must have one of these roles; kept
   * groups before it are removed, oldest first (`startOn: "user"`, for providers that want a user message
   * first). A protected message stops it: it is kept whatever its role.
   */
  readonly startOn?: RoleFilter | undefined
  /**
   * LangChain's `endOn`: what is sent ends with a message of one of these roles; every unprotected group with a
   * message after the last such message is removed before fitting (`endOn: ["user", "tool"]`).
   */
  readonly endOn?: RoleFilter | undefined
  /**
   * Price the excluded messages too, so that every `excluded` entry has its `tokens`. Default false: fitting
   * prices only the messages it needs to decide (what it keeps, and the first group that does not fit), which
   * saves most of the counting of a long conversation with a real tokenizer.
   */
  readonly countExcluded?: boolean | undefined
}
