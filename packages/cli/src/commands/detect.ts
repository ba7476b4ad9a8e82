/**
 * `ctxkit detect <samples.jsonl>`: replays requests through the overflow detector — one `{ "estimate", "tokens" }`
 * per line (optional `"kind": "compaction"`, `"reset": true` after a compaction, clearing or model change,
 * `"window": N` when the window is known) — and flags the ones the server truncated. Exit 1 when any was.
 *
 * @internal
 */
import type { ObservedRequest } from "@ctxkit/overflow/DetectorState"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import { BadInput, Verdict } from "../internal/errors.ts"
import { parseDocument, readInput } from "../internal/input.ts"
import { file, json, loadCounter, tokenizer } from "../internal/options.ts"
import { n, printJson, printLines } from "../internal/output.ts"

const RESETS = ["compaction", "clearing", "reduction", "epoch", "model-change"] as const
type ResetCause = (typeof RESETS)[number]

/** One replayed request: what the detector observes, and the reset that comes before it. */
interface Sample {
  readonly request: ObservedRequest
  readonly reset: ResetCause | undefined
}

const SHAPE =
  "each sample is { \"estimate\": N, \"tokens\": N } with optional \"kind\": \"turn\" | \"compaction\", \"reset\": true, \"window\": N"

const isCount = (value: unknown): value is number => Predicate.isNumber(value) && Number.isFinite(value) && value >= 0

/** Checks one parsed record; `where` names it in the message (`samples.jsonl:4`). */
const toSample = (value: unknown, where: string): Sample | string => {
  if (!Predicate.isObject(value) || Array.isArray(value)) return `${where}: not an object; ${SHAPE}`
  const record = value as Readonly<Record<string, unknown>>
  for (const key of ["estimate", "tokens"] as const) {
    if (!isCount(record[key])) {
      return `${where}: "${key}" is ${
        record[key] === undefined ? "missing" : JSON.stringify(record[key])
      }, not a number of tokens >= 0; ${SHAPE}`
    }
  }
  const kind = record["kind"]
  if (kind !== undefined && kind !== "turn" && kind !== "compaction") {
    return `${where}: "kind" is ${JSON.stringify(kind)}; use "turn" or "compaction"`
  }
  const reset = record["reset"]
  if (reset !== undefined && reset !== true && reset !== false && !RESETS.includes(reset as ResetCause)) {
    return `${where}: "reset" is ${JSON.stringify(reset)}; use true, or one of ${RESETS.join(", ")}`
  }
  const window = record["window"]
  if (window !== undefined && !(isCount(window) && window > 0)) {
    return `${where}: "window" is ${JSON.stringify(window)}; use the context window in tokens (> 0), or leave it out`
  }
  return {
    request: {
      estimate: record["estimate"] as number,
      tokens: record["tokens"] as number,
      ...(kind === undefined ? {} : { kind }),
      ...(window === undefined ? {} : { window: window as number })
    },
    reset: reset === true ? "compaction" : reset === false || reset === undefined ? undefined : (reset as ResetCause)
  }
}

/** The `detect` subcommand. */
export const detectCommand = Command.make("detect", {
  file,
  json,
  tokenizer
}, (flags) =>
  Effect.gen(function*() {
    const { OverflowDetector } = yield* Effect.promise(() => import("@ctxkit/overflow"))
    const counter = yield* loadCounter(flags.tokenizer)
    const input = yield* readInput(flags.file)
    const document = yield* parseDocument(input)
    const values: ReadonlyArray<unknown> = document._tag === "Jsonl"
      ? document.values
      : Array.isArray(document.value)
      ? document.value
      : [document.value]
    const places = (k: number) =>
      document._tag === "Jsonl" ? `${input.source}:${document.lines[k] ?? k + 1}` : `${input.source}: sample ${k}`
    const samples: Array<Sample> = []
    for (let k = 0; k < values.length; k++) {
      const sample = toSample(values[k], places(k))
      if (typeof sample === "string") return yield* new BadInput({ message: sample })
      samples.push(sample)
    }
    if (samples.length === 0) {
      return yield* new BadInput({ message: `${input.source} holds no samples; ${SHAPE}, one per line` })
    }
    let state = OverflowDetector.initial({ counter })
    const verdicts = samples.map((sample) => {
      if (sample.reset !== undefined) state = OverflowDetector.reset(state, sample.reset)
      const observed = OverflowDetector.observe(state, sample.request)
      state = observed.state
      return observed.verdict
    })
    const truncated = verdicts.filter((v) => v.truncated).length
    if (flags.json) {
      yield* printJson({
        requests: verdicts.map((v, index) => ({ index, truncated: v.truncated, rule: v.rule })),
        truncated
      })
    } else {
      yield* printLines([
        `${input.source}: ${n(samples.length)} requests replayed (estimates from ${counter.id}), ${
          n(truncated)
        } truncated`,
        ...verdicts.flatMap((v, index) =>
          v.truncated
            ? [
              `  request ${index}: truncated (${v.rule}${
                v.mode === undefined ? "" : `, ${v.mode}`
              }): the server reported ${n(v.sample.tokens)} prompt tokens for about ${n(v.sample.estimate)}${
                v.apparentWindow === undefined
                  ? ""
                  : `; the server's window looks like about ${n(v.apparentWindow.tokens)}`
              }`
            ]
            : []
        )
      ])
    }
    if (truncated > 0) {
      return yield* new Verdict({
        message: `${n(truncated)} request${
          truncated === 1 ? " was" : "s were"
        } truncated by the server; set the model's real context window (discover it with \`ctxkit window --base-url URL\`) and fit to it`
      })
    }
  })).pipe(
    Command.withDescription("Replay requests (estimate vs reported prompt tokens) and flag silent truncation"),
    Command.withExamples([{ command: "ctxkit detect samples.jsonl --json" }])
  )
