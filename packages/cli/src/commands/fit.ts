/**
 * `ctxkit fit <file> (--budget N | --window N [--max-tokens N]) [--strategy …]`: what a conversation looks like once
 * fitted to a budget, with the request to send in the input's own format. Exit 1 when it does not fit.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { loadConversation } from "../internal/conversation.ts"
import { BadInput, Verdict } from "../internal/errors.ts"
import { checkCount, count, file, format, json, loadCounter, tokenizer } from "../internal/options.ts"
import { n, printJson, printLines, progressFor } from "../internal/output.ts"

const STRATEGY_IDS = ["truncate", "summarize", "vector-recall", "manual"] as const

/** The budget from `--budget`, or `available(window, maxTokens)` from `--window` and `--max-tokens`. */
export const budgetOf = Effect.fnUntraced(function*(flags: {
  readonly budget: Option.Option<string>
  readonly window: Option.Option<string>
  readonly maxTokens: Option.Option<string>
}) {
  const { available, reserve } = yield* Effect.promise(() => import("@ctxkit/budget"))
  const budget = yield* checkCount("budget", flags.budget, { unit: "tokens", example: 8000 })
  const window = yield* checkCount("window", flags.window, { unit: "tokens", example: 8192 })
  const maxTokens = yield* checkCount("max-tokens", flags.maxTokens, { unit: "tokens", example: 1024 })
  if (Option.isSome(budget) && Option.isSome(window)) {
    return yield* new BadInput({
      message:
        "--budget and --window were both given; pass one: --budget N (tokens for the prompt) or --window N [--max-tokens N]"
    })
  }
  if (Option.isSome(budget)) {
    if (Option.isSome(maxTokens)) {
      return yield* new BadInput({
        message: "--max-tokens only applies with --window; pass --window N --max-tokens N, or --budget N alone"
      })
    }
    return { budget: budget.value, window: undefined, reserve: undefined }
  }
  if (Option.isSome(window)) {
    if (window.value > 2_000_000) {
      return yield* new BadInput({
        message:
          `--window ${window.value} is over 2,000,000 tokens, which no model has; pass the model's real context window`
      })
    }
    const max = Option.getOrUndefined(maxTokens)
    return {
      budget: available(window.value, max),
      window: window.value,
      reserve: reserve(window.value, max)
    }
  }
  return yield* new BadInput({
    message:
      "no budget: pass --budget N (tokens for the prompt) or --window N [--max-tokens N] (the model's context window)"
  })
})

/** The `fit` subcommand. */
export const fitCommand = Command.make("fit", {
  file,
  json,
  format,
  tokenizer,
  budget: count("budget", "Tokens the prompt may use"),
  window: count("window", "The model's context window in tokens (the budget is the window less the reply reserve)"),
  maxTokens: count("max-tokens", "The reply's max_tokens with --window (default: a quarter of the window)"),
  strategy: Flag.Literals("strategy", STRATEGY_IDS).pipe(
    Flag.withDescription(
      "How to make room: drop the oldest (truncate), summarize them, recall by relevance, or manual"
    ),
    Flag.withDefault("truncate" as (typeof STRATEGY_IDS)[number])
  )
}, (flags) =>
  Effect.gen(function*() {
    const limits = yield* budgetOf(flags)
    const [{ conversationCost, makeCostCache }, { strategies }] = yield* Effect.promise(() =>
      Promise.all([import("@ctxkit/budget"), import("@ctxkit/fit")])
    )
    const counter = yield* loadCounter(flags.tokenizer)
    const conversation = yield* loadConversation(flags.file, flags.format)
    const progress = yield* progressFor(conversation.bytes)
    const { format, messages } = conversation
    // One cache: the total before and the fitting count each message once.
    const cache = makeCostCache()
    yield* progress.step(`counting ${n(messages.length)} messages`)
    const before = conversationCost(messages, { counter, format, cache })
    yield* progress.step("fitting")
    const result = strategies[flags.strategy].fit(messages, counter, limits.budget, {
      format,
      cache,
      countExcluded: true
    })
    yield* progress.done
    const excluded = result.excluded.map((e) => ({
      index: e.index,
      reason: e.reason,
      tokens: e.tokens ?? before.costs[e.index] ?? 0
    }))
    const gone = new Set(excluded.map((e) => e.index))
    const kept = messages.flatMap((_, i) => (gone.has(i) ? [] : [i]))
    const truncated = result.truncated.map((t) => t.index)
    if (flags.json) {
      yield* printJson({
        fits: result.fits,
        budget: result.budget,
        tokensBefore: before.total,
        tokens: result.tokens,
        kept,
        excluded,
        truncated,
        inserted: result.inserted.length,
        messages: result.kept
      })
    } else {
      const reasons = new Map<string, number>()
      for (const e of excluded) reasons.set(e.reason, (reasons.get(e.reason) ?? 0) + 1)
      const freed = excluded.reduce((sum, e) => sum + e.tokens, 0)
      yield* printLines([
        `${result.fits ? "fits" : "does not fit"}: ${n(result.tokens)} of ${n(result.budget)} tokens${
          limits.window === undefined
            ? ""
            : ` (window ${n(limits.window)} less ${n(limits.reserve ?? 0)} reserved for the reply)`
        }; ${n(before.total)} before fitting`,
        `${conversation.source}: ${n(messages.length)} messages, ${conversation.formatName}${
          conversation.detected ? " (detected)" : ""
        }, counted with ${counter.id}${counter.approximate === false ? "" : " (approximate)"}`,
        `kept ${n(kept.length)} messages${truncated.length > 0 ? ` (${n(truncated.length)} truncated)` : ""}${
          result.inserted.length > 0 ? `, inserted ${n(result.inserted.length)}` : ""
        }; excluded ${n(excluded.length)}${
          excluded.length > 0
            ? ` (${[...reasons].map(([reason, k]) => `${reason}: ${n(k)}`).join(", ")}), ${n(freed)} tokens`
            : ""
        }`,
        ...result.diagnostics.map((d) => `note: ${d.message}`)
      ])
    }
    if (!result.fits) {
      return yield* new Verdict({
        message: `the protected messages alone (system, pinned, the current request) cost more than the budget of ${
          n(result.budget)
        } tokens; raise --budget or --window, or shorten them`
      })
    }
  })).pipe(
    Command.withDescription("Fit a conversation into a token budget; exit 1 when it does not fit"),
    Command.withExamples([
      { command: "ctxkit fit chat.json --budget 8000", description: "Fit into 8,000 prompt tokens" },
      {
        command: "ctxkit fit chat.json --window 8192 --tokenizer o200k --json",
        description: "An 8k model, exact counts, JSON out"
      }
    ])
  )
