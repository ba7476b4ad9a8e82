/**
 * Placing the `<invariants>` block in a request: one extra `user` message at the very end, where a long
 * prompt is read best, built for the request only and never stored.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat } from "@ctxkit/core"
import { dual } from "effect/Function"

/**
 * Options of {@link withInvariants}.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import type { WithInvariantsOptions } from "@ctxkit/invariants/WithInvariants"
 *
 * const options: WithInvariantsOptions<unknown> = { format: formats.auto }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface WithInvariantsOptions<M> {
  /** The wire format of the request's messages; the block is made with its `makeNote`. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
}

const place = <M>(
  messages: ReadonlyArray<M>,
  block: string | undefined,
  options: WithInvariantsOptions<M> = {}
): ReadonlyArray<M> => {
  const input: ReadonlyArray<M> = Array.isArray(messages) ? messages : []
  if (typeof block !== "string" || block.length === 0) return input
  const format = options.format ?? (formats.auto as MessageFormat<M>)
  return [...input, format.makeNote(block, { role: "user", kind: "invariants" })]
}

/**
 * The request's messages with the block appended as one extra `user` message at the END, made with the
 * format's `makeNote` (kind `invariants`). Returns a new array and leaves the input untouched; with no block
 * (`undefined` before the first compaction, or empty) it returns the input array itself.
 *
 * Apply it to the request you are about to send, after fitting, never to the stored transcript: the block is
 * rebuilt for every request, is never stored, never sent to the summarizer and never elided. Data-first or
 * data-last.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { renderInvariants, withInvariants } from "@ctxkit/invariants"
 * import { pipe } from "effect/Function"
 *
 * const request = [{ role: "user", content: "Go on." }]
 * const block = renderInvariants({ compacted: true, instructions: [] })
 * const sent = withInvariants(request, block, { format: formats.openaiChat })
 * sent.length // 2: the request, then { role: "user", content: "<invariants policy=\"1\">…" }
 * pipe(request, withInvariants(undefined)) === request // true: nothing before the first compaction
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const withInvariants: {
  <M>(
    block: string | undefined,
    options: WithInvariantsOptions<M> & { readonly format: MessageFormat<M> }
  ): (messages: ReadonlyArray<NoInfer<M>>) => ReadonlyArray<M>
  (
    block: string | undefined,
    options?: WithInvariantsOptions<unknown> & { readonly format?: undefined }
  ): <M>(messages: ReadonlyArray<M>) => ReadonlyArray<M>
  <M>(
    messages: ReadonlyArray<NoInfer<M>>,
    block: string | undefined,
    options: WithInvariantsOptions<M> & { readonly format: MessageFormat<M> }
  ): ReadonlyArray<M>
  <M>(
    messages: ReadonlyArray<M>,
    block: string | undefined,
    options?: WithInvariantsOptions<unknown> & { readonly format?: undefined }
  ): ReadonlyArray<M>
} = dual(
  // Data-last calls start with the block (a string, or undefined before the first compaction).
  (args: IArguments) => typeof args[0] !== "string" && args[0] !== undefined,
  <M>(messages: ReadonlyArray<M>, block: string | undefined, options?: WithInvariantsOptions<M>): ReadonlyArray<M> =>
    place(messages, block, options)
)
