/**
 * `ctxkit window --base-url URL [--model M]`: asks a running server for its context window (llama.cpp, Ollama,
 * vLLM, LM Studio, LiteLLM, OpenRouter or any OpenAI-compatible catalog), saying which server and field answered.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { json } from "../internal/options.ts"
import { n, printJson, printLines } from "../internal/output.ts"
import { checkUrl } from "./compact.ts"

/** The `window` subcommand. */
export const windowCommand = Command.make("window", {
  json,
  baseUrl: Flag.String("base-url").pipe(
    Flag.withDescription("The server's address, e.g. http://127.0.0.1:11434 or http://127.0.0.1:8080/v1"),
    Flag.withMetavar("URL")
  ),
  model: Flag.String("model").pipe(
    Flag.withDescription("The model to ask about (when the server has several)"),
    Flag.optional
  )
}, (flags) =>
  Effect.gen(function*() {
    yield* checkUrl(flags.baseUrl)
    const [{ discoverWindow }, { FetchHttpClient }] = yield* Effect.promise(() =>
      Promise.all([import("@ctxkit/engine/DiscoverWindow"), import("effect/http")])
    )
    const answer = yield* discoverWindow({
      baseUrl: flags.baseUrl,
      ...(Option.isSome(flags.model) ? { model: flags.model.value } : {})
    }).pipe(Effect.provide(FetchHttpClient.layer))
    if (flags.json) {
      yield* printJson({ window: answer.window ?? null, source: answer.source, warnings: answer.warnings })
      return
    }
    yield* printLines([
      answer.window === undefined
        ? `window unknown: ${flags.baseUrl} did not say; pass the window yourself (--window N)`
        : `window ${n(answer.window)} tokens (from ${answer.source})`,
      ...answer.warnings.map((w) => `warning: ${w}`)
    ])
  })).pipe(
    Command.withDescription("Ask a server for its context window"),
    Command.withExamples([{ command: "ctxkit window --base-url http://127.0.0.1:11434 --model llama3.2" }])
  )
