/**
 * The real corpus through the engine: every conversation of `../shared/corpus/normalized/` replayed turn by turn
 * (one `prepare` before each assistant message, an honest `observe` after it) at a window of 25% of its size, with
 * each preset. L15 holds on every request (pair-valid, protected context and the current request kept, within
 * `window − reserve`, `max_tokens` = reserve) and the transcript keeps every message; the counts of what each
 * step did are printed per preset.
 */
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { canonicalToolKinds } from "@ctxkit/governor"
import { describe, expect, it } from "@effect/vitest"
import { corpusAbsent, loadCorpus } from "./corpus.ts"
import { appendsOf, requestViolations, serverCount, simulate, transcriptViolations } from "./engineSim.ts"

const metaOf = (m: Message): Readonly<Record<string, unknown>> | undefined =>
  (m as { readonly meta?: Readonly<Record<string, unknown>> }).meta

// The corpus's conventions on the canonical lens (as in governor-corpus): Claude Code's own compaction summaries
// are checkpoints, its error results carry `meta.isError`.
const corpusFormat: MessageFormat<Message> = {
  ...formats.canonical,
  isSummary: (m) => formats.canonical.isSummary(m) || metaOf(m)?.["kind"] === "compact_summary",
  toolResults: (m) =>
    formats.canonical.toolResults(m).map((r) => (metaOf(m)?.["isError"] === true ? { ...r, isError: true } : r))
}

const presets = ["alisio", "tutorial", "neotavern", "recommended"] as const
const MAX_TOKENS = 4_096

interface Row {
  conversations: number
  requests: number
  caps: number
  clears: number
  compactions: number
  elisions: number
  reductions: number
  fits: number
  failures: number
  historyTokens: number
  sentTokens: number
}

const table: Record<string, Row> = {}

describe.skipIf(corpusAbsent)("engine on the corpus", () => {
  const corpus = loadCorpus()
  for (const preset of presets) {
    it(`replays every conversation at 25% of its size with the ${preset} preset; L15 holds`, async () => {
      const row: Row = {
        conversations: 0,
        requests: 0,
        caps: 0,
        clears: 0,
        compactions: 0,
        elisions: 0,
        reductions: 0,
        fits: 0,
        failures: 0,
        historyTokens: 0,
        sentTokens: 0
      }
      const violations: Array<string> = []
      for (const conversation of corpus) {
        const messages = conversation.messages as unknown as ReadonlyArray<Message>
        const appends = appendsOf(messages, corpusFormat)
        const window = Math.max(2_000, Math.round(serverCount(messages, corpusFormat) * 0.25))
        const sim = await simulate(appends, {
          format: corpusFormat,
          engine: {
            format: corpusFormat,
            window,
            maxTokens: MAX_TOKENS,
            preset,
            governor: { toolKinds: canonicalToolKinds }
          },
          mode: "honest",
          session: conversation.id
        })
        row.conversations++
        let done = 0
        let appended: Array<Message> = []
        for (const turn of sim.turns) {
          done++
          appended = [...appended, ...turn.append]
          if (turn.failed !== undefined) {
            row.failures++
            if (turn.failed !== "TokenBudgetExceeded" && turn.failed !== "ContextBudgetExceeded") {
              violations.push(`${conversation.id}: unexpected ${turn.failed}`)
            }
            continue
          }
          row.requests++
          for (const v of requestViolations(turn, corpusFormat, MAX_TOKENS)) violations.push(`${conversation.id}: ${v}`)
          if (turn.truncated === true) violations.push(`${conversation.id}: an honest request was flagged`)
          row.historyTokens += serverCount(appended, corpusFormat)
          row.sentTokens += turn.result?.tokens ?? 0
        }
        for (const v of transcriptViolations(appends, sim.turns.at(-1)?.state, done)) {
          violations.push(`${conversation.id}: ${v}`)
        }
        for (const event of sim.events) {
          if (event.type === "context_capped") row.caps += event.data.results
          else if (event.type === "context_cleared") row.clears += event.data.results
          else if (event.type === "compaction_completed") row.compactions++
          else if (event.type === "context_reduced") row.reductions += event.data.messages
          else if (event.type === "context_governed") {
            row.elisions += event.data.newlyElided.length + event.data.newlyElidedMore
          } else if (event.type === "context_fitted" && event.data.excluded > 0) row.fits++
        }
      }
      table[preset] = row
      expect(violations.slice(0, 10)).toEqual([])
      expect(row.requests).toBeGreaterThan(0)
      // Every preset that rewrites the history did something on real sessions squeezed to a quarter.
      expect(preset === "neotavern" ? row.fits : row.compactions + row.clears + row.caps).toBeGreaterThan(0)
      const saved = row.historyTokens - row.sentTokens
      // The table of the note, one line per preset.
      console.log(
        `engine corpus ${preset}: conversations ${row.conversations}, requests ${row.requests}, caps ${row.caps}, clears ${row.clears}, compactions ${row.compactions}, elisions ${row.elisions}, reductions ${row.reductions}, fits ${row.fits}, budget failures ${row.failures}, tokens saved ${saved} of ${row.historyTokens} (${
          (100 * saved / Math.max(1, row.historyTokens)).toFixed(1)
        }%)`
      )
    }, 600_000)
  }
})
