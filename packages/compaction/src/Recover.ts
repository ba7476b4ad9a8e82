/**
 * Recovering a session left with uncertain tool results: a crash or a cancel between a tool call and its result
 * leaves the call open, and an open call blocks compaction (there is no safe boundary to cut at). Recovery
 * records the uncertainty as the result; it does not say whether the tool's external effect happened, does not
 * undo it, and does not run the tool again.
 *
 * @since 0.1.0
 */
import { type FormatInput, formats, type MessageFormat, repairPairs } from "@ctxkit/core"
import { dual } from "effect/Function"
import { optionsFirst } from "./internal/dual.ts"

/**
 * The result text recovery records for a call that never reported.
 *
 * @example
 * ```ts
 * import { UNCERTAIN_RESULT_NOTE } from "@ctxkit/compaction/Recover"
 *
 * UNCERTAIN_RESULT_NOTE.startsWith("[The session stopped before this tool reported") // true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const UNCERTAIN_RESULT_NOTE =
  "[The session stopped before this tool reported a result. Its effects were not verified and it was not run again: check them before relying on them.]"

/**
 * Options of {@link recoverUncertainResults}.
 *
 * @category models
 * @since 0.1.0
 */
export interface RecoverOptions<M> {
  /** The wire format. Default `formats.auto`. */
  readonly format?: MessageFormat<M> | undefined
  /** The recorded result text. Default {@link UNCERTAIN_RESULT_NOTE}. */
  readonly note?: string | undefined
}

/**
 * What {@link recoverUncertainResults} returns: the recovered history (the input array itself when no call was
 * open) and the ids of the calls that got an uncertain result, in history order.
 *
 * @category models
 * @since 0.1.0
 */
export interface Recovered<M> {
  /** The history with every open call answered. */
  readonly messages: ReadonlyArray<M>
  /** The call ids that were answered with the uncertainty note. */
  readonly recovered: ReadonlyArray<string>
}

/**
 * Answers every open (dangling) tool call with a result that records the uncertainty
 * ({@link UNCERTAIN_RESULT_NOTE}), placed right after the issuing message and the results that already follow
 * it. Canonical results carry `uncertain: true`. Nothing else changes: results whose call is missing are kept,
 * ids and untouched messages are the same objects, the input is never mutated, and the input array itself comes
 * back when no call was open. After recovery, `planCompaction` no longer reports `open-call`. With a `format`,
 * the message type is the format's.
 *
 * Do not run it automatically after a crash without telling the user: the tool may have changed something.
 *
 * With a `format`, the messages come back typed as the caller's own (LangChain `BaseMessage`s, AI SDK
 * `ModelMessage`s, `effect/ai` `Prompt` messages, interfaces of the wire shape), not as the lens's type.
 *
 * @example
 * ```ts
 * import { recoverUncertainResults } from "@ctxkit/compaction"
 * import { formats, type Message } from "@ctxkit/core"
 *
 * const history: ReadonlyArray<Message> = [
 *   { role: "user", content: "deploy it" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "deploy", arguments: "{}" }] }
 * ]
 * const { messages, recovered } = recoverUncertainResults(history, { format: formats.canonical })
 * recovered // ["c1"]
 * messages[2] // { role: "tool", toolCallId: "c1", toolName: "deploy", content: "[The session stopped …]", uncertain: true }
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const recoverUncertainResults: {
  <M extends FormatInput<F>, F>(
    history: ReadonlyArray<M>,
    options: RecoverOptions<F> & { readonly format: MessageFormat<F> }
  ): Recovered<M>
  <M>(history: ReadonlyArray<M>, options?: RecoverOptions<NoInfer<M>>): Recovered<M>
  <M>(options: RecoverOptions<M> & { readonly format: MessageFormat<M> }): (history: ReadonlyArray<M>) => Recovered<M>
  (options?: RecoverOptions<unknown>): <M>(history: ReadonlyArray<M>) => Recovered<M>
} = dual(optionsFirst, <M>(history: ReadonlyArray<M>, options: RecoverOptions<M> = {}): Recovered<M> => {
  if (!Array.isArray(history)) return { messages: [], recovered: [] }
  const given = typeof options === "object" && options !== null ? options : {}
  const format = given.format ?? (formats.auto as unknown as MessageFormat<M>)
  const note = typeof given.note === "string" && given.note.trim() !== "" ? given.note : UNCERTAIN_RESULT_NOTE
  const repaired = repairPairs(history, { format, dangling: "stub", orphans: "keep", stubText: note })
  const recovered: Array<string> = []
  for (const change of repaired.changes) if (change._tag === "CallStubbed") recovered.push(change.callId)
  return recovered.length === 0 ? { messages: history, recovered } : { messages: repaired.messages, recovered }
})
