/**
 * `@ctxkit/invariants`: the `<invariants>` block of standing context that survives compaction. A summary may
 * paraphrase or drop a rule the user gave; this package keeps the user's own instructions (verified quotes),
 * the live goal, the approved plan, the acceptance criteria and the active grants OUT of the summary, and
 * resends them verbatim at the end of every request after the first compaction. Pure functions only.
 *
 * @since 0.1.0
 */

export * from "./AcceptQuotes.ts"
export * from "./Diagnostics.ts"
export * from "./Policy.ts"
export * from "./RenderInvariants.ts"
export * from "./Sources.ts"
export * from "./WithInvariants.ts"
