/**
 * `enginePresets`: complete settings for every step of the engine, named after where they come from.
 *
 * @since 0.1.0
 */
import { compactionPresets, defaultContextPolicy, ingestCharCap } from "@ctxkit/compaction"
import type { CharCapOptions } from "@ctxkit/compaction/CapToolResult"
import type { GovernMode, ToolKinds } from "@ctxkit/governor"

/**
 * The settings of every step. A preset is a complete one; `ContextEngine.layer({ preset, ...overrides })`
 * replaces the steps you name, field by field.
 *
 * @category models
 * @since 0.1.0
 */
export interface EngineSettings {
  /** The preset's name. */
  readonly name: string
  /** Step 1, each new tool result capped: by tokens (a share of `available`, at most `maxToolResultTokens`), by characters, or off. */
  readonly cap:
    | { readonly by: "tokens"; readonly maxToolResultTokens: number; readonly share: number }
    | { readonly by: "chars"; readonly chars: CharCapOptions }
    | false
  /** Step 2, the governor's projection (`off`, `shadow`, `on`). */
  readonly governor: {
    readonly mode: GovernMode
    readonly minAgeTurns?: number | undefined
    readonly epochMessages?: number | undefined
    readonly toolKinds?: ToolKinds | undefined
  }
  /** Step 3, old tool results cleared past `clearAt × available`, all at once; or off. */
  readonly clearing:
    | {
      readonly clearAt: number
      readonly keepToolResults: number
      readonly clearAtLeast?: number | undefined
      readonly excludeTools?: ReadonlyArray<string> | undefined
    }
    | false
  /** Steps 4–5, the trigger and the compaction. */
  readonly compaction: {
    /** Whether automatic compaction (and the last chance) may run. */
    readonly auto: boolean
    /** Fraction of `available` at which compaction fires. */
    readonly compactAt: number
    readonly keepTurns: number
    readonly minKeepMessages: number
    readonly partialSummaries: "keep" | "reject"
    readonly maxOutputTokens: number
    /** How long the summarizer may take, in milliseconds, before the compaction is skipped. */
    readonly timeoutMillis: number
  }
  /** Step 6, the post-compaction hard limit (tail reduction, then the last chance), in characters; or off. */
  readonly hardLimit: { readonly maxContextChars: number } | false
  /** Step 7, the fitting strategy's id (`truncate`, `summarize`, `vector-recall`, `manual`, or a registered one). */
  readonly strategy: string
  /** Step 8, the invariants block after a compaction; or off. */
  readonly invariants: { readonly maxChars: number; readonly maintainer?: string | undefined } | false
  /** The window assumed when none is configured, discovered or learned; absent: the char budget decides. */
  readonly assumedWindow?: number | undefined
}

const ONE_MINUTE = 60_000

const alisio: EngineSettings = {
  name: "alisio",
  cap: { by: "chars", chars: ingestCharCap },
  governor: { mode: "off" },
  clearing: false,
  compaction: {
    auto: compactionPresets.alisio.auto,
    compactAt: compactionPresets.alisio.threshold,
    keepTurns: compactionPresets.alisio.keepTurns,
    minKeepMessages: compactionPresets.alisio.minKeepMessages,
    partialSummaries: compactionPresets.alisio.partialSummaries,
    maxOutputTokens: compactionPresets.alisio.maxOutputTokens ?? 16_000,
    timeoutMillis: 5 * ONE_MINUTE
  },
  hardLimit: { maxContextChars: compactionPresets.alisio.maxContextChars ?? 800_000 },
  strategy: "truncate",
  invariants: false
}

const tutorial: EngineSettings = {
  name: "tutorial",
  cap: { by: "tokens", maxToolResultTokens: defaultContextPolicy.maxToolResultTokens, share: 0.2 },
  governor: { mode: "off" },
  clearing: { clearAt: defaultContextPolicy.clearAt, keepToolResults: defaultContextPolicy.keepToolResults },
  compaction: {
    auto: true,
    compactAt: defaultContextPolicy.compactAt,
    keepTurns: compactionPresets.tutorial.keepTurns,
    minKeepMessages: compactionPresets.tutorial.minKeepMessages,
    partialSummaries: "reject",
    maxOutputTokens: 16_000,
    timeoutMillis: 2 * ONE_MINUTE
  },
  hardLimit: false,
  strategy: "truncate",
  invariants: false,
  assumedWindow: compactionPresets.tutorial.assumedContextWindow ?? 4_096
}

const neotavern: EngineSettings = {
  name: "neotavern",
  cap: false,
  governor: { mode: "off" },
  clearing: false,
  compaction: {
    auto: false,
    compactAt: 0.85,
    keepTurns: 2,
    minKeepMessages: 4,
    partialSummaries: "keep",
    maxOutputTokens: 16_000,
    timeoutMillis: 2 * ONE_MINUTE
  },
  hardLimit: false,
  strategy: "truncate",
  invariants: false
}

const recommended: EngineSettings = {
  name: "recommended",
  cap: { by: "tokens", maxToolResultTokens: defaultContextPolicy.maxToolResultTokens, share: 0.2 },
  governor: { mode: "on" },
  clearing: { clearAt: defaultContextPolicy.clearAt, keepToolResults: defaultContextPolicy.keepToolResults },
  compaction: {
    auto: true,
    compactAt: defaultContextPolicy.compactAt,
    keepTurns: 2,
    minKeepMessages: 4,
    partialSummaries: "keep",
    maxOutputTokens: 16_000,
    timeoutMillis: 2 * ONE_MINUTE
  },
  hardLimit: { maxContextChars: 800_000 },
  strategy: "truncate",
  invariants: { maxChars: 4_000 }
}

/**
 * The engine's presets:
 * - `alisio` — Alisio's compaction defaults: results over 48,000 JSON characters cut to 40,000 at ingest,
 *   compaction at 85% keeping 2 turns, partial summaries kept, the 800,000-character hard limit with tail
 *   reduction and the last chance; no clearing, no governor, no invariants.
 * - `tutorial` — the three-step local-harness policy of `@ctxkit/compaction` (`defaultContextPolicy`): each result capped to 20% of `available` (at most
 *   25,000 tokens), old results cleared at 60% keeping the last 6, compaction at 85%, cut summaries rejected,
 *   a 4,096-token window assumed when none is known.
 * - `neotavern` — NeoTavern's fitting defaults: nothing rewritten, the conversation fitted with `truncate` and
 *   audited; no automatic compaction.
 * - `recommended` — what we would run: the `tutorial` cap and clearing, the governor `on`, compaction at 85%
 *   keeping partial summaries, the hard limit with the last chance, and the invariants block after compaction.
 *
 * @example
 * ```ts
 * import { enginePresets } from "@ctxkit/engine"
 *
 * enginePresets.recommended.governor.mode // "on"
 * enginePresets.tutorial.assumedWindow // 4096
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const enginePresets: {
  readonly alisio: EngineSettings
  readonly tutorial: EngineSettings
  readonly neotavern: EngineSettings
  readonly recommended: EngineSettings
} = { alisio, tutorial, neotavern, recommended }
