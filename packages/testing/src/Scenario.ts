/**
 * A wire-format-neutral description of an agent conversation, rich enough to express every feature the
 * formats link by (parallel calls, results far from their call, one message answering several calls,
 * approvals, reasoning items, pinned and memory blocks, summaries, orphans, dangling calls). Arbitraries
 * generate scenarios; renderers turn one into the messages of a concrete wire format.
 *
 * @since 0.1.0
 */

/**
 * One tool call of a {@link ScenarioTurn}. `approvalId` asks for approval before running (rendered as an
 * approval request where the format has one).
 *
 * @example
 * ```ts
 * import type { ScenarioCall } from "@ctxkit/testing/Scenario"
 *
 * const call: ScenarioCall = { id: "call_1", name: "read_file", arguments: "{\"path\":\"a.ts\"}" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ScenarioCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
  readonly approvalId?: string | undefined
}

/**
 * One tool result of a {@link ScenarioTurn}.
 *
 * @example
 * ```ts
 * import type { ScenarioResult } from "@ctxkit/testing/Scenario"
 *
 * const result: ScenarioResult = { callId: "call_1", name: "read_file", text: "export {}", isError: false }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ScenarioResult {
  readonly callId: string
  readonly name: string
  readonly text: string
  readonly isError: boolean
}

/**
 * One turn of a scenario. A `results` turn is one message answering several calls where the format allows
 * it (Anthropic, AI SDK, effect/ai) and one message per result elsewhere.
 *
 * @example
 * ```ts
 * import type { ScenarioTurn } from "@ctxkit/testing/Scenario"
 *
 * const turns: ReadonlyArray<ScenarioTurn> = [
 *   { kind: "user", text: "hi", pinned: false, summary: false },
 *   { kind: "assistant", text: "hello", reasoning: undefined, calls: [] }
 * ]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ScenarioTurn =
  | {
    readonly kind: "system"
    readonly text: string
    readonly source: "system" | "memory" | "lorebook" | "reminder"
    readonly pinned: boolean
  }
  | { readonly kind: "user"; readonly text: string; readonly pinned: boolean; readonly summary: boolean }
  | {
    readonly kind: "assistant"
    readonly text: string
    /** Reasoning text before the reply (a reasoning part or item). */
    readonly reasoning: string | undefined
    readonly calls: ReadonlyArray<ScenarioCall>
  }
  | { readonly kind: "results"; readonly results: ReadonlyArray<ScenarioResult> }
  | { readonly kind: "approval"; readonly approvalId: string; readonly approved: boolean }

/**
 * A whole scenario: its turns in order.
 *
 * @example
 * ```ts
 * import type { Scenario } from "@ctxkit/testing"
 *
 * const scenario: Scenario = { turns: [{ kind: "user", text: "hi", pinned: false, summary: false }] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Scenario {
  readonly turns: ReadonlyArray<ScenarioTurn>
}

/**
 * A scenario rendered into one wire format: the messages, and for each message the link keys it was
 * rendered with (`call:<id>` for a call or a result, `approval:<id>`, `next` when it must travel with the
 * following message). The keys are an independent oracle for grouping: messages sharing a key, or joined
 * by `next`, belong together.
 *
 * @example
 * ```ts
 * import type { Rendered } from "@ctxkit/testing/Scenario"
 *
 * const rendered: Rendered<unknown> = { messages: [{ role: "user", content: "hi" }], keys: [[]] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Rendered<M> {
  readonly messages: ReadonlyArray<M>
  readonly keys: ReadonlyArray<ReadonlyArray<string>>
}
