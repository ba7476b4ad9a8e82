/**
 * `tokenizerLayer`: a drop-in `effect/ai` `Tokenizer` that counts with a ctxkit counter and truncates pair-safe,
 * keeping the system message and the current request.
 *
 * @since 0.1.0
 */
import { approximateCounter, conversationCost, type Counter, makeCostCache, toCounter } from "@ctxkit/budget"
import { type EffectAiMessage, formats } from "@ctxkit/core"
import { shiftContext } from "@ctxkit/fit"
import * as AiError from "effect/ai/AiError"
import * as Prompt from "effect/ai/Prompt"
import * as Tokenizer from "effect/ai/Tokenizer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import { InvalidEffectAiOption } from "./Errors.ts"
import { describeValue } from "./internal/describe.ts"

/**
 * Options of {@link tokenizerLayer}.
 *
 * @example
 * ```ts
 * import type { TokenizerLayerOptions } from "@ctxkit/effect-ai"
 * import { o200kCounter } from "@ctxkit/budget/o200k"
 *
 * const options: TokenizerLayerOptions = { counter: o200kCounter }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenizerLayerOptions {
  /**
   * What counts the tokens: a `TokenCounter` (`o200kCounter`, `llama3Counter`, …), a message-pricing counter or
   * a plain `(text) => number`. Default: `approximateCounter` from `@ctxkit/budget` (about 4 characters a token).
   * A value that is none of these fails the layer with {@link InvalidEffectAiOption}: a tokenizer that silently
   * counted with another counter would fit to the wrong window.
   */
  readonly counter?: Counter | undefined
}

const MODULE = "@ctxkit/effect-ai"

const isCounter = (value: unknown): value is Counter =>
  Predicate.isFunction(value) ||
  (Predicate.hasProperty(value, "count") && Predicate.isFunction(value.count) &&
    Predicate.hasProperty(value, "id") && Predicate.isString(value.id))

const failure = (method: string, description: string, metadata?: AiError.ProviderMetadata): AiError.AiError =>
  AiError.make({
    module: MODULE,
    method,
    reason: new AiError.InvalidRequestError({
      description,
      ...(metadata === undefined ? {} : { metadata })
    })
  })

/** `Prompt.make`, whose decoding throws on a malformed message, as an Effect failing with `AiError`. */
const toPrompt = (input: Prompt.RawInput, method: string): Effect.Effect<Prompt.Prompt, AiError.AiError> =>
  Effect.try({
    try: () => Prompt.make(input),
    catch: () =>
      AiError.make({
        module: MODULE,
        method,
        reason: new AiError.InvalidUserInputError({
          description: "The prompt given is not a valid effect/ai prompt: pass a string, a Prompt or Prompt messages."
        })
      })
  })

/**
 * The tokenizer service itself: one per layer, with one cost cache, so a message (same object) is counted once
 * however many times it is tokenized or truncated.
 */
const makeService = (counter: Counter): Tokenizer.Service => {
  const cache = makeCostCache()
  const format = formats.effectAi
  return {
    tokenize: (input) =>
      Effect.map(toPrompt(input, "tokenize"), (prompt) => {
        const messages: ReadonlyArray<EffectAiMessage> = prompt.content
        const { total } = conversationCost(messages, { counter, format, cache })
        // ctxkit counters count; they do not hand out token ids. The array's length is the count.
        return Array.from({ length: total }, () => 0)
      }),
    truncate: (input, tokens) =>
      Effect.flatMap(toPrompt(input, "truncate"), (prompt) => {
        const messages: ReadonlyArray<Prompt.Message & EffectAiMessage> = prompt.content
        const result = shiftContext(messages, counter, tokens, { format, cache })
        if (result.fits) return Effect.succeed(Prompt.fromMessages(result.kept))
        // No safe answer: an empty prompt, or one over the limit, must never be sent in its place.
        const why = result.diagnostics.map((d) => d.message).join(" ")
        const budget = Predicate.isNumber(tokens) && Number.isFinite(tokens) ? tokens : describeValue(tokens)
        return Effect.fail(failure(
          "truncate",
          why.length > 0 ? why : `The prompt cannot be truncated to ${describeValue(tokens)} tokens.`,
          { ctxkit: { tokens: budget, protectedTokens: result.tokens } }
        ))
      })
  }
}

/**
 * A drop-in `effect/ai` `Tokenizer` layer whose `truncate` never breaks a conversation.
 *
 * - `tokenize(prompt)` returns as many entries as the prompt costs: each message's text (through
 *   `formats.effectAi`) counted by `counter`, plus 4 tokens of framing per message, exactly what `truncate`
 *   fits to. The entries are placeholders (0): ctxkit counters count, they do not expose token ids.
 * - `truncate(prompt, tokens)` runs `shiftContext` from `@ctxkit/fit` on the prompt's messages: the system
 *   message, pinned messages and the current request (the last user message) are kept, the oldest other
 *   tool-call groups are dropped whole — a tool call never goes without its result, nor a result without its
 *   call — until the prompt costs at most `tokens`. The answer is a `Prompt` of the kept messages, in order, the
 *   same objects.
 * - `effect/ai`'s own `Tokenizer.make` keeps the newest messages that fit instead: it drops the system message
 *   and splits calls from their results, and re-tokenizes every candidate suffix (quadratic). See
 *   `docs/effect-ai.md` for the side-by-side figures.
 *
 * Failures, all `AiError` (the `Tokenizer` interface's error type), reason `InvalidRequestError`: a `tokens`
 * that is not a finite number > 0 (0, negative, NaN, Infinity), and a prompt whose protected messages alone cost
 * more than `tokens` (`metadata.ctxkit.protectedTokens` says how many): no prompt is returned then, because an
 * empty or over-limit prompt is never a safe answer. A malformed prompt fails with `InvalidUserInputError`. A
 * `counter` option that is not a counter fails the layer itself with {@link InvalidEffectAiOption}.
 *
 * Each message is counted once per layer (counts cached by message identity), so re-truncating a growing
 * conversation costs about its new messages.
 *
 * @example
 * ```ts
 * import { tokenizerLayer } from "@ctxkit/effect-ai"
 * import { Prompt, Tokenizer } from "effect/ai"
 * import * as Effect from "effect/Effect"
 *
 * const prompt = Prompt.make([
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "List the files." },
 *   { role: "assistant", content: [{ type: "tool-call", id: "c1", name: "ls", params: {} }] },
 *   { role: "tool", content: [{ type: "tool-result", id: "c1", name: "ls", isFailure: false, result: "a.ts\n".repeat(200) }] },
 *   { role: "user", content: "Now read b.ts." }
 * ])
 * const roles = Effect.gen(function*() {
 *   const tokenizer = yield* Tokenizer.Tokenizer
 *   const truncated = yield* tokenizer.truncate(prompt, 60)
 *   return truncated.content.map((m) => m.role)
 * }).pipe(Effect.provide(tokenizerLayer()))
 * Effect.runSync(roles) // ["system", "user"]: the old question went, then the call with its result
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokenizerLayer = (
  options: TokenizerLayerOptions = {}
): Layer.Layer<Tokenizer.Tokenizer, InvalidEffectAiOption> =>
  Layer.effect(
    Tokenizer.Tokenizer,
    Effect.suspend(() => {
      const given = Predicate.isObject(options) && "counter" in options ? options.counter : undefined
      if (given !== undefined && !isCounter(given)) {
        return Effect.fail(
          new InvalidEffectAiOption({
            option: "counter",
            given: describeValue(given),
            allowed:
              "a TokenCounter, a MessageCounter or a (text) => number function (or leave it out for the approximate counter)"
          })
        )
      }
      return Effect.succeed(makeService(given === undefined ? approximateCounter : toCounter(given)))
    })
  )
