/**
 * `@ctxkit/overflow`: knowing that the server silently dropped part of your prompt. The growth signal
 * (`looksTruncated`), an immutable detector to observe every response with (`OverflowDetector`), and the named
 * outcome `context_overflow` with a message that says how to fix it. Pure functions; depends on
 * `@ctxkit/core`, `@ctxkit/budget` and `effect`. The root exports what a harness calls and reads; the
 * supporting types (`PromptEdit`, `ResetCause`, `Observation`, `OverflowRule`, `OverflowEvidence`,
 * `RequestKind`, `TruncationMode`, `ApparentWindow`, `OverflowAction`) are in their modules
 * (`@ctxkit/overflow/DetectorState`, `@ctxkit/overflow/OverflowVerdict`, `@ctxkit/overflow/ContextOverflow`).
 *
 * @since 0.1.0
 */

export { ContextOverflow, contextOverflow, overflowMessage } from "./ContextOverflow.ts"
export { ObservedRequest, OverflowDetectorState } from "./DetectorState.ts"
export {
  looksTruncated,
  OVERFLOW_GROWTH_RATIO,
  OVERFLOW_MIN_FIRST,
  OVERFLOW_MIN_GROWTH,
  OVERFLOW_MIN_GROWTH_COMPACT,
  RequestSample
} from "./LooksTruncated.ts"
/**
 * The overflow detector: `initial`, `observe` (every response) and `reset` (an edit of the conversation, or a
 * model change) over an immutable {@link OverflowDetectorState}.
 *
 * @since 0.1.0
 */
export * as OverflowDetector from "./OverflowDetector.ts"
export { OverflowVerdict } from "./OverflowVerdict.ts"
