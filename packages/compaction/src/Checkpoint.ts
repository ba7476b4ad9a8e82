/**
 * The structured checkpoint a compaction produces: its schema, reading it out of a summarizer's reply, and
 * rendering it as the text that replaces the summarized messages.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { findJsonCandidates } from "./internal/checkpointJson.ts"

/** Longest text of one field or list item, after trimming. */
const MAX_TEXT = 4_000
/** Most items of one list. */
const MAX_ITEMS = 40

const CheckpointText = Schema.Trim.check(Schema.isMaxLength(MAX_TEXT))

const CheckpointList = Schema.Array(CheckpointText).check(Schema.isMaxLength(MAX_ITEMS)).pipe(
  Schema.withDecodingDefaultKey(Effect.succeed([]))
)

/**
 * The checkpoint's schema. Every text is trimmed, then checked: `goal` 1–4,000 characters; `instructions`,
 * `discoveries`, `accomplished`, `nextSteps`, `relevantFiles` lists of at most 40 items of at most 4,000
 * characters each (`[]` when the key is missing); `currentState` at most 4,000 characters (`""` when missing).
 * A `null` is not a missing key: it fails. Unknown keys are ignored.
 *
 * @example
 * ```ts
 * import { Checkpoint } from "@ctxkit/compaction"
 * import * as Schema from "effect/Schema"
 *
 * Schema.decodeUnknownSync(Checkpoint)({ goal: "  Fix the build  ", nextSteps: ["run the tests"] })
 * // { goal: "Fix the build", instructions: [], discoveries: [], accomplished: [], currentState: "", nextSteps: ["run the tests"], relevantFiles: [] }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Checkpoint = Schema.Struct({
  goal: CheckpointText.check(Schema.isMinLength(1)),
  instructions: CheckpointList,
  discoveries: CheckpointList,
  accomplished: CheckpointList,
  currentState: CheckpointText.pipe(Schema.withDecodingDefaultKey(Effect.succeed(""))),
  nextSteps: CheckpointList,
  relevantFiles: CheckpointList
})

/**
 * @category models
 * @since 0.1.0
 */
export type Checkpoint = typeof Checkpoint.Type

/**
 * The checkpoint's seven sections, in render order: each field with its section title.
 *
 * @example
 * ```ts
 * import { CHECKPOINT_SECTIONS } from "@ctxkit/compaction/Checkpoint"
 *
 * CHECKPOINT_SECTIONS.map(([, title]) => title)
 * // ["Goal", "User instructions/constraints", "Discoveries", "Accomplished", "Current state", "Next steps", "Relevant files"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const CHECKPOINT_SECTIONS: ReadonlyArray<readonly [field: keyof Checkpoint, title: string]> = [
  ["goal", "Goal"],
  ["instructions", "User instructions/constraints"],
  ["discoveries", "Discoveries"],
  ["accomplished", "Accomplished"],
  ["currentState", "Current state"],
  ["nextSteps", "Next steps"],
  ["relevantFiles", "Relevant files"]
]

/**
 * What {@link parseCheckpoint} read from a reply. `structured`: a valid checkpoint was found, and `checkpoint`
 * holds it; `extracted`: the requested extra fields present in the reply (as they are, unvalidated); `text`:
 * the rendered checkpoint, or the trimmed raw reply when it is not structured (a text-only checkpoint).
 *
 * @category models
 * @since 0.1.0
 */
export interface ParsedCheckpoint {
  readonly structured: boolean
  readonly checkpoint?: Checkpoint | undefined
  readonly extracted: Readonly<Record<string, unknown>>
  readonly text: string
}

const Reply = Schema.Struct({ checkpoint: Checkpoint })
const decodeJson = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Unknown))
const decodeReply = Schema.decodeUnknownResult(Reply)

/**
 * Reads a summarizer's reply. The JSON is the first fenced code block (```` ``` ```` or ```` ```json ````) when
 * there is one, else the text from the first `{` to the last `}`; when a fenced block does not hold a valid
 * checkpoint, the `{`…`}` span is tried too (a reply may show a snippet before its answer). The JSON must be an
 * object whose `checkpoint` is a valid {@link Checkpoint}; other top-level keys are allowed. Any failure — no
 * JSON, invalid JSON, a schema violation — gives the text-only checkpoint
 * `{ structured: false, extracted: {}, text: raw.trim() }`. Otherwise `text` is {@link renderCheckpoint} of the
 * checkpoint and `extracted` holds each name of `fields` (except `checkpoint`) present at the top level. Total:
 * never throws.
 *
 * @example
 * ```ts
 * import { parseCheckpoint } from "@ctxkit/compaction"
 *
 * const reply = "Here it is:\n```json\n{\"checkpoint\":{\"goal\":\"Fix the build\"},\"memory\":[\"uses pnpm\"]}\n```"
 * const parsed = parseCheckpoint(reply, ["memory"])
 * parsed.structured // true
 * parsed.checkpoint?.goal // "Fix the build"
 * parsed.extracted // { memory: ["uses pnpm"] }
 * parseCheckpoint("Sorry, I cannot do that.").text // "Sorry, I cannot do that."
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const parseCheckpoint = (raw: string, fields: ReadonlyArray<string> = []): ParsedCheckpoint => {
  const text = typeof raw === "string" ? raw : ""
  for (const candidate of findJsonCandidates(text)) {
    const json = decodeJson(candidate)
    if (Result.isFailure(json) || !Predicate.isObject(json.success)) continue
    const reply = decodeReply(json.success)
    if (Result.isFailure(reply)) continue
    const value = json.success
    // fromEntries defines own properties: a requested "__proto__" field cannot reach the prototype.
    const extracted: Readonly<Record<string, unknown>> = Object.fromEntries(
      fields.filter((field) => field !== "checkpoint" && Object.hasOwn(value, field)).map((
        field
      ) => [field, value[field]])
    )
    const checkpoint = reply.success.checkpoint
    return { structured: true, checkpoint, extracted, text: renderCheckpoint(checkpoint) }
  }
  return { structured: false, extracted: {}, text: text.trim() }
}

const section = (title: string, body: string | ReadonlyArray<string>): string => {
  const content = typeof body === "string"
    ? body.length > 0 ? body : "(none)"
    : body.length > 0
    ? body.map((entry) => `- ${entry}`).join("\n")
    : "- (none)"
  return `## ${title}\n${content}`
}

/**
 * Renders a checkpoint as Markdown: seven `## <Title>` sections in {@link CHECKPOINT_SECTIONS} order, separated
 * by a blank line; a list as one `- item` line per item (`- (none)` when empty), a text as is (`(none)` when
 * empty). No trailing newline.
 *
 * @example
 * ```ts
 * import { renderCheckpoint } from "@ctxkit/compaction"
 *
 * renderCheckpoint({
 *   goal: "Fix the build",
 *   instructions: ["Do not touch package.json"],
 *   discoveries: [],
 *   accomplished: [],
 *   currentState: "",
 *   nextSteps: ["Run npm test"],
 *   relevantFiles: ["src/a.ts"]
 * }).split("\n\n")[1] // "## User instructions/constraints\n- Do not touch package.json"
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const renderCheckpoint = (checkpoint: Checkpoint): string =>
  CHECKPOINT_SECTIONS.map(([field, title]) => section(title, checkpoint[field])).join("\n\n")
