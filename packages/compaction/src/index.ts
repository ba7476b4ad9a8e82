/**
 * `@ctxkit/compaction`: the three steps that keep a conversation inside its window, cheapest first — cap each
 * tool result, clear old tool results, compact into a structured checkpoint — plus the plan that says where
 * to cut, the summarizer contract, the oversized-tail reduction, the last chance and the events. Pure functions
 * over any wire format; the summarizer is a function argument or the `Summarizer` service. Depends on
 * `@ctxkit/core`, `@ctxkit/budget`, `@ctxkit/overflow` and `effect`.
 *
 * The root exports what users call and read. The building blocks `compact` and `ensureWithinBudget` are made of
 * (guards, the retry ladder, plugin hook runners, sentences) stay importable from their modules, e.g.
 * `@ctxkit/compaction/Guards`, but are not part of the root surface.
 *
 * @since 0.1.0
 */

// Step 1 and 2: cap each tool result, clear old ones.
export { capToolResult, capToolResults, ingestCharCap } from "./CapToolResult.ts"
export { CLEARED_NOTE, clearOldToolResults } from "./ClearOldToolResults.ts"
// The decision before each model call.
export { ContextAction, type ContextPolicy, decideContextAction, defaultContextPolicy } from "./ContextPolicy.ts"
// Step 3: compact.
export { Checkpoint, parseCheckpoint, renderCheckpoint } from "./Checkpoint.ts"
export { checkpointInstructions } from "./CheckpointInstructions.ts"
export { compact, type CompactionOutcome } from "./Compact.ts"
export { applyCompaction, type CompactionPlan, type NoPlan, planCompaction } from "./PlanCompaction.ts"
export type { CompactionPlugin } from "./PluginHooks.ts"
export { compactionPresets } from "./Presets.ts"
export { recoverUncertainResults } from "./Recover.ts"
export { serializeForSummary } from "./SerializeForSummary.ts"
export { type SummarizeFn, Summarizer, SummarizerError, type SummaryReply, type SummaryRequest } from "./Summarizer.ts"
export { summaryMessage } from "./SummaryMessage.ts"
// After compaction: the hard limit and the oversized tail.
export { ensureWithinBudget } from "./EnsureWithinBudget.ts"
export { BUDGET_TRUNCATION_MARKER, reduceToBudget } from "./ReduceToBudget.ts"
// Events.
export {
  CompactionCompleted,
  CompactionEvent,
  CompactionFailedEvent,
  CompactionSkipped,
  CompactionStarted,
  ContextReduced,
  decodeEventLine,
  encodeEventLine,
  envelope,
  EventEnvelope,
  PluginHookFailed
} from "./Events.ts"
