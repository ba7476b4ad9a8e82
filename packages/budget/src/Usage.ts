/**
 * Reading the usage a provider reports, whatever its shape, into one normalized record. The prompt a server
 * read is input + cache read + cache write: providers that report cached input separately (Anthropic, Bedrock)
 * are summed, providers whose input already includes it (OpenAI, Gemini, AI SDK 6, `effect/ai`) are not —
 * the two classic mistakes being cached input left out and cached input counted twice.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

// Counts beyond 2^53 are not token counts; refusing them also keeps every sum below finite.
const Count = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER))
const Field = Schema.optional(Schema.NullOr(Count))
const Details = <F extends Schema.Struct.Fields>(fields: F) => Schema.optional(Schema.NullOr(Schema.Struct(fields)))

const RawUsage = Schema.Struct({
  // OpenAI Chat Completions (prompt_tokens includes the cached part).
  prompt_tokens: Field,
  completion_tokens: Field,
  prompt_tokens_details: Details({ cached_tokens: Field }),
  // OpenAI Responses (input_tokens includes the cached part) and Anthropic Messages (it does not).
  input_tokens: Field,
  output_tokens: Field,
  input_tokens_details: Details({ cached_tokens: Field }),
  cache_creation_input_tokens: Field,
  cache_read_input_tokens: Field,
  // effect/ai `Response.Usage` (objects), AI SDK 5 and 6 `LanguageModelUsage` (numbers), flat records.
  inputTokens: Schema.optional(
    Schema.NullOr(
      Schema.Union([Count, Schema.Struct({ uncached: Field, total: Field, cacheRead: Field, cacheWrite: Field })])
    )
  ),
  outputTokens: Schema.optional(
    Schema.NullOr(Schema.Union([Count, Schema.Struct({ total: Field, text: Field, reasoning: Field })]))
  ),
  inputTokenDetails: Details({ noCacheTokens: Field, cacheReadTokens: Field, cacheWriteTokens: Field }),
  cachedInputTokens: Field,
  cacheReadTokens: Field,
  cacheWriteTokens: Field,
  cacheReadInputTokens: Field,
  cacheWriteInputTokens: Field,
  // Ollama's native API.
  prompt_eval_count: Field,
  eval_count: Field,
  // Gemini `usageMetadata` (promptTokenCount includes the cached part).
  promptTokenCount: Field,
  candidatesTokenCount: Field,
  thoughtsTokenCount: Field,
  cachedContentTokenCount: Field
})

const Wrapper = Schema.Struct({
  usage: Schema.optional(Schema.Unknown),
  usageMetadata: Schema.optional(Schema.Unknown)
})

const decodeRaw = Schema.decodeUnknownOption(RawUsage)
const decodeWrapper = Schema.decodeUnknownOption(Wrapper)

/**
 * The shape a usage record was read as.
 *
 * @example
 * ```ts
 * import { readUsage, type UsageShape } from "@ctxkit/budget/Usage"
 *
 * const shape: UsageShape = readUsage({ prompt_tokens: 10, completion_tokens: 2 }).shape // "openai-chat"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type UsageShape =
  | "openai-chat"
  | "openai-responses"
  | "anthropic"
  | "ai-sdk"
  | "effect-ai"
  | "ollama"
  | "gemini"
  | "separate-cache"
  | "none"

/**
 * Usage as reported, normalized: the uncached input, the cached input read and written, the output, and
 * `prompt = input + cacheRead + cacheWrite` — everything the server read for this request. All zero (shape
 * `none`) when nothing usable was reported.
 *
 * @example
 * ```ts
 * import { ReportedUsage } from "@ctxkit/budget/Usage"
 *
 * const usage = new ReportedUsage({ input: 20, cacheRead: 3_000, cacheWrite: 500, output: 90, prompt: 3_520, shape: "anthropic" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class ReportedUsage extends Schema.Class<ReportedUsage>("@ctxkit/budget/ReportedUsage")({
  /** Input tokens not served from or written to a cache. */
  input: Schema.Number,
  /** Input tokens read from the provider's prompt cache. */
  cacheRead: Schema.Number,
  /** Input tokens written to the provider's prompt cache. */
  cacheWrite: Schema.Number,
  /** Output tokens (reasoning included where the provider counts it there). */
  output: Schema.Number,
  /** `input + cacheRead + cacheWrite`: the prompt the server read. */
  prompt: Schema.Number,
  /** The shape it was read as. */
  shape: Schema.Literals([
    "openai-chat",
    "openai-responses",
    "anthropic",
    "ai-sdk",
    "effect-ai",
    "ollama",
    "gemini",
    "separate-cache",
    "none"
  ])
}) {}

const NONE = new ReportedUsage({ input: 0, cacheRead: 0, cacheWrite: 0, output: 0, prompt: 0, shape: "none" })

type Raw = typeof RawUsage.Type

const n = (value: number | null | undefined): number => value ?? 0

/** Usage where the prompt total already includes the cached part. */
const included = (shape: ReportedUsage["shape"], prompt: number, cached: number, output: number): ReportedUsage =>
  new ReportedUsage({
    input: Math.max(0, prompt - cached),
    cacheRead: Math.min(cached, prompt),
    cacheWrite: 0,
    output,
    prompt,
    shape
  })

/** Usage where cached input is reported next to the uncached input. */
const separate = (
  shape: ReportedUsage["shape"],
  input: number,
  cacheRead: number,
  cacheWrite: number,
  output: number
): ReportedUsage =>
  new ReportedUsage({ input, cacheRead, cacheWrite, output, prompt: input + cacheRead + cacheWrite, shape })

const fromRaw = (u: Raw): ReportedUsage | undefined => {
  const inTok = u.inputTokens
  const outTok = u.outputTokens
  const outputNumber = typeof outTok === "number" ? outTok : 0
  // effect/ai: `{ inputTokens: { uncached, total, cacheRead, cacheWrite }, outputTokens: { total, text, reasoning } }`.
  if ((typeof inTok === "object" && inTok !== null) || (typeof outTok === "object" && outTok !== null)) {
    const i = typeof inTok === "object" && inTok !== null ? inTok : {}
    const o = typeof outTok === "object" && outTok !== null ? outTok : {}
    const output = o.total ?? n(o.text) + n(o.reasoning)
    const read = n(i.cacheRead)
    const write = n(i.cacheWrite)
    if (i.total !== undefined && i.total !== null) {
      const cached = Math.min(i.total, read + write)
      return new ReportedUsage({
        input: i.total - cached,
        cacheRead: Math.min(read, cached),
        cacheWrite: cached - Math.min(read, cached),
        output,
        prompt: i.total,
        shape: "effect-ai"
      })
    }
    return separate("effect-ai", n(i.uncached), read, write, output)
  }
  // AI SDK 6: `inputTokens` is the total; `inputTokenDetails` splits it.
  const details = u.inputTokenDetails
  if (details !== undefined && details !== null) {
    const read = n(details.cacheReadTokens)
    const write = n(details.cacheWriteTokens)
    if (typeof inTok === "number") {
      const cached = Math.min(inTok, read + write)
      return new ReportedUsage({
        input: inTok - cached,
        cacheRead: Math.min(read, cached),
        cacheWrite: cached - Math.min(read, cached),
        output: outputNumber,
        prompt: inTok,
        shape: "ai-sdk"
      })
    }
    return separate("ai-sdk", n(details.noCacheTokens), read, write, outputNumber)
  }
  if (u.input_tokens !== undefined && u.input_tokens !== null) {
    // Anthropic: cache reads and writes are reported next to input_tokens, not inside it.
    if (u.input_tokens_details === undefined || u.input_tokens_details === null) {
      return separate(
        "anthropic",
        u.input_tokens,
        n(u.cache_read_input_tokens),
        n(u.cache_creation_input_tokens),
        n(u.output_tokens)
      )
    }
    return included("openai-responses", u.input_tokens, n(u.input_tokens_details.cached_tokens), n(u.output_tokens))
  }
  if (u.prompt_tokens !== undefined && u.prompt_tokens !== null) {
    return included("openai-chat", u.prompt_tokens, n(u.prompt_tokens_details?.cached_tokens), n(u.completion_tokens))
  }
  if (u.prompt_eval_count !== undefined && u.prompt_eval_count !== null) {
    return included("ollama", u.prompt_eval_count, 0, n(u.eval_count))
  }
  if (u.promptTokenCount !== undefined && u.promptTokenCount !== null) {
    return included(
      "gemini",
      u.promptTokenCount,
      n(u.cachedContentTokenCount),
      n(u.candidatesTokenCount) + n(u.thoughtsTokenCount)
    )
  }
  if (typeof inTok === "number") {
    const read = n(u.cacheReadTokens) + n(u.cacheReadInputTokens)
    const write = n(u.cacheWriteTokens) + n(u.cacheWriteInputTokens)
    // A flat record with cache fields next to inputTokens (Bedrock Converse, hand-normalized usage).
    if (read + write > 0) return separate("separate-cache", inTok, read, write, outputNumber)
    // AI SDK 5: `cachedInputTokens` is part of `inputTokens` for OpenAI, but was reported next to it for
    // Anthropic. Only a cached count larger than the input proves it was not included.
    const cached = n(u.cachedInputTokens)
    if (cached > inTok) return separate("ai-sdk", inTok, cached, 0, outputNumber)
    return included("ai-sdk", inTok, cached, outputNumber)
  }
  return undefined
}

/**
 * Reads a usage record of any supported shape: OpenAI Chat Completions (`prompt_tokens`), OpenAI Responses
 * (`input_tokens` + `input_tokens_details`), Anthropic (`input_tokens` + `cache_read_input_tokens` +
 * `cache_creation_input_tokens`), Vercel AI SDK 5 and 6 `LanguageModelUsage`, `effect/ai` `Response.Usage`,
 * Ollama (`prompt_eval_count`), Gemini `usageMetadata`, and flat records with separate cache fields (Bedrock
 * Converse). A response object carrying `usage` or `usageMetadata` is read through. Anything unreadable (a
 * negative or non-numeric count, no known field) gives the `none` usage: all zero, which never calibrates.
 *
 * @example
 * ```ts
 * import { readUsage } from "@ctxkit/budget/Usage"
 *
 * // Anthropic reports cached input next to input_tokens: the prompt is their sum.
 * readUsage({ input_tokens: 20, cache_read_input_tokens: 3_000, cache_creation_input_tokens: 500, output_tokens: 90 }).prompt // 3520
 * // OpenAI includes cached tokens in prompt_tokens: not counted twice.
 * readUsage({ prompt_tokens: 3_520, completion_tokens: 90, prompt_tokens_details: { cached_tokens: 3_000 } }).prompt // 3520
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const readUsage = (usage: unknown): ReportedUsage => {
  const raw = decodeRaw(usage)
  if (Option.isSome(raw)) {
    const read = fromRaw(raw.value)
    if (read !== undefined) return read
  }
  const wrapper = decodeWrapper(usage)
  if (Option.isSome(wrapper)) {
    const inner = wrapper.value.usage ?? wrapper.value.usageMetadata
    if (inner !== undefined && inner !== usage) {
      const read = Option.flatMap(decodeRaw(inner), (value) => Option.fromUndefinedOr(fromRaw(value)))
      if (Option.isSome(read)) return read.value
    }
  }
  return NONE
}

/**
 * The prompt tokens a response reports: input + cache read + cache write, whatever the provider's shape (OpenAI,
 * Anthropic, Bedrock, Gemini, the AI SDK, `effect/ai`; `readUsage` in `@ctxkit/budget/Usage` gives
 * every part); 0 when it reports nothing usable.
 *
 * @example
 * ```ts
 * import { promptTokens } from "@ctxkit/budget"
 *
 * promptTokens({ prompt_tokens: 3_725, completion_tokens: 8 }) // 3725
 * promptTokens({ inputTokens: { uncached: 20, total: 3_520, cacheRead: 3_000, cacheWrite: 500 }, outputTokens: { total: 90 } }) // 3520
 * promptTokens(undefined) // 0
 * ```
 *
 * @category counting
 * @since 0.1.0
 */
export const promptTokens = (usage: unknown): number => readUsage(usage).prompt
