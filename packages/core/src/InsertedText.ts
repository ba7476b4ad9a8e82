/**
 * The texts ctxkit inserts into a conversation, written and recognised in one place: the compaction checkpoint
 * header, the fit summary header, and the invariants block. Lenses, the governor, fit and the invariants package
 * all read them through these functions, so a writer and its readers cannot drift apart.
 *
 * @since 0.1.0
 */
export { checkpointHeader, isInvariantsText, isSummaryText, SUMMARY_HEADER } from "./internal/summaryText.ts"
