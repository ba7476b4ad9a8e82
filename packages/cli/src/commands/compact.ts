/**
 * `ctxkit compact <file> [--keep-turns N] [--max-context-chars N] [--base-url URL --model M]`: where compaction
 * would cut, the checkpoint that replaces the older turns (the offline extractive summarizer, or a model on an
 * OpenAI-compatible server), and the in-place reduction of what is still over the character limit. Exit 1 when
 * the result is still over the limit.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { loadConversation } from "../internal/conversation.ts"
import { BadInput, Verdict } from "../internal/errors.ts"
import { checkCount, count, file, format, json, loadCounter, tokenizer } from "../internal/options.ts"
import { n, printJson, printLines, progressFor } from "../internal/output.ts"

const DEFAULT_MAX_CONTEXT_CHARS = 800_000
const MIN_TARGET_CHARS = 4_000

/** The summarizer: the offline extractive one, or a model on an OpenAI-compatible server. */
const summarizerLayer = Effect.fnUntraced(function*(baseUrl: Option.Option<string>, model: Option.Option<string>) {
  const engine = yield* Effect.promise(() => import("@ctxkit/engine/Summarizer"))
  if (Option.isNone(baseUrl) && Option.isNone(model)) return engine.Summarizer.layerExtractive
  if (Option.isNone(baseUrl) || Option.isNone(model)) {
    return yield* new BadInput({
      message: `${Option.isNone(baseUrl) ? "--model" : "--base-url"} needs ${
        Option.isNone(baseUrl) ? "--base-url" : "--model"
      }: pass both (--base-url http://127.0.0.1:8080/v1 --model NAME) to summarize with a model, or neither for the offline summarizer`
    })
  }
  yield* checkUrl(baseUrl.value)
  const [{ OpenAiCompatible }, { FetchHttpClient }] = yield* Effect.promise(() =>
    Promise.all([import("@ctxkit/effect-ai"), import("effect/http")])
  )
  const modelLayer = OpenAiCompatible.layer({ baseUrl: baseUrl.value, model: model.value }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
  return engine.Summarizer.layerLanguageModel().pipe(Layer.provide(modelLayer))
})

/** A server's base URL: http or https, or a usage error. */
export const checkUrl = (url: string): Effect.Effect<URL, BadInput> => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:")
    ? Effect.succeed(parsed)
    : Effect.fail(
      new BadInput({
        message: `--base-url ${
          JSON.stringify(url)
        } is not an http(s) URL; pass the server's address, e.g. --base-url http://127.0.0.1:11434/v1`
      })
    )
}

/** The `compact` subcommand. */
export const compactCommand = Command.make("compact", {
  file,
  json,
  format,
  tokenizer,
  keepTurns: count("keep-turns", "User turns kept verbatim after the checkpoint (0-20, default 2)"),
  maxContextChars: count("max-context-chars", "The hard limit in characters of transcript (default 800,000)"),
  baseUrl: Flag.String("base-url").pipe(
    Flag.withDescription("Summarize with a model on this OpenAI-compatible server (with --model)"),
    Flag.withMetavar("URL"),
    Flag.optional
  ),
  model: Flag.String("model").pipe(Flag.withDescription("The summarizer model (with --base-url)"), Flag.optional)
}, (flags) =>
  Effect.gen(function*() {
    const keepTurns = yield* checkCount("keep-turns", flags.keepTurns, { min: 0, max: 20, unit: "turns", example: 2 })
    const maxContextChars = Option.getOrElse(
      yield* checkCount("max-context-chars", flags.maxContextChars, { min: 1, unit: "characters", example: 200000 }),
      () => DEFAULT_MAX_CONTEXT_CHARS
    )
    const summarizer = yield* summarizerLayer(flags.baseUrl, flags.model)
    const [{ conversationCost, makeCostCache }, { compact, reduceToBudget }] = yield* Effect.promise(() =>
      Promise.all([import("@ctxkit/budget"), import("@ctxkit/compaction")])
    )
    const counter = yield* loadCounter(flags.tokenizer)
    const conversation = yield* loadConversation(flags.file, flags.format)
    const progress = yield* progressFor(conversation.bytes)
    const { format, messages } = conversation
    const cache = makeCostCache()
    yield* progress.step("summarizing")
    const outcome = yield* compact(messages, {
      reason: "manual",
      format,
      counter,
      cache,
      ...(Option.isSome(keepTurns) ? { keepTurns: keepTurns.value } : {})
    }).pipe(
      Effect.provide(summarizer),
      Effect.mapError((error) =>
        new BadInput({
          message: `compaction failed: ${"error" in error ? error.error : error.message}${
            Option.isSome(flags.baseUrl)
              ? "; check that --base-url answers and --model exists, or drop both to use the offline summarizer"
              : ""
          }`
        })
      )
    )
    const compacted = outcome._tag === "Compacted" ? outcome.messages : messages
    yield* progress.step("reducing")
    const target = Math.max(MIN_TARGET_CHARS, maxContextChars)
    const reduction = reduceToBudget(compacted, target, { format })
    yield* progress.done
    const tokensBefore = conversationCost(messages, { counter, format, cache }).total
    const tokensAfter = conversationCost(reduction.messages, { counter, format, cache }).total
    const fits = reduction.chars <= maxContextChars
    if (flags.json) {
      yield* printJson({
        plan: outcome._tag === "Compacted"
          ? {
            cut: outcome.plan.cut,
            summarized: outcome.plan.summarized.length,
            kept: outcome.plan.kept.length,
            retained: outcome.plan.retained,
            midTurn: outcome.plan.midTurn
          }
          : null,
        skipped: outcome._tag === "Skipped" ? { reason: outcome.noPlan.reason, detail: outcome.detail } : null,
        checkpoint: outcome._tag === "Compacted"
          ? { structured: outcome.parsed.structured, partial: outcome.partial, text: outcome.parsed.text }
          : null,
        tokensBefore,
        tokensAfter,
        reduction: {
          target,
          charsBefore: reduction.charsBefore,
          chars: reduction.chars,
          truncated: reduction.truncated,
          clipped: reduction.clipped
        },
        fits,
        messages: reduction.messages
      })
    } else {
      yield* printLines([
        `${conversation.source}: ${n(messages.length)} messages, ${conversation.formatName}${
          conversation.detected ? " (detected)" : ""
        }, ${n(tokensBefore)} tokens (${counter.id})`,
        outcome._tag === "Compacted"
          ? `plan: cut at message ${outcome.plan.cut}${outcome.plan.midTurn ? " (inside the last long turn)" : ""}: ${
            n(outcome.plan.summarized.length)
          } summarized, ${n(outcome.plan.kept.length)} kept`
          : `no compaction: ${outcome.detail}`,
        ...(outcome._tag === "Compacted"
          ? [
            `checkpoint (${outcome.parsed.structured ? "structured" : "text only"}${
              outcome.partial ? ", partial" : ""
            }, ${
              Option.isSome(flags.baseUrl) ? `model ${Option.getOrElse(flags.model, () => "")}` : "offline summarizer"
            }):`,
            ...outcome.parsed.text.split("\n").map((line) => `  ${line}`)
          ]
          : []),
        `reduction: ${n(reduction.charsBefore)} → ${n(reduction.chars)} characters (target ${n(target)}), ${
          n(reduction.truncated)
        } messages clipped`,
        `result: ${n(reduction.messages.length)} messages, ${n(tokensAfter)} tokens`
      ])
    }
    if (!fits) {
      return yield* new Verdict({
        message: `still ${n(reduction.chars)} characters after compaction and reduction, over --max-context-chars ${
          n(maxContextChars)
        }; keep fewer turns (--keep-turns 0) or raise the limit`
      })
    }
  })).pipe(
    Command.withDescription("Compact a conversation: the plan, the checkpoint and the reduction"),
    Command.withExamples([
      { command: "ctxkit compact chat.json --keep-turns 1", description: "Offline extractive summarizer" },
      {
        command: "ctxkit compact chat.json --base-url http://127.0.0.1:11434/v1 --model llama3.2",
        description: "Summarize with a local model"
      }
    ])
  )
