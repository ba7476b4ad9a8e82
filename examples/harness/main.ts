/**
 * The ctxkit example harness (`npm run harness -- …`): a small read-only coding agent built only from ctxkit
 * packages and `effect/ai`, with the context engine around every model call.
 *
 *   npm run harness -- --base-url http://127.0.0.1:11434 --model qwen2.5:7b [--context-window 4096] "task"
 *   npm run harness -- --offline plateau            # the eight-files task against the scripted Ollama-like server
 *   npm run harness -- --offline collapse --scenario overflow   # the tutorial's 27-message conversation
 *
 * Exit codes: 0 the task was answered; 1 the run ended with `context_overflow`; 2 bad usage; 3 the request
 * failed otherwise (the server refused, did not answer, or no answer came within the turn limit).
 */
import { discoverWindow } from "@ctxkit/engine"
import { startOllamaLikeServer, type TruncationMode } from "@ctxkit/testing/OllamaLikeServer"
import { keysReply, tutorialConversation, tutorialKeys, tutorialServer } from "@ctxkit/testing/Tutorial"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as path from "node:path"
import { parseArgs } from "node:util"
import {
  type AgentConfig,
  type AgentEnd,
  ASSUMED_WINDOW,
  replayConversation,
  runAgent,
  sendUnchecked
} from "./agent.ts"
import { EIGHT_FILES_TASK, eightFilesAgent, SAMPLE_WORKSPACE } from "./offline.ts"

export const USAGE = [
  "usage: npm run harness -- --base-url URL --model M [--context-window N] [--max-tokens N] [--workspace DIR] \"task\"",
  "       npm run harness -- --offline plateau|collapse|honest [--scenario files|overflow] [--context-window N]",
  "",
  "  --base-url URL        an OpenAI-compatible server (llama-server, Ollama, vLLM, LM Studio, …)",
  "  --model M             the model id to send",
  "  --context-window N    the model's window in tokens (asked of the server when left out)",
  "  --max-tokens N        the reply budget (default 1024; at most 25% of the window is reserved)",
  "  --workspace DIR       the folder the read-only tools see (default: the current folder)",
  "  --offline MODE        run against the scripted Ollama-like server (num_ctx 4096) truncating like Ollama",
  "  --scenario NAME       files: the eight-files task (default); overflow: the tutorial's 27-message conversation",
  "",
  "exit codes: 0 answered, 1 ended by context_overflow, 2 bad usage, 3 the request failed"
].join("\n")

/** The server's window in the offline runs, and the window the overflow scenario wrongly believes by default. */
export const OFFLINE_WINDOW = 4_096
export const BELIEVED_WINDOW = 32_768

const MODES: ReadonlyArray<TruncationMode> = ["plateau", "collapse", "honest"]

type Parsed =
  | {
    readonly ok: true
    readonly baseUrl: string | undefined
    readonly model: string | undefined
    readonly window: number | undefined
    readonly maxTokens: number
    readonly workspace: string | undefined
    readonly offline: TruncationMode | undefined
    readonly scenario: "files" | "overflow"
    readonly task: string | undefined
  }
  | { readonly ok: false; readonly problem: string }

const positiveInt = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const number = Number(value)
  return Number.isInteger(number) && number > 0 ? number : Number.NaN
}

/** The command line, checked: every problem named with what is accepted. */
export const parse = (argv: ReadonlyArray<string>): Parsed => {
  let values: Record<string, string | boolean | undefined>
  let positionals: ReadonlyArray<string>
  try {
    const parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        "base-url": { type: "string" },
        model: { type: "string" },
        "context-window": { type: "string" },
        "max-tokens": { type: "string" },
        workspace: { type: "string" },
        offline: { type: "string" },
        scenario: { type: "string" },
        help: { type: "boolean" }
      }
    })
    values = parsed.values
    positionals = parsed.positionals
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) }
  }
  const str = (key: string): string | undefined => {
    const value = values[key]
    return typeof value === "string" ? value : undefined
  }
  if (values["help"] === true) return { ok: false, problem: "" }
  const window = positiveInt(str("context-window"))
  if (Number.isNaN(window)) return { ok: false, problem: `--context-window must be a whole number of tokens > 0` }
  const maxTokens = positiveInt(str("max-tokens")) ?? 1_024
  if (Number.isNaN(maxTokens)) return { ok: false, problem: `--max-tokens must be a whole number of tokens > 0` }
  const offline = str("offline")
  if (offline !== undefined && !MODES.includes(offline as TruncationMode)) {
    return { ok: false, problem: `--offline must be one of ${MODES.join(", ")} (got ${JSON.stringify(offline)})` }
  }
  const scenario = str("scenario") ?? "files"
  if (scenario !== "files" && scenario !== "overflow") {
    return { ok: false, problem: `--scenario must be files or overflow (got ${JSON.stringify(scenario)})` }
  }
  const task = positionals.length > 0 ? positionals.join(" ") : undefined
  if (offline === undefined) {
    if (str("base-url") === undefined) return { ok: false, problem: "--base-url is required (or --offline MODE)" }
    if (str("model") === undefined) return { ok: false, problem: "--model is required (or --offline MODE)" }
    if (scenario === "files" && task === undefined) return { ok: false, problem: "give the task as the last argument" }
  }
  return {
    ok: true,
    baseUrl: str("base-url"),
    model: str("model"),
    window,
    maxTokens,
    workspace: str("workspace"),
    offline: offline as TruncationMode | undefined,
    scenario,
    task
  }
}

const n = (value: number): string => value.toLocaleString("en-US")

/** The window to fit to: the configured one, else the server's answer, else the tutorial preset's assumption. */
const windowOf = (baseUrl: string, model: string, configured: number | undefined, print: (line: string) => void) =>
  Effect.gen(function*() {
    if (configured !== undefined) {
      print(`window: ${n(configured)} tokens (configured with --context-window)`)
      return configured
    }
    const answer = yield* discoverWindow({ baseUrl, model }).pipe(Effect.provide(FetchHttpClient.layer))
    if (answer.window !== undefined) {
      print(`window: ${n(answer.window)} tokens (discovered: ${answer.source})`)
      return answer.window
    }
    print(
      `! The context window is not known: assuming ${n(ASSUMED_WINDOW)} tokens. Set the real one with --context-window.`
    )
    return undefined
  })

const FINAL_QUESTION = tutorialConversation.at(-1)?.content

/** The experiment's model: it acknowledges each message and answers the final question with the keys it sees. */
const tutorialReply = (kept: Parameters<typeof keysReply>[0]) =>
  kept.at(-1)?.content === FINAL_QUESTION ? keysReply(kept) : { content: "Understood." }

const exitCode = (end: AgentEnd): number => end.end === "done" ? 0 : end.end === "context_overflow" ? 1 : 3

/** Runs the harness with `argv` (without `node main.ts`), printing to `print`; resolves to the exit code. */
export const main = async (
  argv: ReadonlyArray<string>,
  print: (line: string) => void,
  printError: (line: string) => void = print
): Promise<number> => {
  const parsed = parse(argv)
  if (!parsed.ok) {
    if (parsed.problem !== "") printError(`error: ${parsed.problem}`)
    printError(USAGE)
    return parsed.problem === "" ? 0 : 2
  }
  const overflow = parsed.scenario === "overflow"
  // The overflow scenario runs against the experiment's own server (its tokenizer and template, answering with
  // the keys it can still see); the eight-files task against the same window with the small agent's script.
  const server = parsed.offline === undefined ? undefined : await startOllamaLikeServer(
    overflow
      ? { ...tutorialServer, mode: parsed.offline, reply: tutorialReply }
      : { window: OFFLINE_WINDOW, mode: parsed.offline, reply: eightFilesAgent }
  )
  try {
    const baseUrl = server?.baseUrl ?? parsed.baseUrl ?? ""
    const model = parsed.model ?? "llama3.2:3b"
    const workspace = path.resolve(parsed.workspace ?? (server === undefined ? process.cwd() : SAMPLE_WORKSPACE))
    if (server !== undefined) {
      print(
        `server: scripted Ollama-like at ${baseUrl} (num_ctx ${n(OFFLINE_WINDOW)}, ${parsed.offline} truncation)`
      )
    }
    print(`model: ${model}`)
    const configured = parsed.window ?? (overflow && server !== undefined ? BELIEVED_WINDOW : undefined)
    const program = Effect.gen(function*() {
      const window = yield* windowOf(baseUrl, model, configured, print)
      const config: AgentConfig = {
        baseUrl,
        model,
        window,
        maxTokens: parsed.maxTokens,
        workspace,
        summarizer: server === undefined ? "model" : "extractive"
      }
      if (overflow) {
        const end = yield* replayConversation(tutorialConversation, config, print)
        // Offline, show what the same server answers a loop that does not check: the tutorial's measurement.
        if (server !== undefined && end.end === "context_overflow") {
          print("")
          yield* sendUnchecked(tutorialConversation, tutorialKeys, config, print)
        }
        return end
      }
      print(`workspace: ${path.relative(process.cwd(), workspace) || "."}`)
      return yield* runAgent(parsed.task ?? EIGHT_FILES_TASK, config, print)
    })
    return exitCode(await Effect.runPromise(program))
  } catch (error) {
    printError(`error: ${error instanceof Error ? error.message : String(error)}`)
    return 3
  } finally {
    await server?.close()
  }
}

if (import.meta.main || path.resolve(process.argv[1] ?? "") === import.meta.filename) {
  process.exitCode = await main(process.argv.slice(2), (line) => console.log(line), (line) => console.error(line))
}
