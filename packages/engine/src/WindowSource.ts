/**
 * `WindowSource`: where the engine learns the model's context window. A configured window wins over every
 * source; a source that cannot tell leaves the window unknown with a warning, and never fails.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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
 * Layers: `WindowSource.layerNone` (the window is unknown) and `WindowSource.layerConfigured(window)` (a
 * window you know).
 *
 * @example
 * ```ts
 * import { WindowSource } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function*() {
 *   const source = yield* WindowSource
 *   return yield* source.discover
 * })
 *
 * Effect.runSync(program.pipe(Effect.provide(WindowSource.layerConfigured(8192)))).window // 8192
 * ```
 *
 * @category services
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
}
