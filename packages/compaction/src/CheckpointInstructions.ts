/**
 * What the summarizer is asked: the checkpoint instructions (its system text) and the summary request built
 * from them and the transcript.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import { optionsFirst } from "./internal/dual.ts"
import { serializeForSummary, type SerializeOptions } from "./SerializeForSummary.ts"
import type { SummaryRequest } from "./Summarizer.ts"

/**
 * Options of {@link checkpointInstructions}: what plugins add to the summarizer call (`beforeCompact`).
 *
 * @category models
 * @since 0.1.0
 */
export interface InstructionsOptions {
  /** Extra instructions, appended as paragraphs in order (trimmed; blank ones dropped). */
  readonly instructions?: ReadonlyArray<string> | undefined
  /**
   * Extra top-level fields of the JSON reply, name → description (the description is written as given, usually
   * a type and what goes there). `checkpoint` and blank names are ignored.
   */
  readonly fields?: Readonly<Record<string, string>> | undefined
}

const CHECKPOINT_SHAPE = "{\"checkpoint\":{\"goal\":string,\"instructions\":string[],\"discoveries\":string[]," +
  "\"accomplished\":string[],\"currentState\":string,\"nextSteps\":string[],\"relevantFiles\":string[]}"

const GUIDANCE = "The agent will resume from this checkpoint alone: the messages it replaces will no longer be sent. " +
  "Answer with ONLY a JSON object of exactly this shape, with nothing before or after it:"

const RULES = [
  "\"goal\" is what the session is trying to achieve; \"instructions\" are the instructions and constraints the user " +
  "gave; \"discoveries\" are facts learned along the way; \"accomplished\" is work already done; \"currentState\" " +
  "is where things stand now; \"nextSteps\" is what remains; \"relevantFiles\" are the files that matter.",
  "Copy file paths, symbols, commands, tool call ids and error messages exactly as they appear in the transcript. " +
  "Write only what the transcript shows: invent nothing. Be concise."
].join("\n")

/**
 * The system text of the summarizer call: it describes the task, asks for ONLY a JSON object of exactly this
 * shape (one line), then the rules, then the plugins' instructions as paragraphs:
 *
 * `{"checkpoint":{"goal":string,"instructions":string[],"discoveries":string[],"accomplished":string[],"currentState":string,"nextSteps":string[],"relevantFiles":string[]}`
 * followed by `,"<field>": <description>` for each extra field (in the record's order), then `}`.
 *
 * The rules say that `instructions` are the user's instructions and constraints, that paths, symbols,
 * commands, tool call ids and errors are copied exactly, that nothing is invented, and to be concise.
 * Paragraphs are separated by a blank line.
 *
 * @example
 * ```ts
 * import { checkpointInstructions } from "@ctxkit/compaction"
 *
 * const system = checkpointInstructions({ fields: { memory: "string[]" } })
 * system.includes("\"relevantFiles\":string[]},\"memory\": string[]}") // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const checkpointInstructions = (options: InstructionsOptions = {}): string => {
  let shape = CHECKPOINT_SHAPE
  for (const [name, description] of Object.entries(options.fields ?? {})) {
    if (name === "checkpoint" || name.trim().length === 0) continue
    shape += `,${JSON.stringify(name)}: ${String(description)}`
  }
  shape += "}"
  const paragraphs = [
    "You turn the transcript of an agent session into a checkpoint.",
    `${GUIDANCE}\n${shape}`,
    RULES
  ]
  for (const extra of options.instructions ?? []) {
    const text = typeof extra === "string" ? extra.trim() : ""
    if (text.length > 0) paragraphs.push(text)
  }
  return paragraphs.join("\n\n")
}

/**
 * The first line of the summarizer's user message.
 *
 * @example
 * ```ts
 * import { SUMMARY_PROMPT } from "@ctxkit/compaction/CheckpointInstructions"
 *
 * SUMMARY_PROMPT // "Checkpoint this session transcript."
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARY_PROMPT = "Checkpoint this session transcript."

/**
 * Default output budget of the summarizer call, in tokens: 16,000 (`compaction.maxOutputTokens`), independent of
 * the agent loop's own output limit — a summary must cover the whole transcript.
 *
 * @example
 * ```ts
 * import { DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS } from "@ctxkit/compaction/CheckpointInstructions"
 *
 * DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS // 16000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS = 16_000

/**
 * Options of {@link summaryRequest}: the transcript's (format, item limit), the instructions' (plugin
 * instructions and fields), the user's focus and the output budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummaryRequestOptions<M> extends SerializeOptions<M>, InstructionsOptions {
  /** What the user asked the summary to focus on (`/compact <focus>`); trimmed, ignored when blank. */
  readonly focus?: string | undefined
  /**
   * Output budget of the call in tokens (default {@link DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS}). A finite number ≥ 1,
   * floored; anything else means the default.
   */
  readonly maxOutputTokens?: number | undefined
}

const CLOSING_TAG = /<\/transcript>/gi

/**
 * The summarizer call for `messages` (the span being summarized): system = {@link checkpointInstructions};
 * prompt = `Checkpoint this session transcript.`, then — when `focus` is not blank —
 * `\n\nAdditional focus requested by the user: <focus trimmed>`, then `\n\n<transcript>\n`, the
 * {@link serializeForSummary} transcript, and `\n</transcript>`. No tools. A `</transcript>` written inside a
 * message (a tool result that prints this very prompt, say) is sent as `<\/transcript>`, so no message can close the
 * transcript early and pass itself off as instructions.
 *
 * @example
 * ```ts
 * import { summaryRequest } from "@ctxkit/compaction/CheckpointInstructions"
 *
 * const request = summaryRequest([{ role: "user", content: "Migrate the users table." }], { focus: " the schema " })
 * request.prompt
 * // "Checkpoint this session transcript.\n\nAdditional focus requested by the user: the schema\n\n<transcript>\nUSER: Migrate the users table.\n</transcript>"
 * request.maxOutputTokens // 16000
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const summaryRequest: {
  <M>(options: SummaryRequestOptions<M>): (messages: ReadonlyArray<M>) => SummaryRequest
  <M>(messages: ReadonlyArray<M>, options?: SummaryRequestOptions<NoInfer<M>>): SummaryRequest
} = dual(
  optionsFirst,
  <M>(messages: ReadonlyArray<M>, options: SummaryRequestOptions<NoInfer<M>> = {}): SummaryRequest => {
    const focus = typeof options.focus === "string" ? options.focus.trim() : ""
    const requested = options.maxOutputTokens
    const maxOutputTokens = typeof requested === "number" && Number.isFinite(requested) && requested >= 1
      ? Math.floor(requested)
      : DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS
    return {
      system: checkpointInstructions(options),
      prompt: SUMMARY_PROMPT +
        (focus.length > 0 ? `\n\nAdditional focus requested by the user: ${focus}` : "") +
        `\n\n<transcript>\n${
          serializeForSummary(messages, options).replace(CLOSING_TAG, "<\\/transcript>")
        }\n</transcript>`,
      maxOutputTokens
    }
  }
)
