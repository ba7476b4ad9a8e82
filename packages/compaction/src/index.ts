/**
 * `@ctxkit/compaction`: the three steps that keep a conversation inside its window, cheapest first — cap each
 * tool result, clear old tool results, compact into a structured checkpoint — plus the plan that says where
 * to cut, the summarizer contract, the oversized-tail reduction, the last chance and the events. Pure functions
 * over any wire format; the summarizer is a function argument or the `Summarizer` service. Depends on
 * `@ctxkit/core`, `@ctxkit/budget`, `@ctxkit/overflow` and `effect`.
 *
 * @since 0.1.0
 */

export * from "./BudgetExceeded.ts"
export * from "./CapToolResult.ts"
export * from "./Checkpoint.ts"
export * from "./CheckpointInstructions.ts"
export * from "./ClearOldToolResults.ts"
export * from "./Compact.ts"
export * from "./ContextPolicy.ts"
export * from "./EnsureWithinBudget.ts"
export * from "./Events.ts"
export * from "./Guards.ts"
export * from "./PlanCompaction.ts"
export * from "./PluginHooks.ts"
export * from "./Presets.ts"
export * from "./Recover.ts"
export * from "./ReduceToBudget.ts"
export * from "./SerializeForSummary.ts"
export * from "./Summarizer.ts"
export * from "./SummaryMessage.ts"
export * from "./SummaryReplyPolicy.ts"
