/**
 * The extractive summarizer: a checkpoint built from the transcript a summary request carries, without a model.
 * It reads the serialization of `serializeForSummary` back (one item per line, an item's text running on until
 * the next item's label), and fills the seven fields from what the transcript literally holds.
 */
import type { Checkpoint } from "@ctxkit/compaction"
import { CHECKPOINT_SECTIONS } from "@ctxkit/compaction/Checkpoint"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** One item of the serialized transcript. */
export type Item =
  | { readonly kind: "user" | "assistant" | "system" | "summary" | "attachment"; readonly text: string }
  | { readonly kind: "call"; readonly id: string; readonly name: string; readonly text: string }
  | { readonly kind: "result"; readonly id: string; readonly isError: boolean; readonly text: string }

const LABELS: ReadonlyArray<
  readonly [label: string, kind: "user" | "assistant" | "system" | "summary" | "attachment"]
> = [
  ["USER: ", "user"],
  ["ASSISTANT: ", "assistant"],
  ["SYSTEM: ", "system"],
  ["PREVIOUS SUMMARY: ", "summary"],
  ["ATTACHMENT: ", "attachment"]
]
const CALL = /^TOOL CALL (\S+) (\S+): /
const RESULT = /^TOOL RESULT (\S+?)( \(error\))?: /
const OPEN_TAG = "<transcript>\n"
const CLOSE_TAG = "\n</transcript>"
const FOCUS = "Additional focus requested by the user: "
// serializeForSummary's clip marker, and summaryRequest's escape of a closing tag inside the transcript.
const CLIP_MARKER = "… [truncated]"
const ESCAPED_CLOSE = /<\\\/transcript>/g

const MAX_FIELD = 4_000
const MAX_ITEMS = 40
const QUOTE_CHARS = 600
const LINE_CHARS = 300

/** The transcript of a summary request's prompt, and the focus the user asked for (empty when none). */
export const transcriptOf = (prompt: string): { readonly body: string; readonly focus: string } => {
  const open = prompt.indexOf(OPEN_TAG)
  const close = prompt.lastIndexOf(CLOSE_TAG)
  const head = open >= 0 ? prompt.slice(0, open) : ""
  const at = head.indexOf(FOCUS)
  const focus = at >= 0 ? (head.slice(at + FOCUS.length).split("\n")[0] ?? "").trim() : ""
  if (open < 0) return { body: prompt, focus }
  const start = open + OPEN_TAG.length
  return { body: close >= start ? prompt.slice(start, close) : prompt.slice(start), focus }
}

const unescape = (text: string): string => {
  const restored = text.replace(ESCAPED_CLOSE, "</transcript>")
  return restored.endsWith(CLIP_MARKER) ? restored.slice(0, -CLIP_MARKER.length) : restored
}

/** The items of a serialized transcript, in order. */
export const parseTranscript = (body: string): Array<Item> => {
  const items: Array<Item> = []
  let current: { item: Item; lines: Array<string> } | undefined
  const flush = (): void => {
    if (current !== undefined) items.push({ ...current.item, text: unescape(current.lines.join("\n")) })
    current = undefined
  }
  for (const line of body.split("\n")) {
    const labelled = LABELS.find(([label]) => line.startsWith(label))
    if (labelled !== undefined) {
      flush()
      current = { item: { kind: labelled[1], text: "" }, lines: [line.slice(labelled[0].length)] }
      continue
    }
    const call = CALL.exec(line)
    if (call !== null) {
      flush()
      current = {
        item: { kind: "call", id: call[1] as string, name: call[2] as string, text: "" },
        lines: [line.slice(call[0].length)]
      }
      continue
    }
    const result = RESULT.exec(line)
    if (result !== null) {
      flush()
      current = {
        item: { kind: "result", id: result[1] as string, isError: result[2] !== undefined, text: "" },
        lines: [line.slice(result[0].length)]
      }
      continue
    }
    // A line without a label continues the item before it (a text with line breaks).
    if (current !== undefined) current.lines.push(line)
  }
  flush()
  return items
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/** At most `max` characters of `text` (never half a surrogate pair), trimmed: a substring of `text`. */
const clip = (text: string, max: number): string => {
  const trimmed = text.trim()
  if (trimmed.length <= max) return trimmed
  const end = isHigh(trimmed.charCodeAt(max - 1)) ? max - 1 : max
  return trimmed.slice(0, end).trimEnd()
}

const firstLine = (text: string): string => text.trim().split("\n")[0] ?? ""

// Words that make a sentence of the user's an instruction or a constraint.
const INSTRUCTION =
  /\b(must|mustn't|never|always|don't|do not|dont|only|should|shouldn't|make sure|ensure|avoid|without|keep|prefer|remember|instead|required?|please|no more than|at most|at least)\b/i

/** The sentences of `text` that read as instructions, each a literal substring of `text`. */
const instructionsIn = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const line of text.split("\n")) {
    for (const sentence of line.split(/(?<=[.!?;])\s+/)) {
      const quote = clip(sentence, QUOTE_CHARS)
      if (quote.length >= 3 && INSTRUCTION.test(quote)) out.push(quote)
    }
  }
  return out
}

/** The sections of an earlier checkpoint's text (`## Title` then its body), by field. */
const sectionsOf = (text: string): Partial<Record<keyof Checkpoint, string>> => {
  const out: Partial<Record<keyof Checkpoint, string>> = {}
  for (const [field, title] of CHECKPOINT_SECTIONS) {
    const marker = `## ${title}\n`
    const at = text.indexOf(marker)
    if (at < 0) continue
    const start = at + marker.length
    const next = text.indexOf("\n\n## ", start)
    out[field] = (next < 0 ? text.slice(start) : text.slice(start, next)).trim()
  }
  return out
}

/** The `- item` lines of a rendered list section, `(none)` left out. */
const listOf = (section: string | undefined): Array<string> =>
  section === undefined
    ? []
    : section.split("\n").filter((line) => line.startsWith("- ") && line !== "- (none)").map((line) =>
      line.slice(2).trim()
    ).filter((line) => line.length > 0)

const PATH_KEY = /(path|file|filename|dir|directory|cwd|target|source|dest|destination)s?$/i
const PATH_LIKE = /^(?:~|\.{1,2})?[\w@./\\-]*[\w-]\.[A-Za-z0-9]{1,10}$|^(?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]*$/

const decodeJson = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))

const looksLikePath = (value: string): boolean =>
  value.length >= 2 && value.length <= 260 && !/\s/.test(value) && !value.includes("://") && PATH_LIKE.test(value)

/** Files named by a tool call's arguments: values of path-like keys, and path-like strings or words. */
const filesIn = (args: string): Array<string> => {
  const out: Array<string> = []
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > 4) return
    if (typeof value === "string") {
      const text = value.trim()
      if (PATH_KEY.test(key) && text.length > 0 && text.length <= 260 && !text.includes("\n")) out.push(text)
      else if (looksLikePath(text)) out.push(text)
      else if (/^(command|cmd|script|args?)$/i.test(key)) {
        for (const word of text.split(/\s+/)) if (looksLikePath(word)) out.push(word)
      }
    } else if (Array.isArray(value)) {
      for (const entry of value) visit(entry, key, depth + 1)
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1)
    }
  }
  const parsed = decodeJson(args)
  if (Option.isSome(parsed)) visit(parsed.value, "", 0)
  else {
    // Arguments that are not JSON: the words that look like paths.
    for (const word of args.split(/[\s"',()[\]{}]+/)) if (looksLikePath(word)) out.push(word)
  }
  return out
}

const unique = (values: ReadonlyArray<string>): Array<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const value of values) {
    const v = clip(value, MAX_FIELD)
    if (v.length === 0 || seen.has(v)) continue
    seen.add(v)
    out.push(v)
  }
  return out
}

const first = (values: ReadonlyArray<string>, n = MAX_ITEMS): Array<string> => unique(values).slice(0, n)
const last = (values: ReadonlyArray<string>, n = MAX_ITEMS): Array<string> => unique(values).slice(-n)

const argsShort = (args: string): string => {
  const one = args.replace(/\s+/g, " ").trim()
  return one === "{}" || one.length === 0 ? "" : ` ${clip(one, 160)}`
}

/**
 * The checkpoint of a transcript: the goal from the user's requests (an earlier checkpoint's goal first), the
 * instructions quoted from user messages, failed calls as discoveries, answered calls as accomplished, the last
 * state, the open calls and the unanswered request as next steps, and the files named by tool arguments.
 */
export const extractCheckpoint = (prompt: string): Checkpoint => {
  const { body, focus } = transcriptOf(prompt)
  const items = parseTranscript(body)
  const previous = items.filter((i) => i.kind === "summary").map((i) => sectionsOf(i.text))
  const earlier = previous.at(-1) ?? {}
  const requests = items.filter((i) => i.kind === "user").map((i) => i.text.trim()).filter((t) => t.length > 0)

  const calls = new Map<string, { readonly name: string; readonly args: string }>()
  const answered = new Set<string>()
  const discoveries: Array<string> = [...listOf(earlier.discoveries)]
  const accomplished: Array<string> = [...listOf(earlier.accomplished)]
  const files: Array<string> = [...listOf(earlier.relevantFiles)]
  const instructions: Array<string> = previous.flatMap((p) => listOf(p.instructions))
  for (const item of items) {
    switch (item.kind) {
      case "user":
        instructions.push(...instructionsIn(item.text))
        break
      case "call":
        calls.set(item.id, { name: item.name, args: item.text })
        files.push(...filesIn(item.text))
        break
      case "result": {
        answered.add(item.id)
        const call = calls.get(item.id)
        const name = call === undefined ? "tool" : call.name
        if (item.isError) {
          discoveries.push(`${name} (call ${item.id}) failed: ${clip(firstLine(item.text), LINE_CHARS)}`)
        } else {
          accomplished.push(`${name}${call === undefined ? "" : argsShort(call.args)} (call ${item.id})`)
        }
        break
      }
      default:
        break
    }
  }

  const firstRequest = requests[0]
  const latest = requests.at(-1)
  // An earlier checkpoint's goal, without the latest request and focus of its own time.
  const earlierGoal = earlier.goal === undefined
    ? undefined
    : earlier.goal.split("\n").filter((line) => !line.startsWith("Latest request: ") && !line.startsWith("Focus: "))
      .join("\n").trim()
  const carried = earlierGoal !== undefined && earlierGoal.length > 0
  const base = carried ? earlierGoal : firstRequest === undefined ? undefined : clip(firstRequest, QUOTE_CHARS)
  const goalParts = [
    base ?? "Continue the session recorded in the transcript",
    latest !== undefined && (carried || latest !== firstRequest) ? `Latest request: ${clip(latest, QUOTE_CHARS)}` : "",
    focus.length > 0 ? `Focus: ${clip(focus, QUOTE_CHARS)}` : ""
  ]
  const goal = clip(goalParts.filter((p) => p.length > 0).join("\n"), MAX_FIELD)

  const lastItem = items.at(-1)
  const lastAssistant = items.filter((i) => i.kind === "assistant" && i.text.trim().length > 0).at(-1)
  const unanswered = lastItem?.kind === "user" && latest !== undefined
  const lastCall = lastItem?.kind === "call" ? calls.get(lastItem.id) : undefined
  const state = unanswered
    ? `Waiting for an answer to the latest request: ${clip(latest, LINE_CHARS)}`
    : lastItem?.kind === "call" && lastCall !== undefined
    ? `Called ${lastCall.name}${argsShort(lastCall.args)} (call ${lastItem.id}); its result has not arrived`
    : lastItem?.kind === "result"
    ? `Last tool result (call ${lastItem.id}${lastItem.isError ? ", an error" : ""}): ${
      clip(firstLine(lastItem.text), LINE_CHARS)
    }`
    : lastAssistant !== undefined
    ? clip(lastAssistant.text, 1_000)
    : earlier.currentState !== undefined && earlier.currentState !== "(none)"
    ? earlier.currentState
    : ""
  const currentState = clip(state, 1_000)

  const open = [...calls].filter(([id]) => !answered.has(id))
  const nextSteps = [
    ...open.map(([id, call]) => `Get the result of ${call.name}${argsShort(call.args)} (call ${id}), still open`),
    ...(unanswered ? [`Answer the latest request: ${clip(latest, LINE_CHARS)}`] : [])
  ]

  return {
    goal,
    instructions: first(instructions),
    discoveries: last(discoveries, 20),
    accomplished: last(accomplished, 20),
    currentState,
    nextSteps: first(nextSteps.length > 0 ? nextSteps : listOf(earlier.nextSteps)),
    relevantFiles: first(files)
  }
}
