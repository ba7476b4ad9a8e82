/**
 * The first and cheapest step: cap each tool result when it is produced. A result may take at most 20% of the
 * input room (`available`) and at most `maxToolResultTokens`; over that, its head and its tail are kept around a
 * visible marker that says how much was left out. Alisio's character-based ingest cap is a preset.
 *
 * @since 0.1.0
 */
import type { Counter } from "@ctxkit/budget"
import { type FormatInput, formats, type MessageFormat } from "@ctxkit/core"
import { describeValue } from "@ctxkit/core/Describe"
import { readSettings, setting, type SettingAdjustment } from "@ctxkit/core/Settings"
import { pairSafeEnd } from "@ctxkit/core/TextCut"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { type CapDiagnostic, CapLimitTooSmall, CapOptionAdjusted, CapOptionInvalid } from "./Diagnostics.ts"
import { Tally } from "./internal/capCounting.ts"
import { type Composed, fitWithin, lineBreaks } from "./internal/capCut.ts"
import { optionsFirst } from "./internal/dual.ts"

export { type CapDiagnostic, CapLimitTooSmall, CapOptionAdjusted, CapOptionInvalid } from "./Diagnostics.ts"

/**
 * Options of the token cap: the input room (`available`, from `available(window, maxTokens)` in
 * `@ctxkit/budget`), the largest share of it one result may take (default 0.2), the absolute cap (default
 * 25,000 tokens) and the counter (a `TokenCounter` or a plain `(text) => number`; default `approximateCounter`).
 * The limit is `floor(min(share × available, maxToolResultTokens))`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenCapOptions {
  /** Tokens available for the input (window minus the reply reserve): a finite number > 0. */
  readonly available: number
  /**
   * The most tokens a result may take, whatever the window: a number > 0 (`Infinity` leaves only the share).
   * Default 25,000, also used (with a {@link CapOptionAdjusted}) for a value that is not such a number.
   */
  readonly maxToolResultTokens?: number | undefined
  /**
   * The largest fraction of `available` a result may take, in (0, 1]. Default 0.2, also used (with a
   * {@link CapOptionAdjusted}) for a value outside that range.
   */
  readonly share?: number | undefined
  /** How to count. Default `approximateCounter`; a counter that throws or returns NaN falls back to it. */
  readonly counter?: Counter | undefined
}

/**
 * Options of a character cap: results whose size (in UTF-16 units of the text, or of its JSON string when
 * `measure` is `"json"`) is over `overChars` become their first `keepChars` characters followed by `marker`.
 * A value that cannot be used is replaced by that of {@link ingestCharCap} (48,000, 40,000, its marker, `"text"`
 * for `measure`) and reported with a {@link CapOptionAdjusted}.
 *
 * @category models
 * @since 0.1.0
 */
export interface CharCapOptions {
  /** Results over this many characters are cut: a finite number ≥ 0. */
  readonly overChars: number
  /** How many characters a cut result keeps from its start: a finite number ≥ 0. */
  readonly keepChars: number
  /** Appended to a cut result, verbatim. */
  readonly marker: string
  /** `"text"` (default) measures `text.length`; `"json"` measures `JSON.stringify(text).length`. */
  readonly measure?: "text" | "json" | undefined
}

/**
 * The ingest cap by characters (Alisio's default): a result over 48,000 characters of JSON (its `JSON.stringify` length, quotes and escapes
 * included) becomes its first 40,000 characters followed by `\n[tool output truncated]`.
 *
 * @example
 * ```ts
 * import { ingestCharCap, capToolResult } from "@ctxkit/compaction"
 *
 * const result = capToolResult("x".repeat(60_000), ingestCharCap)
 * result.text.length // 40024: 40,000 characters and the 24-character marker
 * result.text.endsWith("\n[tool output truncated]") // true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const ingestCharCap: CharCapOptions = {
  overChars: 48_000,
  keepChars: 40_000,
  marker: "\n[tool output truncated]",
  measure: "json"
}

/**
 * A capped (or untouched) tool result: the text to send, whether it was cut, what was left out, the figures behind
 * the decision and any diagnostics.
 *
 * - `omittedChars`: UTF-16 units left out; `omittedLines`: line breaks inside the part left out — exactly the
 *   lines left out when the cut falls on line boundaries.
 * - `keptHead` / `keptTail`: how many characters of the input's start and end the text keeps: `text` starts with
 *   `input.slice(0, keptHead)` and ends with `input.slice(input.length - keptTail)`.
 * - Token cap: `limitTokens`, `tokensBefore` and (when cut) `tokensAfter`, with the counter given. Character cap:
 *   `measuredChars`, the size compared with `overChars`.
 *
 * @category models
 * @since 0.1.0
 */
export interface CappedResult {
  readonly text: string
  readonly capped: boolean
  readonly limitTokens?: number | undefined
  readonly omittedChars: number
  readonly omittedLines: number
  readonly keptHead: number
  readonly keptTail: number
  readonly tokensBefore?: number | undefined
  readonly tokensAfter?: number | undefined
  readonly measuredChars?: number | undefined
  readonly diagnostics: ReadonlyArray<CapDiagnostic>
}

type Capper = (text: string, tally: Tally) => CappedResult

const Chars = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
const CHARS = "a finite number of characters, 0 or more"

// The cap options that have a default: a bad value is replaced by it and reported (the one bad-options policy).
const tokenFields = {
  share: setting(Schema.Number.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1)), {
    accepted: "a fraction greater than 0 and at most 1",
    default: 0.2
  }),
  maxToolResultTokens: setting(Schema.Number.check(Schema.isGreaterThan(0)), {
    accepted: "a number of tokens greater than 0",
    default: 25_000
  })
}
const charFields = {
  overChars: setting(Chars, { accepted: CHARS, default: ingestCharCap.overChars }),
  keepChars: setting(Chars, { accepted: CHARS, default: ingestCharCap.keepChars }),
  marker: setting(Schema.String, { accepted: "a string", default: ingestCharCap.marker }),
  measure: setting(Schema.Literals(["text", "json"]), { accepted: "\"text\" or \"json\"", default: "text" })
}

const shown = (value: unknown): string => Predicate.isString(value) ? JSON.stringify(value) : describeValue(value)

const adjustedOf = (adjusted: ReadonlyArray<SettingAdjustment>): Array<CapDiagnostic> =>
  adjusted.map((a) =>
    new CapOptionAdjusted({
      option: a.option,
      given: describeValue(a.given),
      accepted: a.accepted,
      used: shown(a.used)
    })
  )

const isChars = (value: unknown): value is number => Predicate.isNumber(value) && value >= 0 && Number.isFinite(value)

const unchanged = (text: string, diagnostics: ReadonlyArray<CapDiagnostic>, extra: Partial<CappedResult> = {}) => ({
  text,
  capped: false,
  omittedChars: 0,
  omittedLines: 0,
  keptHead: typeof text === "string" ? text.length : 0,
  keptTail: 0,
  ...extra,
  diagnostics
})

const invalidOption = (option: string, given: unknown): CapOptionInvalid =>
  new CapOptionInvalid({ option, given: describeValue(given) })

// Products such as 0.29 × 100 come out as 28.999999999999996: round far below a token before flooring.
const limitOf = (share: number, available: number, max: number): number =>
  Math.floor(Math.round(Math.min(share * available, max) * 1e6) / 1e6)

/** A capper and the diagnostics of the options replaced by their defaults; or the refusal. */
interface Cap {
  readonly capper: Capper
  readonly adjusted: ReadonlyArray<CapDiagnostic>
}

const tokenCapper = (options: TokenCapOptions): Cap | CapOptionInvalid => {
  const { available } = options
  // `available` has no safe default: a wrong room would cut too much or too little.
  if (!Predicate.isNumber(available) || !(available > 0) || !Number.isFinite(available)) {
    return invalidOption("available", available)
  }
  const { adjusted, settings } = readSettings(tokenFields, options)
  const limit = limitOf(settings.share, available, settings.maxToolResultTokens)
  const capper: Capper = (text, tally) => {
    const tokensBefore = tally.count(text)
    if (tokensBefore <= limit) return unchanged(text, [], { limitTokens: limit, tokensBefore })
    const fitted = fitWithin(text, tokensBefore, limit, tally)
    const diagnostics: Array<CapDiagnostic> = []
    if (fitted.markerTooBig !== undefined) {
      diagnostics.push(new CapLimitTooSmall({ limit, markerTokens: fitted.markerTooBig }))
    }
    return {
      ...fromComposed(fitted.composed),
      limitTokens: limit,
      tokensBefore,
      tokensAfter: fitted.tokens,
      diagnostics
    }
  }
  return { capper, adjusted: adjustedOf(adjusted) }
}

const fromComposed = (composed: Composed) => ({
  text: composed.text,
  capped: true,
  omittedChars: composed.omittedChars,
  omittedLines: composed.omittedLines,
  keptHead: composed.head,
  keptTail: composed.tail
})

const charCapper = (options: CharCapOptions): Cap => {
  const { adjusted, settings } = readSettings(charFields, options)
  const { marker, measure, overChars } = settings
  const keep = Math.floor(settings.keepChars)
  const capper: Capper = (text) => {
    const measuredChars = measure === "json" ? JSON.stringify(text).length : text.length
    // Nothing would be left out: appending the marker would claim a cut that did not happen.
    if (measuredChars <= overChars || keep >= text.length) return unchanged(text, [], { measuredChars })
    const end = pairSafeEnd(text, keep)
    return {
      text: text.slice(0, end) + marker,
      capped: true,
      omittedChars: text.length - end,
      omittedLines: lineBreaks(text, end),
      keptHead: end,
      keptTail: 0,
      measuredChars,
      diagnostics: []
    }
  }
  return { capper, adjusted: adjustedOf(adjusted) }
}

const capperOf = (options: TokenCapOptions | CharCapOptions): Cap | CapOptionInvalid => {
  if (!Predicate.isObject(options as unknown)) return invalidOption("options", options)
  return "overChars" in options ? charCapper(options) : tokenCapper(options)
}

const counterOption = (options: TokenCapOptions | CharCapOptions): TokenCapOptions["counter"] =>
  Predicate.isObject(options as unknown) && "counter" in options ? options.counter : undefined

/**
 * Caps one tool result.
 *
 * **Token cap** ({@link TokenCapOptions}): the limit is `floor(min(share × available, maxToolResultTokens))`
 * (share default 0.2, cap default 25,000). A result that counts within it is returned as the same string.
 * Otherwise about two thirds of the kept characters come from its start and one third from its end, around a
 * marker line such as `[… 51,840 characters (1,296 lines) left out: tool result capped at 614 tokens …]`. Each cut
 * moves to a line boundary when that gives up at most 20% of its side, and never splits a surrogate pair. The
 * whole text, marker included, counts within the limit with the counter given: the size is first estimated from
 * the result's own characters per token, then shrunk in at most 16 rounds that each keep at most 90% of the last
 * (linear work whatever the counter does). When no round fits, the marker alone is sent; when even the marker is
 * over the limit, the longest start that fits, with no marker, and a {@link CapLimitTooSmall} diagnostic.
 *
 * **Character cap** ({@link CharCapOptions}, e.g. {@link ingestCharCap}): over `overChars`, the first `keepChars`
 * characters (one fewer rather than split a surrogate pair) followed by the marker, verbatim. A result that keeps
 * all its characters is left as it is rather than marked as cut.
 *
 * Never throws. An option that has a default (`share`, `maxToolResultTokens`, the character cap's options) and a
 * value that cannot be used is replaced by its default, with a {@link CapOptionAdjusted} diagnostic; an unusable
 * `available` (no safe default) or options that are not an object leave the text as it is with a
 * {@link CapOptionInvalid}. A counter that throws or returns NaN is replaced by the approximate count with a
 * `CounterFailed` diagnostic.
 *
 * @example
 * ```ts
 * import { capToolResult } from "@ctxkit/compaction"
 *
 * const log = Array.from({ length: 2_000 }, (_, i) => `line ${i}: ok`).join("\n")
 * const result = capToolResult(log, { available: 3_072 }) // limit floor(0.2 × 3,072) = 614 tokens
 * result.capped // true
 * const within = (result.tokensAfter ?? 0) <= 614 // true: the whole text counts within the limit
 * result.text.startsWith("line 0: ok\n") // true
 * result.text.endsWith("line 1999: ok") // true
 * capToolResult("short", { available: 3_072 }).text // "short"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const capToolResult = (text: string, options: TokenCapOptions | CharCapOptions): CappedResult => {
  if (typeof text !== "string") return unchanged(text, [invalidOption("text", text)])
  const cap = capperOf(options)
  if (cap instanceof CapOptionInvalid) return unchanged(text, [cap])
  const tally = new Tally(counterOption(options))
  const result = cap.capper(text, tally)
  const failures = tally.diagnostics()
  if (cap.adjusted.length === 0 && failures.length === 0) return result
  return { ...result, diagnostics: [...cap.adjusted, ...result.diagnostics, ...failures] }
}

/**
 * One tool result {@link capToolResults} cut: where it is, the call it answers, and what was left out.
 *
 * @category models
 * @since 0.1.0
 */
export interface CappedToolResult {
  /** Index of the message carrying the result. */
  readonly index: number
  /** The call the result answers. */
  readonly callId: string
  /** Characters left out. */
  readonly omittedChars: number
  /** Line breaks left out. */
  readonly omittedLines: number
}

/**
 * Options of {@link capToolResults}: the cap (token or character options), the wire format (default
 * `formats.auto`) and `from`, the index of the first message to look at (the new ones; default 0).
 *
 * @category models
 * @since 0.1.0
 */
export type CapToolResultsOptions<M> = (TokenCapOptions | CharCapOptions) & {
  readonly format?: MessageFormat<M> | undefined
  readonly from?: number | undefined
}

/**
 * What {@link capToolResults} returns: the messages (the same array when nothing was cut), the results cut, and
 * any diagnostics.
 *
 * @category models
 * @since 0.1.0
 */
export interface CapToolResultsResult<M> {
  readonly messages: ReadonlyArray<M>
  readonly capped: ReadonlyArray<CappedToolResult>
  readonly diagnostics: ReadonlyArray<CapDiagnostic>
}

/**
 * Caps every tool result of the messages at index `from` or later (default 0: all), as {@link capToolResult} does,
 * through the format's `withResultText`: only the texts of cut results change; ids, roles, order, other parts and
 * untouched messages (same objects) stay. A message answering several calls has each result capped on its own
 * (a call id repeated inside one message is capped once). Returns the same array when nothing was cut. Never
 * throws, never mutates its input.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { capToolResults } from "@ctxkit/compaction"
 * import { formats } from "@ctxkit/core"
 *
 * const messages = [
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "cat", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "0123456789\n".repeat(1_000) }
 * ]
 * const result = capToolResults(messages, { available: 3_072, format: formats.openaiChat })
 * result.capped[0]?.callId // "c1"
 * result.messages[0] === messages[0] // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const capToolResults: {
  <M>(options: CapToolResultsOptions<M> & { readonly format: MessageFormat<M> }): (
    messages: ReadonlyArray<M>
  ) => CapToolResultsResult<M>
  (options: CapToolResultsOptions<unknown>): <M>(messages: ReadonlyArray<M>) => CapToolResultsResult<M>
  <M extends FormatInput<F>, F>(
    messages: ReadonlyArray<M>,
    options: CapToolResultsOptions<F> & { readonly format: MessageFormat<F> }
  ): CapToolResultsResult<M>
  <M>(messages: ReadonlyArray<M>, options: CapToolResultsOptions<NoInfer<M>>): CapToolResultsResult<M>
} = dual(optionsFirst, <M>(messages: ReadonlyArray<M>, options: CapToolResultsOptions<M>): CapToolResultsResult<M> => {
  const cap = capperOf(options)
  if (cap instanceof CapOptionInvalid) return { messages, capped: [], diagnostics: [cap] }
  const { capper } = cap
  const diagnostics: Array<CapDiagnostic> = [...cap.adjusted]
  const format = options.format ?? (formats.auto as MessageFormat<M>)
  const given = options.from ?? 0
  let from = 0
  if (isChars(given)) from = Math.ceil(given)
  else diagnostics.push(invalidOption("from", given))
  const tally = new Tally(counterOption(options))
  const capped: Array<CappedToolResult> = []
  let out: Array<M> | undefined
  let tooSmall: CapLimitTooSmall | undefined
  for (let index = from; index < messages.length; index++) {
    const original = messages[index] as M
    let current = original
    const seen = new Set<string>()
    for (const result of format.toolResults(original)) {
      if (seen.has(result.callId)) continue
      seen.add(result.callId)
      const cut = capper(result.text, tally)
      if (!cut.capped) continue
      const next = format.withResultText(current, result.callId, cut.text)
      if (next === current) continue
      current = next
      capped.push({ index, callId: result.callId, omittedChars: cut.omittedChars, omittedLines: cut.omittedLines })
      for (const d of cut.diagnostics) if (d._tag === "CapLimitTooSmall") tooSmall ??= d
    }
    if (current !== original) {
      out ??= messages.slice()
      out[index] = current
    }
  }
  if (tooSmall !== undefined) diagnostics.push(tooSmall)
  diagnostics.push(...tally.diagnostics())
  return { messages: out ?? messages, capped, diagnostics }
})
