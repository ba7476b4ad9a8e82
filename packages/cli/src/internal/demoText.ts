/**
 * What `ctxkit demo` prints: the lines of its two parts, and the summary of what each pipeline step did, computed
 * from the runs alone (pure), so the test compares the bin's output with the library's results.
 *
 * @internal
 */
import type { EngineEvent } from "@ctxkit/engine"
import type { OverflowRun } from "./demoOverflow.ts"
import { pipelineOptions, type PipelineRun } from "./demoPipeline.ts"

const number = (n: number): string => n.toLocaleString("en-US")

/** What one step of the pipeline did over the whole session. */
export interface StepSummary {
  readonly step: "cap" | "governor" | "clearing" | "compaction" | "reduction" | "fitting" | "invariants"
  /** The requests (1-based) where it did something. */
  readonly requests: ReadonlyArray<number>
  readonly did: string
}

/** `request #3`, `requests #3, #9`, `requests #1–#12` (consecutive runs joined). */
const where = (requests: ReadonlyArray<number>): string => {
  if (requests.length === 0) return "never"
  const runs: Array<[number, number]> = []
  for (const r of requests) {
    const last = runs[runs.length - 1]
    if (last !== undefined && r === last[1] + 1) last[1] = r
    else runs.push([r, r])
  }
  const text = runs.map(([a, b]) => (a === b ? `#${a}` : b === a + 1 ? `#${a}, #${b}` : `#${a}–#${b}`)).join(", ")
  return `request${requests.length === 1 ? "" : "s"} ${text}`
}

/** Each step's summary, from the events of every request. */
export const stepSummaries = (run: PipelineRun): ReadonlyArray<StepSummary> => {
  const at = (type: EngineEvent["type"]) =>
    run.requests.flatMap((r, i) => r.events.filter((e) => e.type === type).map((e) => ({ request: i + 1, event: e })))
  const capped = at("context_capped").map(({ event, request }) =>
    event.type === "context_capped" ? { ...event.data, at: request } : undefined
  ).filter((e) => e !== undefined)
  const governed = at("context_governed").map(({ event, request }) =>
    event.type === "context_governed" ? { ...event.data, at: request } : undefined
  ).filter((e) => e !== undefined)
  const cleared = at("context_cleared").map(({ event, request }) =>
    event.type === "context_cleared" ? { ...event.data, at: request } : undefined
  ).filter((e) => e !== undefined)
  const compacted = at("compaction_completed").map(({ event, request }) =>
    event.type === "compaction_completed" ? { ...event.data, at: request } : undefined
  ).filter((e) => e !== undefined)
  const reduced = at("context_reduced").map(({ event, request }) =>
    event.type === "context_reduced" ? { ...event.data, at: request } : undefined
  ).filter((e) => e !== undefined)
  const lastGoverned = governed[governed.length - 1]
  const largest = Math.max(0, ...run.requests.map((r) => r.requestTokens))
  const withBlock = run.requests.flatMap((r, i) => (r.invariants ? [i + 1] : []))
  const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
  return [
    {
      step: "cap",
      requests: capped.map((c) => c.at),
      did: `${sum(capped.map((c) => c.results))} new tool results cut to head and tail (20% of the budget each): ` +
        `${number(sum(capped.map((c) => c.omittedChars)))} characters left out`
    },
    {
      step: "governor",
      requests: governed.map((g) => g.at),
      did: lastGoverned === undefined
        ? "nothing redundant to elide"
        : `${lastGoverned.elided.total} result${
          lastGoverned.elided.total === 1 ? "" : "s"
        } a later one made redundant (${
          Object.entries(lastGoverned.elided).filter(([k, v]) => k !== "total" && v > 0).map(([k, v]) => `${k} ${v}`)
            .join(", ")
        }) replaced by stubs in the request: ${number(lastGoverned.tokensBefore)} → ${
          number(lastGoverned.tokensAfter)
        } tokens`
    },
    {
      step: "clearing",
      requests: cleared.map((c) => c.at),
      did: `${sum(cleared.map((c) => c.results))} old tool results cleared past 60% of the budget (the last 6 kept): ` +
        `${number(sum(cleared.map((c) => c.tokensFreed)))} tokens freed`
    },
    {
      step: "compaction",
      requests: compacted.map((c) => c.at),
      did: compacted.length === 0
        ? "not due"
        : compacted.map((c) =>
          `${number(c.before)} → ${number(c.after)} tokens (${c.replaced} messages into a ${
            number(c.checkpointTokens)
          }-token checkpoint)`
        ).join("; ") + ", by the offline extractive summarizer at 85% of the budget"
    },
    {
      step: "reduction",
      requests: reduced.map((r) => r.at),
      did: `${sum(reduced.map((r) => r.messages))} largest contents clipped to stay under the ${
        number(pipelineOptions.hardLimit.maxContextChars)
      }-character hard limit: ≈${number(sum(reduced.map((r) => r.tokensSaved ?? 0)))} tokens saved`
    },
    {
      step: "fitting",
      requests: run.requests.map((_, i) => i + 1),
      did: `every request within the ${number(run.budget)}-token budget (truncate); the largest was ${
        number(largest)
      } tokens`
    },
    {
      step: "invariants",
      requests: withBlock,
      did: withBlock.length === 0
        ? "no compaction, no block"
        : "after the first compaction, the user's instructions quoted word for word in an <invariants> block at the end"
    }
  ]
}

/** The lines of part 1. */
export const pipelineLines = (run: PipelineRun): ReadonlyArray<string> => {
  const out: Array<string> = []
  const last = run.requests[run.requests.length - 1]
  out.push("Part 1. A coding agent's session through the whole pipeline")
  out.push(
    `  Built now from ${run.files.length} files @ctxkit/cli ships (${run.files.join(", ")}): the agent searches, ` +
      "reads, edits, runs the tests, is asked two more questions."
  )
  out.push(
    `  ContextEngine, preset "recommended", window ${number(run.window)} − reply reserve ${
      number(run.maxTokens)
    } = budget ${number(run.budget)} tokens.`
  )
  out.push("")
  out.push(`  ${"request".padEnd(8)} ${"what the harness appended".padEnd(64)} transcript → request (tokens)`)
  run.requests.forEach((r, i) => {
    const what = r.what.length > 64 ? `${r.what.slice(0, 63)}…` : r.what
    out.push(
      `  ${`#${i + 1}`.padEnd(8)} ${what.padEnd(64)} ${number(r.transcriptTokens).padStart(6)} → ${
        number(r.requestTokens).padStart(5)
      }${r.events.length === 0 ? "" : `  ${r.events.map((e) => e.type).join(", ")}`}`
    )
  })
  out.push("")
  out.push("  What each step did:")
  for (const s of stepSummaries(run)) out.push(`    ${s.step.padEnd(11)} ${where(s.requests).padEnd(24)} ${s.did}`)
  if (last !== undefined) {
    out.push("")
    out.push(
      `  The transcript grew to ${last.transcriptMessages} messages and ${
        number(last.transcriptTokens)
      } tokens, stored whole; the last request sent ${last.requestMessages} messages, ${
        number(last.requestTokens)
      } tokens of the ${number(run.budget)}.`
    )
  }
  return out
}

/** The lines of part 2. */
export const overflowLines = (run: OverflowRun): ReadonlyArray<string> => {
  const out: Array<string> = []
  const naive = run.naive
  out.push("Part 2. A server that truncates silently")
  out.push(
    `  The conversation of an overflow experiment (${naive.messages} messages, ${
      number(naive.estimate)
    } estimated tokens) sent through OpenAiCompatible to a scripted server that truncates like Ollama (num_ctx ${
      number(run.serverWindow)
    }).`
  )
  out.push("")
  out.push(
    `  Without ctxkit: HTTP 200, finish_reason "${naive.finishReason}", prompt_tokens ${
      number(naive.promptTokens ?? 0)
    }; the server kept ${naive.served?.kept ?? "?"} of ${naive.messages} messages and said nothing.`
  )
  out.push(
    `  The model answered "${naive.answer}": confident, and wrong. The task key was in a message the server dropped; the right answer is "${run.expected}".`
  )
  out.push("")
  out.push(
    `  With the engine observing every response (the harness believes the window is ${number(run.believedWindow)}):`
  )
  run.observed.forEach((o, i) => {
    out.push(
      `    #${String(i + 1).padEnd(3)} ${String(o.messages).padStart(2)} messages, estimated ${
        number(o.estimate).padStart(5)
      } → reported ${number(o.promptTokens ?? 0).padStart(5)}${
        o.truncated ? `   TRUNCATED (the server kept ${o.served?.kept ?? "?"} of ${o.messages})` : ""
      }`
    )
  })
  if (run.outcome !== undefined) {
    out.push(
      `  ${run.outcome.reason} (${run.outcome.kind}, rule ${run.outcome.rule}): the answer is discarded and the run ends.`
    )
    out.push(`  ${run.outcome.message}`)
  }
  out.push("")
  const compaction = run.fixed.events.find((e) => e.type === "compaction_completed")
  out.push(
    `  The fix applied: discoverWindow asked the server → ${
      run.fixed.window === undefined ? "unknown" : number(run.fixed.window)
    } (${run.fixed.source}).`
  )
  out.push(
    `  Fitted to it (preset "tutorial"${
      compaction?.type === "compaction_completed"
        ? `, compaction ${number(compaction.data.before)} → ${number(compaction.data.after)} tokens`
        : ""
    }), the request arrived whole (kept ${
      run.fixed.call.served?.kept ?? "?"
    } of ${run.fixed.call.messages}) and the model answered "${run.fixed.call.answer}".`
  )
  return out
}

/** Every line `ctxkit demo` prints. */
export const demoLines = (pipeline: PipelineRun, overflow: OverflowRun): ReadonlyArray<string> => [
  "ctxkit demo — the whole context pipeline on a real agent session, then a server that drops the task silently",
  "",
  ...pipelineLines(pipeline),
  "",
  ...overflowLines(overflow)
]

/** The one JSON document of `ctxkit demo --json`. */
export const demoJson = (pipeline: PipelineRun, overflow: OverflowRun) => {
  const { finalRequest, ...rest } = pipeline
  return {
    pipeline: { ...rest, finalRequestMessages: finalRequest.length, steps: stepSummaries(pipeline) },
    overflow
  }
}
