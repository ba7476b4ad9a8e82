/**
 * Compaction presets: the settings of Alisio's compaction design and of the local-harness overflow guide as plain
 * values, for a host (or `@ctxkit/engine`) to pass to
 * `compact`, `ensureWithinBudget`, `capToolResult` and the triggers.
 *
 * @since 0.1.0
 */
import { type CharCapOptions, ingestCharCap } from "./CapToolResult.ts"
import { type ContextPolicy, defaultContextPolicy } from "./ContextPolicy.ts"
import type { PartialSummaries } from "./SummaryReplyPolicy.ts"

/**
 * One preset's compaction settings. Fields the design a preset follows does not fix are absent, and the host's own
 * defaults apply.
 *
 * @category constructors
 * @since 0.1.0
 */
export interface CompactionPreset {
  /** The preset's name. */
  readonly name: string
  /** Whether automatic compaction (and the last chance) may run. */
  readonly auto: boolean
  /** Fraction of the context (window or `available`) at which automatic compaction fires. */
  readonly threshold: number
  /** Recent turns kept verbatim (`planCompaction`'s `keepTurns`). */
  readonly keepTurns: number
  /** Messages a cut inside one long turn keeps after it (`planCompaction`'s `minKeepMessages`). */
  readonly minKeepMessages: number
  /** What to do with a summary cut by its output budget. */
  readonly partialSummaries: PartialSummaries
  /** Output budget of the summarizer call, in tokens; absent: the host decides. */
  readonly maxOutputTokens?: number | undefined
  /** The character budget and post-compaction hard limit; absent: no character limit. */
  readonly maxContextChars?: number | undefined
  /** The cap applied to each tool result when it is produced, in characters; absent: see `policy`. */
  readonly ingestCap?: CharCapOptions | undefined
  /** The three-step policy (cap, clear, compact) measured against `available`; absent: not used. */
  readonly policy?: ContextPolicy | undefined
  /** The window assumed when none is configured or discovered, in tokens; absent: the host's fallback. */
  readonly assumedContextWindow?: number | undefined
}

/**
 * The presets of the two designs ctxkit's compaction follows.
 *
 * `alisio` — Alisio's compaction design (`compaction.en.txt`, its "Configuration" table and body):
 * - `auto: true`, `threshold: 0.85`, `keepTurns: 2`, `maxOutputTokens: 16_000`: the configuration defaults
 *   (`{ "compaction": { "auto": true, "threshold": 0.85, "keepTurns": 2, "maxOutputTokens": 16000 } }`);
 * - `maxContextChars: 800_000`: the fallback character budget and hard limit (≈ 200,000 tokens);
 * - `partialSummaries: "keep"`: a usable cut summary is kept and marked partial;
 * - `minKeepMessages: 4`: the reference implementation's mid-turn fallback;
 * - `ingestCap`: {@link ingestCharCap} (results over 48,000 JSON characters keep their first 40,000).
 *
 * `tutorial` — the policy of the local-harness overflow guide (`overflow-detection-tutorial.es.txt`, "Los tres
 * escalones" and "Compactar sin fiarse de una entrada recortada"):
 * - `policy`: {@link defaultContextPolicy} (cap at 25,000 tokens and 20% of `available`, clear past 60% keeping the
 *   6 most recent results, compact past 85%); `threshold: 0.85` is its `compactAt`;
 * - `partialSummaries: "reject"`: a summary cut by `max_tokens` (or refused) leaves the conversation as it was;
 * - `assumedContextWindow: 4_096`: the window assumed, with a warning, when none is set ("erring low only brings
 *   clearing forward");
 * - `auto: true`: the harness checks before every model call; `keepTurns: 2`, `minKeepMessages: 4`: ctxkit's
 *   defaults (the guide says only that the summary replaces the conversation);
 * - no `maxOutputTokens`: its summary request uses the loop's own `max_tokens`, the reply reserve
 *   (`min(maxTokens, 25% of the window)`, 1,024 at 4,096), so pass `reserve(window, maxTokens)` from
 *   `@ctxkit/budget`; no `maxContextChars`: it has no character hard limit.
 * The truncated-request guard (`OVERFLOW_MIN_GROWTH_COMPACT`, 50 tokens) is the guide's too; `compact` always
 * applies it when given the last good request sample.
 *
 * @example
 * ```ts
 * import { compactionPresets } from "@ctxkit/compaction"
 *
 * compactionPresets.alisio.maxContextChars // 800000
 * compactionPresets.tutorial.partialSummaries // "reject"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const compactionPresets: {
  readonly alisio: CompactionPreset
  readonly tutorial: CompactionPreset
} = {
  alisio: {
    name: "alisio",
    auto: true,
    threshold: 0.85,
    keepTurns: 2,
    minKeepMessages: 4,
    partialSummaries: "keep",
    maxOutputTokens: 16_000,
    maxContextChars: 800_000,
    ingestCap: ingestCharCap
  },
  tutorial: {
    name: "tutorial",
    auto: true,
    threshold: defaultContextPolicy.compactAt,
    keepTurns: 2,
    minKeepMessages: 4,
    partialSummaries: "reject",
    policy: defaultContextPolicy,
    assumedContextWindow: 4_096
  }
}
