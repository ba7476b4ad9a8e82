/**
 * `@ctxkit/overflow`: knowing that the server silently dropped part of your prompt. The growth signal
 * (`looksTruncated`), an immutable detector to observe every response with (`OverflowDetector`), and the named
 * outcome `context_overflow` with a message that says how to fix it. Pure functions; depends on
 * `@ctxkit/core`, `@ctxkit/budget` and `effect`.
 *
 * @since 0.1.0
 */

export * from "./ContextOverflow.ts"
export * from "./DetectorState.ts"
export * from "./ExactCount.ts"
export * from "./LooksTruncated.ts"
/**
 * The overflow detector: `initial`, `observe` (every response) and `reset` (compaction, clearing, model change)
 * over an immutable {@link OverflowDetectorState}.
 *
 * @since 0.1.0
 */
export * as OverflowDetector from "./OverflowDetector.ts"
export * from "./OverflowVerdict.ts"
