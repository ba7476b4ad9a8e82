/**
 * `TokenCounter`: the counter the engine's steps count with. A synchronous `@ctxkit/budget` counter is used as
 * it is; an effectful one (a server's tokenize endpoint, llama.cpp's `input_tokens`, Anthropic's `count_tokens`)
 * is asked once for each new message's texts before the pure steps run, and the steps read the answers from the
 * session's cache — so fitting stays pure and synchronous and each message is counted once per session.
 *
 * @since 0.1.0
 */
import { approximateCounter, toCounter, type TokenCounter as BudgetTokenCounter } from "@ctxkit/budget"
import type { Counter } from "@ctxkit/budget"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * An effectful counter: `count(text)` asks somewhere else (a server) how many tokens `text` is.
 *
 * @category models
 * @since 0.1.0
 */
export interface EffectfulCounter<E = unknown> {
  /** A stable id naming the tokenizer (`llama.cpp:/tokenize`, …). */
  readonly id: string
  /** Whether the counts are the served model's own (false) or estimates (true). Default false. */
  readonly approximate?: boolean | undefined
  /** The tokens of `text`. */
  readonly count: (text: string) => Effect.Effect<number, E>
}

/**
 * The active counter as a service. `TokenCounter.layer(counter)` for any `@ctxkit/budget` counter (a
 * `TokenCounter`, a `MessageCounter` or a plain `(text) => number`); `TokenCounter.layerEffect(counter)` for an
 * {@link EffectfulCounter}. Without the service, the engine counts with the approximate counter.
 *
 * @example
 * ```ts
 * import { ContextEngine, SessionStore, TokenCounter } from "@ctxkit/engine"
 * import { Summarizer } from "@ctxkit/compaction"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const words = TokenCounter.layer((text: string) => text.split(/\s+/).length)
 * const engine = ContextEngine.layer({ window: 8192, maxTokens: 1024 }).pipe(
 *   Layer.provide([words, SessionStore.layerMemory, Layer.succeed(Summarizer, Summarizer.of({
 *     summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"g\"}}", finishReason: "stop" })
 *   }))])
 * )
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class TokenCounter extends Context.Service<TokenCounter, {
  /** The synchronous counter the steps use (for an effectful counter: its id, read from the session's cache). */
  readonly counter: BudgetTokenCounter
  /** The effectful counter, when there is one: the engine asks it for every new message's texts. */
  readonly effectful?: EffectfulCounter | undefined
}>()("@ctxkit/engine/TokenCounter") {
  /** Any `@ctxkit/budget` counter. */
  static layer(counter: Counter): Layer.Layer<TokenCounter> {
    return Layer.succeed(TokenCounter, TokenCounter.of({ counter: toCounter(counter) }))
  }

  /** An effectful counter, asked once per new text of a session. */
  static layerEffect<E>(counter: EffectfulCounter<E>): Layer.Layer<TokenCounter> {
    return Layer.succeed(
      TokenCounter,
      TokenCounter.of({
        counter: { id: counter.id, approximate: counter.approximate ?? false, count: approximateCounter.count },
        effectful: counter
      })
    )
  }

  /** The approximate counter (`ceil(length / 4)`), the default. */
  static readonly layerApproximate: Layer.Layer<TokenCounter> = TokenCounter.layer(approximateCounter)
}
