/**
 * `@ctxkit/invariants`: the `<invariants>` block of standing context that survives compaction. A summary may
 * paraphrase or drop a rule the user gave; this package keeps the user's own instructions (verified quotes),
 * the live goal, the approved plan, the acceptance criteria and the active grants OUT of the summary, and
 * resends them verbatim at the end of every request after the first compaction. Pure functions only.
 *
 * @since 0.1.0
 */

export { acceptQuotes, QuoteRejected } from "./AcceptQuotes.ts"
export { type InvariantsDiagnostic } from "./Diagnostics.ts"
export { INVARIANTS_POLICY } from "./Policy.ts"
export { buildInvariants, renderInvariants } from "./RenderInvariants.ts"
export { InvariantSources } from "./Sources.ts"
export { withInvariants } from "./WithInvariants.ts"
