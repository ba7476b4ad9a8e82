/**
 * `@ctxkit/governor`: projects away the tool results a later result made redundant — in the request only, as
 * one-line stubs — with the `context_governed` event, the usage heuristic and the context report. Modes `off`
 * (default), `shadow` (measure only) and `on`. Pure functions; depends on `@ctxkit/core`, `@ctxkit/budget` and
 * `effect`.
 *
 * @since 0.1.0
 */

export * from "./ContextGoverned.ts"
export * from "./ContextReport.ts"
export * from "./ElisionStub.ts"
export * from "./Govern.ts"
export * from "./GovernorDiagnostics.ts"
export * from "./ToolKinds.ts"
export * from "./tools/Canonical.ts"
export * from "./tools/ClaudeCode.ts"
export * from "./tools/Seed.ts"
export * from "./tools/SweAgent.ts"
export * from "./UsageSummary.ts"
