/**
 * `WindowSource`: where the engine learns the model's context window. A configured window wins over every
 * source; a source that cannot tell leaves the window unknown with a warning, and never fails.
 *
 * @since 0.1.0
 */
import { isTrustedWindow } from "@ctxkit/budget/Window"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { discoverWindow, type DiscoverWindowOptions } from "./DiscoverWindow.ts"
import { show } from "./internal/windowRead.ts"
import { catalogWindow } from "./WindowCatalog.ts"

/**
 * What a window source answered: the window in tokens (`undefined` when nothing answered usefully), which
 * source and field gave it (for example `"llama.cpp GET /props default_generation_settings.n_ctx"`), and the
 * warnings collected on the way (timeouts, refused connections, untrusted values).
 *
 * @category models
 * @since 0.1.0
 */
export interface WindowAnswer {
  readonly window: number | undefined
  readonly source: string
  readonly warnings: ReadonlyArray<string>
}

/**
 * The model's context window as a service. `discover` never fails: an unknown window is an answer with
 * `window: undefined` and a warning.
 *
 * Layers: `WindowSource.layerNone` (the window is unknown), `WindowSource.layerConfigured(window)` (a
 * window you know), `WindowSource.layerHttp(options)` (asked of the running server, see `discoverWindow`),
 * `WindowSource.layerCatalog({ model })` (a hosted model's window from the static catalog, see
 * `catalogWindow`), `WindowSource.layerFallback(window)` (an assumed window, always warned) and
 * `WindowSource.layerFirst([...])`, which asks several in order: configured → server → catalog → fallback.
 *
 * @example
 * ```ts
 * import { WindowSource } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as Layer from "effect/Layer"
 *
 * const program = Effect.gen(function*() {
 *   const source = yield* WindowSource
 *   return yield* source.discover
 * })
 *
 * Effect.runSync(program.pipe(Effect.provide(WindowSource.layerConfigured(8192)))).window // 8192
 *
 * // The running Ollama server first, then the catalog, then an assumed window (with a warning).
 * const discovered = WindowSource.layerFirst([
 *   WindowSource.layerHttp({ baseUrl: "http://127.0.0.1:11434", model: "llama3.1:8b" }),
 *   WindowSource.layerCatalog({ model: "llama3.1:8b" }),
 *   WindowSource.layerFallback(4096)
 * ]).pipe(Layer.provide(FetchHttpClient.layer))
 *
 * Effect.runPromise(program.pipe(Effect.provide(discovered))).then(({ source, window }) => `${window} from ${source}`)
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class WindowSource extends Context.Service<WindowSource, {
  /** Asks the source for the window. */
  readonly discover: Effect.Effect<WindowAnswer>
}>()("@ctxkit/engine/WindowSource") {
  /** No source: the window is unknown unless the engine is configured with one. */
  static readonly layerNone: Layer.Layer<WindowSource> = Layer.succeed(
    WindowSource,
    WindowSource.of({ discover: Effect.succeed({ window: undefined, source: "none", warnings: [] }) })
  )

  /** A window you know, in tokens. */
  static layerConfigured(window: number): Layer.Layer<WindowSource> {
    return Layer.succeed(
      WindowSource,
      WindowSource.of({ discover: Effect.succeed({ window, source: "configured", warnings: [] }) })
    )
  }

  /**
   * The window asked of the running server with `discoverWindow` (llama.cpp, Ollama, vLLM, OpenRouter,
   * LM Studio, LiteLLM, any OpenAI-compatible catalog), through the `HttpClient` you provide. A known answer
   * is kept for the life of the layer; an unknown one is asked again on the next `discover`.
   */
  static layerHttp(options: DiscoverWindowOptions): Layer.Layer<WindowSource, never, HttpClient.HttpClient> {
    return Layer.effect(
      WindowSource,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const known = yield* Ref.make<WindowAnswer | undefined>(undefined)
        const ask = discoverWindow(options).pipe(
          Effect.provideService(HttpClient.HttpClient, client),
          Effect.tap((answer) => answer.window === undefined ? Effect.void : Ref.set(known, answer))
        )
        return WindowSource.of({
          discover: Effect.flatMap(Ref.get(known), (answer) => answer === undefined ? ask : Effect.succeed(answer))
        })
      })
    )
  }

  /**
   * A hosted model's window from the static models.dev catalog (`catalogWindow`): `limit.context` of the
   * model as you name it (`gpt-4o`, `anthropic/claude-sonnet-4-20250514`); unknown, with close ids suggested,
   * when the catalog lacks it.
   */
  static layerCatalog(options: { readonly model: string }): Layer.Layer<WindowSource> {
    return Layer.sync(WindowSource, () => {
      const { maxOutput: _maxOutput, provider: _provider, id: _id, ...answer } = catalogWindow(options?.model)
      return WindowSource.of({ discover: Effect.succeed(answer) })
    })
  }

  /**
   * A window to assume when nothing else tells it (4,096 is the usual guess for a small local model). It
   * always answers with a warning: erring low only brings compaction forward, erring high disables it. A
   * value that is not a trusted window (`0 < window <= 2_000_000`) leaves the window unknown, with a warning.
   */
  static layerFallback(window: number): Layer.Layer<WindowSource> {
    const answer: WindowAnswer = isTrustedWindow(window) ?
      {
        window,
        source: "fallback",
        warnings: [`no source told the window: assumed ${window} tokens; configure the window to be sure`]
      } :
      {
        window: undefined,
        source: "none",
        warnings: [
          `fallback window ${
            show(window)
          } is not a trusted window (a number with 0 < window <= 2,000,000): the window is unknown`
        ]
      }
    return Layer.succeed(WindowSource, WindowSource.of({ discover: Effect.succeed(answer) }))
  }

  /**
   * Several sources asked in the order given until one knows the window; the recommended order is configured
   * → server → catalog → fallback. The answer keeps the warnings of the sources asked before it (why they did
   * not answer); when none knows, the window is unknown with every warning. Each source is built once, with
   * the layer.
   */
  static layerFirst<E, R>(
    sources: ReadonlyArray<Layer.Layer<WindowSource, E, R>>
  ): Layer.Layer<WindowSource, E, R> {
    return Layer.effect(
      WindowSource,
      Effect.gen(function*() {
        const built = yield* Effect.forEach(
          sources,
          (layer) => Effect.map(Layer.build(layer), (context) => Context.get(context, WindowSource))
        )
        const discover = Effect.gen(function*() {
          const warnings: Array<string> = []
          for (const source of built) {
            const answer = yield* source.discover
            warnings.push(...answer.warnings)
            if (isTrustedWindow(answer.window)) return { window: answer.window, source: answer.source, warnings }
            if (answer.window !== undefined) {
              warnings.push(
                `${answer.source} answered window ${
                  show(answer.window)
                }, not a trusted window (0 < window <= 2,000,000): asked the next source`
              )
            }
          }
          return { window: undefined, source: "none", warnings }
        })
        return WindowSource.of({ discover })
      })
    )
  }
}
