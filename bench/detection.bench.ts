/**
 * `npm run bench -- detection`: how well `OverflowDetector` finds silent truncation on the real corpus. Not a
 * timing benchmark: it counts verdicts.
 *
 * The replay. Every conversation of `../shared/corpus/normalized/` is rendered in two wire formats, OpenAI Chat
 * and Anthropic (tool results of one turn merged into one user message, the system prompt kept as a system
 * message, as harnesses store it), and replayed as growing requests: one request per assistant message, the
 * prompt being every message before it, append-only (the corpus is replayed as stored: no edit is declared).
 * The server counts with its own tokenizer, `o200k_base`, plus a chat template per message (system 4, user 5,
 * assistant 6, tool 3 tokens: not what the harness adds, so the learned overhead drifts a little both ways).
 * Its window is 25%, 40% and 60% of the conversation's whole size on the server, and it answers in one of
 * three ways:
 * - `honest`: a window larger than any prompt; it reports every token it read;
 * - `plateau` (Ollama-like): a prompt that does not fit loses its oldest non-system messages until it fits
 *   (the latest message always stays; if even that is too big, tokens are cut down to the window), and the
 *   tokens it KEPT are reported;
 * - `collapse`: a prompt that does not fit is answered with a report of 63 prompt tokens.
 * Each replay is judged with both counters the harness may have: `approximate` (characters / 4 plus 4 per
 * message, `approximateCounter`) and `exact` (`o200kCounter` plus 4 per message: the server's tokenizer
 * without its template). The detector observes every request, whatever it concluded before (a harness would
 * stop at the first detection; the later verdicts show what it would have seen had it gone on).
 *
 * Printed: truncated requests flagged, truncated conversations never flagged, flagged at the first truncated
 * request and within the first two, false positives (an untruncated request flagged, in any mode), and the
 * same on adversarial honest conversations (tool results of whitespace, repeated lines, base64, CJK, minified
 * JSON). Written: `bench/results/detection-<timestamp>.json` (notes) and `bench/results/detection-rows.json`
 * (every row as data).
 */
import { messageCost } from "@ctxkit/budget"
import { o200kCounter } from "@ctxkit/budget/o200k"
import { decodeConversation, formats, type Message, type MessageFormat } from "@ctxkit/core"
import { OverflowDetector } from "@ctxkit/overflow"
import * as Result from "effect/Result"
import { mkdirSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  messageFloor,
  replay,
  type ScriptedServer,
  serverSize,
  type Step
} from "../packages/overflow/test/ScriptedServer.ts"
import {
  ADVERSARIAL,
  adversarialConversation,
  exactCounter,
  serverTokenizer,
  template,
  toAnthropic,
  toOpenAiChat
} from "../packages/overflow/test/WireReplay.ts"
import { loadCorpus } from "../tests/corpus.ts"
import type { Harness } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "detection"

const WINDOWS: ReadonlyArray<number> = [0.25, 0.4, 0.6]
const MODES = ["honest", "plateau", "collapse"] as const
type Mode = (typeof MODES)[number]
const COUNTERS = ["approximate", "exact"] as const
type CounterName = (typeof COUNTERS)[number]

// ---------------------------------------------------------------------------------------------------------------
// Replay and tallies

interface Replayed {
  readonly id: string
  readonly format: string
  readonly messages: ReadonlyArray<unknown>
  readonly lens: MessageFormat<unknown>
}

const estimator = (counter: CounterName) => <M>(format: MessageFormat<M>, message: M): number =>
  messageCost(message, counter === "exact" ? { format, counter: exactCounter } : { format }).tokens

const detectorFor = (counter: CounterName) =>
  counter === "exact" ? OverflowDetector.initial({ counter: o200kCounter }) : OverflowDetector.initial()

// The harness gives the token floor of every request (`DETECTION_FLOOR=0` replays without it, as before it existed).
const withFloor = process.env["DETECTION_FLOOR"] !== "0"

const run = (conversation: Replayed, server: ScriptedServer, counter: CounterName): ReadonlyArray<Step> =>
  replay(conversation.messages, conversation.lens, server, {
    detector: detectorFor(counter),
    estimator: estimator(counter),
    ...(withFloor ? { floor: messageFloor } : {})
  }).steps

interface Tally {
  conversations: number
  requests: number
  truncatedRequests: number
  flaggedTruncated: number
  truncatedConversations: number
  neverFlagged: number
  /** Never flagged, and over the window from its first request on (nothing to compare with). */
  neverFlaggedFromFirst: number
  atFirst: number
  withinTwo: number
  falsePositives: number
  rules: Record<string, number>
}

const emptyTally = (): Tally => ({
  conversations: 0,
  requests: 0,
  truncatedRequests: 0,
  flaggedTruncated: 0,
  truncatedConversations: 0,
  neverFlagged: 0,
  neverFlaggedFromFirst: 0,
  atFirst: 0,
  withinTwo: 0,
  falsePositives: 0,
  rules: {}
})

const debug = process.env["DETECTION_DEBUG"]
const add = (tally: Tally, steps: ReadonlyArray<Step>, label = ""): void => {
  if (debug !== undefined && label.includes(debug)) {
    const truncated = steps.filter((s) => s.reply.truncated)
    const fp = steps.some((s) => !s.reply.truncated && s.verdict.truncated)
    if (fp || (truncated.length > 0 && !truncated.slice(0, 2).some((s) => s.verdict.truncated))) {
      process.stdout.write(`--- ${label}\n`)
      for (const s of steps) {
        process.stdout.write(
          `${s.at} est ${s.estimate} rep ${s.reply.tokens} total ${s.reply.total} trunc ${s.reply.truncated} -> ${s.verdict.truncated} ${s.verdict.rule}${
            s.verdict.suspect === true ? " suspect" : ""
          } ${JSON.stringify(s.verdict.evidence)}\n`
        )
      }
    }
  }
  tally.conversations++
  tally.requests += steps.length
  const truncated = steps.filter((s) => s.reply.truncated)
  tally.truncatedRequests += truncated.length
  tally.flaggedTruncated += truncated.filter((s) => s.verdict.truncated).length
  tally.falsePositives += steps.filter((s) => !s.reply.truncated && s.verdict.truncated).length
  for (const s of truncated) {
    if (s.verdict.truncated) tally.rules[s.verdict.rule] = (tally.rules[s.verdict.rule] ?? 0) + 1
  }
  if (truncated.length === 0) return
  tally.truncatedConversations++
  if (!truncated.some((s) => s.verdict.truncated)) {
    tally.neverFlagged++
    if (steps[0]?.reply.truncated === true) tally.neverFlaggedFromFirst++
  }
  if (truncated[0]?.verdict.truncated === true) tally.atFirst++
  if (truncated.slice(0, 2).some((s) => s.verdict.truncated)) tally.withinTwo++
}

const pct = (part: number, whole: number): string => whole === 0 ? "—" : `${((100 * part) / whole).toFixed(0)}%`

/** The replays of the corpus: every conversation in both wire formats. */
const corpusReplays = (): ReadonlyArray<Replayed> => {
  const out: Array<Replayed> = []
  for (const conversation of loadCorpus()) {
    const decoded = decodeConversation(conversation.messages, { format: formats.canonical })
    if (!Result.isSuccess(decoded)) continue
    const canonicalMessages: ReadonlyArray<Message> = decoded.success
    out.push({
      id: `${conversation.source}/${conversation.id}`,
      format: "openaiChat",
      messages: toOpenAiChat(canonicalMessages),
      lens: formats.openaiChat as MessageFormat<unknown>
    })
    out.push({
      id: `${conversation.source}/${conversation.id}`,
      format: "anthropic",
      messages: toAnthropic(canonicalMessages),
      lens: formats.anthropic as MessageFormat<unknown>
    })
  }
  return out
}

const fullSize = (conversation: Replayed): number => {
  const probe: ScriptedServer = { window: 0, mode: "plateau", tokenizer: serverTokenizer, template }
  return conversation.messages.reduce<number>((sum, m) => sum + serverSize(probe, conversation.lens, m), 0)
}

/**
 * The trade-off curve of the approximate counter: what the detector would have found, had its ratio rules
 * (`growth`, `first-request`) flagged under `threshold` instead of the shipped 0.025. Up to the first
 * flagged request the detector's states are the same for every threshold (a request under the threshold is
 * the first flag), so the first-detection figures are exact; a false positive counts a conversation with
 * at least one honest request under the threshold.
 */
const CURVE: ReadonlyArray<number> = [0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7]

const flaggedAt = (step: Step, threshold: number): boolean => {
  if (step.verdict.truncated) return true
  const ratio = step.verdict.evidence.ratio
  return (step.verdict.rule === "growth" || step.verdict.rule === "first-request") && ratio !== undefined &&
    ratio < threshold && (step.verdict.rule === "growth" || step.estimate >= 500)
}

interface CurvePoint {
  readonly threshold: number
  readonly windows: Record<string, { atFirst: number; withinTwo: number; never: number; of: number }>
  readonly honestConversationsFlagged: number
  readonly adversarialConversationsFlagged: number
}

const curvePoint = (
  threshold: number,
  truncatedRuns: ReadonlyArray<{ readonly window: number; readonly steps: ReadonlyArray<Step> }>,
  honestRuns: ReadonlyArray<ReadonlyArray<Step>>,
  adversarialRuns: ReadonlyArray<ReadonlyArray<Step>>
): CurvePoint => {
  const windows: CurvePoint["windows"] = {}
  for (const { steps, window } of truncatedRuns) {
    const truncated = steps.filter((s) => s.reply.truncated)
    if (truncated.length === 0) continue
    const key = `${window * 100}%`
    const w = (windows[key] ??= { atFirst: 0, withinTwo: 0, never: 0, of: 0 })
    w.of++
    // Before the first truncated request every request is honest: a flag there is a false positive, counted
    // below; the detection figures look at the truncated requests only.
    const first = truncated.findIndex((s) => flaggedAt(s, threshold))
    if (first === 0) w.atFirst++
    if (first === 0 || first === 1) w.withinTwo++
    if (first === -1) w.never++
  }
  const anyFlag = (steps: ReadonlyArray<Step>) => steps.some((s) => !s.reply.truncated && flaggedAt(s, threshold))
  return {
    threshold,
    windows,
    honestConversationsFlagged: honestRuns.filter(anyFlag).length,
    adversarialConversationsFlagged: adversarialRuns.filter(anyFlag).length
  }
}

interface Row {
  readonly counter: CounterName
  readonly mode: Mode
  readonly window: number | null
  readonly tally: Tally
}

export const runDetection = (harness: Harness): void => {
  const replays = corpusReplays()
  if (replays.length === 0) {
    harness.log("The corpus is absent (set CTXKIT_CORPUS to the normalized folder): nothing to measure.", true)
    return
  }
  const sizes = replays.map(fullSize)
  const rows: Array<Row> = []
  const plateauRuns: Array<{ readonly window: number; readonly steps: ReadonlyArray<Step> }> = []
  const honestRuns: Array<ReadonlyArray<Step>> = []
  const adversarialRuns: Array<ReadonlyArray<Step>> = []
  for (const counter of COUNTERS) {
    const honest = emptyTally()
    for (const conversation of replays) {
      const steps = run(
        conversation,
        { window: Number.MAX_SAFE_INTEGER, mode: "plateau", tokenizer: serverTokenizer, template },
        counter
      )
      if (counter === "approximate") honestRuns.push(steps)
      add(honest, steps, `${counter} honest ${conversation.format} ${conversation.id}`)
    }
    rows.push({ counter, mode: "honest", window: null, tally: honest })
    for (const mode of ["plateau", "collapse"] as const) {
      for (const fraction of WINDOWS) {
        const tally = emptyTally()
        replays.forEach((conversation, i) => {
          const window = Math.floor((sizes[i] ?? 0) * fraction)
          const steps = run(conversation, { window, mode, tokenizer: serverTokenizer, template }, counter)
          if (counter === "approximate" && mode === "plateau") plateauRuns.push({ window: fraction, steps })
          add(tally, steps, `${counter} ${mode} ${fraction} ${conversation.format} ${conversation.id}`)
        })
        rows.push({ counter, mode, window: fraction, tally })
      }
    }
    const adversarial = emptyTally()
    for (const make of Object.values(ADVERSARIAL)) {
      const canonicalMessages = adversarialConversation(make)
      for (
        const conversation of [
          { id: "adv", format: "openaiChat", messages: toOpenAiChat(canonicalMessages), lens: formats.openaiChat },
          { id: "adv", format: "anthropic", messages: toAnthropic(canonicalMessages), lens: formats.anthropic }
        ] as ReadonlyArray<Replayed>
      ) {
        const steps = run(
          conversation,
          { window: Number.MAX_SAFE_INTEGER, mode: "plateau", tokenizer: serverTokenizer, template },
          counter
        )
        if (counter === "approximate") adversarialRuns.push(steps)
        add(adversarial, steps)
      }
    }
    rows.push({ counter, mode: "honest", window: -1, tally: adversarial })
  }

  const requests = rows[0]?.tally.requests ?? 0
  harness.log(
    `${
      replays.length / 2
    } corpus conversations × 2 wire formats (OpenAI Chat, Anthropic) = ${replays.length} replays, ` +
      `${requests} requests; server tokenizer o200k_base; windows at ${
        WINDOWS.map((w) => `${w * 100}%`).join(" / ")
      } of each conversation; ${withFloor ? "the token floor of each request given" : "no token floor given"}.`,
    true
  )
  const header =
    "| counter | server | window | truncated requests flagged | never flagged | flagged at the first | within the first two | false positives |"
  harness.log("", true)
  harness.log(header, true)
  harness.log("|---|---|---|---|---|---|---|---|", true)
  for (const row of rows) {
    const t = row.tally
    const where = row.window === null ? "—" : row.window === -1 ? "adversarial" : `${row.window * 100}%`
    const of = `of ${t.truncatedConversations}`
    harness.log(
      `| ${row.counter} | ${row.mode} | ${where} | ${
        pct(t.flaggedTruncated, t.truncatedRequests)
      } (${t.flaggedTruncated}/${t.truncatedRequests}) | ` +
        `${t.neverFlagged} ${of}${
          t.neverFlagged > 0 ? ` (${t.neverFlaggedFromFirst} over the window from the first request)` : ""
        } | ${t.atFirst} ${of} | ${t.withinTwo} ${of} | ${t.falsePositives} of ${t.requests - t.truncatedRequests} |`,
      true
    )
  }
  harness.log("", true)
  for (const row of rows.filter((r) => r.mode !== "honest")) {
    const rules = Object.entries(row.tally.rules).map(([rule, n]) => `${rule} ${n}`).join(", ")
    harness.log(
      `rules that flagged (${row.counter}, ${row.mode}, ${(row.window ?? 0) * 100}%): ${rules || "none"}`,
      true
    )
  }
  harness.log("", true)
  harness.log(
    "Approximate counter, plateau: had the ratio rules flagged under the threshold (shipped: 0.025; the seed's: 0.1)",
    true
  )
  harness.log(
    "| threshold | at the first (25/40/60%) | within the first two | never flagged | honest corpus replays with a false positive | adversarial replays with a false positive |",
    true
  )
  harness.log("|---|---|---|---|---|---|", true)
  const curve = CURVE.map((t) => curvePoint(t, plateauRuns, honestRuns, adversarialRuns))
  for (const point of curve) {
    const ws = WINDOWS.map((w) => point.windows[`${w * 100}%`] ?? { atFirst: 0, withinTwo: 0, never: 0, of: 0 })
    const list = (f: (w: (typeof ws)[number]) => number) => ws.map((w) => `${f(w)}/${w.of}`).join(" · ")
    harness.log(
      `| ${point.threshold} | ${list((w) => w.atFirst)} | ${list((w) => w.withinTwo)} | ${list((w) => w.never)} | ` +
        `${point.honestConversationsFlagged} of ${honestRuns.length} | ${point.adversarialConversationsFlagged} of ${adversarialRuns.length} |`,
      true
    )
  }
  const dir = fileURLToPath(new URL("results/", import.meta.url))
  mkdirSync(dir, { recursive: true })
  const file = `${dir}detection-rows.json`
  writeFileSync(
    file,
    JSON.stringify({ date: new Date().toISOString(), replays: replays.length, rows, curve }, null, 2) + "\n"
  )
  harness.log(`rows written to ${file}`)
}

export { runDetection as run }
