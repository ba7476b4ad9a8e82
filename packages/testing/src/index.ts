/**
 * `@ctxkit/testing`: fast-check arbitraries of agent conversations in every wire format, and the ctxkit
 * laws as reusable property checks — for ctxkit's own tests and for yours.
 *
 * @since 0.1.0
 */

export * from "./Arbitraries.ts"
export * from "./CompactionLaws.ts"
export * from "./FitLaws.ts"
export * from "./FormatFidelity.ts"
export * from "./Laws.ts"
export * from "./Render.ts"
export * from "./Scenario.ts"
