/**
 * Counting for capping and clearing, from `@ctxkit/budget`: `toCounter` reads the `counter` options (a
 * `TokenCounter`, a `MessageCounter` or a plain `(text) => number`, each function with an id of its own) and
 * `TokenTally` counts guarded, merging one call's failures into one `CounterFailed` per kind.
 *
 * @internal
 */
export { type Counter as CounterInput, toCounter as counterOf, TokenTally as Tally } from "@ctxkit/budget"
