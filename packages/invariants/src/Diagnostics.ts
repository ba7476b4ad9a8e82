/**
 * What the invariants package reports instead of failing: from `buildInvariants`, a setting out of range and the
 * value used instead, or a part of the sources that was left out because it does not have the documented shape;
 * from `acceptQuotes`, each quote it did not keep. The block is rebuilt for every request, so a bad setting or
 * source must never stop a request: it is corrected or left out, and said so here. Every diagnostic has a stable `_tag` and a `message` that says what to do.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { INVARIANTS_LIMITS } from "./Policy.ts"

const { min, max } = INVARIANTS_LIMITS.maxChars

/**
 * `maxChars` was not an integer between 1,000 and 20,000: `used` is what the block was built with instead
 * (the default 4,000 for a value that is not a finite number, the nearest bound for one out of range, the
 * integer part of a fraction). `given` is the value as text (`"NaN"`, `"500"`, `"Infinity"`).
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class MaxCharsAdjusted extends Schema.TaggedClass<MaxCharsAdjusted>("@ctxkit/invariants/MaxCharsAdjusted")(
  "MaxCharsAdjusted",
  {
    /** The value given, as text. */
    given: Schema.String,
    /** The limit the block was built with. */
    used: Schema.Number
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `context.invariants.maxChars = ${this.given} is out of range; used ${this.used} instead. Set it to an integer between ${min} and ${max} (default ${INVARIANTS_LIMITS.maxChars.default}).`
  }
}

/**
 * The `maintainer` option was empty, longer than 64 characters, or had a control character, a line break,
 * `<` or `>`, any of which could break the block's header: the default `ctxkit` was written instead.
 * `given` is the value as a JSON string.
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class MaintainerAdjusted
  extends Schema.TaggedClass<MaintainerAdjusted>("@ctxkit/invariants/MaintainerAdjusted")("MaintainerAdjusted", {
    /** The value given, as a JSON string (or a description when it was not a string). */
    given: Schema.String,
    /** The name written instead. */
    used: Schema.String
  })
{
  /** What happened and what to do about it. */
  get message(): string {
    return `The invariants maintainer name ${this.given} cannot be written in the block header; used "${this.used}" instead. Pass 1 to 64 characters with no control characters, line breaks, "<" or ">".`
  }
}

/**
 * Why a part of the sources was left out of the block.
 *
 * @category models
 * @since 0.1.0
 */
export type SourceProblem = typeof SourceIgnored.fields.problem.Type

const PROBLEMS = {
  malformed: [
    "does not have the documented shape",
    "Pass it as the InvariantSources schema documents it, or decode it with that schema at your edge."
  ],
  empty: ["has no text", "Leave it out, or give it its text."],
  "too-long": [
    `is longer than ${INVARIANTS_LIMITS.instructionChars} characters`,
    "Collect instructions with acceptQuotes, which rejects longer quotes."
  ],
  "too-many": [
    `comes after the first ${INVARIANTS_LIMITS.instructions} instructions (the oldest are kept)`,
    `Collect instructions with acceptQuotes, which keeps at most ${INVARIANTS_LIMITS.instructions}.`
  ],
  duplicate: ["repeats an earlier item of the same section", "Drop the repeat."],
  "not-a-name": [
    "is not a grant name (names are letters, digits and _ . : @ + -, at most 100 characters)",
    "Pass names such as analysis.run or write_file; never paths, scripts or arguments."
  ]
} as const

/**
 * A part of the sources was left out of the block: `path` names it (`instructions[20]`, `goal`,
 * `grants.names[1]`), `problem` says why. This is input the host should not have passed; it is not counted
 * in the block's omission line, which only counts items left out for `maxChars`.
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class SourceIgnored extends Schema.TaggedClass<SourceIgnored>("@ctxkit/invariants/SourceIgnored")(
  "SourceIgnored",
  {
    /** Where in the sources (`instructions[3]`, `plan`, `criteria[0]`, `grants.externalDirectories`). */
    path: Schema.String,
    /** Why it was left out. */
    problem: Schema.Literals(["malformed", "empty", "too-long", "too-many", "duplicate", "not-a-name"])
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    const [what, fix] = PROBLEMS[this.problem]
    return `${this.path} was left out of the invariants block: it ${what}. ${fix}`
  }
}

const preview = (quote: string): string => JSON.stringify(quote.length > 60 ? quote.slice(0, 60) + "…" : quote)

const REASONS = {
  "not-text": () => "is not text. Ask the summarizer for the instructions as an array of strings.",
  empty: () => "has no text. Nothing to keep.",
  "too-long": (quote: string) =>
    `is ${quote.length} characters, over the ${INVARIANTS_LIMITS.instructionChars}-character limit. Ask the summarizer to quote the instruction alone, exactly.`,
  duplicate: () => "is already kept. Nothing to do.",
  "not-found": () =>
    "is not a literal substring of any message being summarized: the summarizer paraphrased or invented it. Ask it to copy the user's words exactly.",
  "not-user-text": () =>
    "appears only outside the user's own messages (tool output, a checkpoint, the invariants block, assistant or system text). Only the user's own words are kept.",
  "list-full": () =>
    `came after the list was full: ${INVARIANTS_LIMITS.instructions} instructions are kept, the oldest first, and new ones are rejected. Start a new session to collect others.`
} as const

/**
 * One quote that was not kept, with why: `index` is its position among the quotes given, `quote` the quote
 * itself (or a description of a value that was not a string).
 *
 * @example
 * ```ts
 * import { QuoteRejected } from "@ctxkit/invariants"
 *
 * new QuoteRejected({ index: 0, quote: "Always use tabs", reason: "not-found" }).message
 * // "Quote 0 \"Always use tabs\" is not a literal substring of any message being summarized: ..."
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export class QuoteRejected extends Schema.TaggedClass<QuoteRejected>("@ctxkit/invariants/QuoteRejected")(
  "QuoteRejected",
  {
    /** Position of the quote among the quotes given. */
    index: Schema.Number,
    /** The quote, or a description of the value when it was not a string. */
    quote: Schema.String,
    /**
     * `not-text`, `empty`, `too-long` (over 500 characters), `duplicate` (already kept), `not-found` (in no
     * message being summarized), `not-user-text` (only in tool output, a checkpoint, the invariants block,
     * assistant or system text), or `list-full` (20 instructions already kept).
     */
    reason: Schema.Literals(["not-text", "empty", "too-long", "duplicate", "not-found", "not-user-text", "list-full"])
  }
) {
  /** What happened and what to do about it. */
  get message(): string {
    return `Quote ${this.index} ${preview(this.quote)} ${REASONS[this.reason](this.quote)}`
  }
}

/**
 * Any diagnostic of `buildInvariants`.
 *
 * @example
 * ```ts
 * import { buildInvariants, type InvariantsDiagnostic } from "@ctxkit/invariants"
 *
 * const diagnostics: ReadonlyArray<InvariantsDiagnostic> =
 *   buildInvariants({ compacted: true, instructions: [] }, { maxChars: Number.NaN }).diagnostics
 * diagnostics[0]?._tag // "MaxCharsAdjusted"
 * ```
 *
 * @category diagnostics
 * @since 0.1.0
 */
export type InvariantsDiagnostic = MaxCharsAdjusted | MaintainerAdjusted | SourceIgnored
