/**
 * `@ctxkit/governor`: projects away the tool results a later result made redundant — in the request only, as
 * one-line stubs — with the `context_governed` event, the usage heuristic and the context report. Modes `off`
 * (default), `shadow` (measure only) and `on`. Pure functions; depends on `@ctxkit/core`, `@ctxkit/budget` and
 * `effect`.
 *
 * @since 0.1.0
 */

export { ContextGoverned } from "./ContextGoverned.ts"
export { ContextReport, contextReport, ReportSegment } from "./ContextReport.ts"
export { elisionStub } from "./ElisionStub.ts"
export { Elision, govern, GovernMode, type GovernorAnalysis } from "./Govern.ts"
export { type ToolKinds } from "./ToolKinds.ts"
export { canonicalToolKinds } from "./tools/Canonical.ts"
export { claudeCodeToolKinds } from "./tools/ClaudeCode.ts"
export { seedToolKinds } from "./tools/Seed.ts"
export { sweAgentToolKinds } from "./tools/SweAgent.ts"
export { UsageSummary, usageSummary } from "./UsageSummary.ts"
