/**
 * The generic ctxkit laws (quality.md L1 partition & order, L2 pairs, L3 identity, L9 purity) as reusable
 * checks, so that anyone can verify their OWN selection, trimming or fitting function with fast-check.
 * Each check returns the list of violations, in words; an empty list means the law holds.
 *
 * @since 0.1.0
 */
import { formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import * as fc from "fast-check"
import type { Rendered } from "./Scenario.ts"

/**
 * What a selection step produced from an input conversation: the messages it keeps (in order, possibly
 * with some rewritten or inserted) and the ones it excluded.
 *
 * @example
 * ```ts
 * import type { Selection } from "@ctxkit/testing/Laws"
 *
 * const selection: Selection<string> = { kept: ["b"], excluded: ["a"] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Selection<M> {
  /** What is sent, in order. */
  readonly kept: ReadonlyArray<M>
  /** What was left out, in any order. */
  readonly excluded: ReadonlyArray<M>
  /** Messages of `kept` that are new (summaries, notes): not from the input. */
  readonly inserted?: ReadonlyArray<M> | undefined
  /** Messages of `kept` that replace an input message (compressed or rewritten copies). */
  readonly replaced?: ReadonlyArray<{ readonly original: M; readonly message: M }> | undefined
}

/**
 * Freezes a value and everything reachable from it (cycle-safe), and returns it. Use it to prove a
 * function never mutates its input: a write to a frozen object throws in strict mode.
 *
 * @example
 * ```ts
 * import { deepFreeze } from "@ctxkit/testing"
 *
 * const messages = deepFreeze([{ role: "user", content: "hi" }])
 * Object.isFrozen(messages[0]) // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const deepFreeze = <A>(value: A): A => {
  const seen = new WeakSet<object>()
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next !== "object" || next === null || seen.has(next)) continue
    seen.add(next)
    if (ArrayBuffer.isView(next)) continue
    Object.freeze(next)
    for (const key of Reflect.ownKeys(next)) stack.push((next as Record<PropertyKey, unknown>)[key])
  }
  return value
}

/** Input messages as the selection used them: inserted ones skipped, replaced ones mapped to their originals. */
const originals = <M>(selection: Selection<M>): { readonly sent: Array<M> } => {
  const inserted = new Set<M>(selection.inserted ?? [])
  const replacedBy = new Map<M, M>()
  for (const r of selection.replaced ?? []) replacedBy.set(r.message, r.original)
  const sent: Array<M> = []
  for (const m of selection.kept) {
    if (inserted.has(m)) continue
    sent.push(replacedBy.get(m) ?? m)
  }
  return { sent }
}

/**
 * L1 partition & order: every input message is either kept (itself or a replacement) or excluded,
 * exactly once, and the kept ones keep their input order.
 *
 * @example
 * ```ts
 * import { partitionViolations } from "@ctxkit/testing"
 *
 * const input = ["a", "b", "c"]
 * partitionViolations(input, { kept: ["a", "c"], excluded: ["b"] }) // []
 * partitionViolations(input, { kept: ["c", "a"], excluded: ["b"] }).length > 0 // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const partitionViolations = <M>(input: ReadonlyArray<M>, selection: Selection<NoInfer<M>>): Array<string> => {
  const violations: Array<string> = []
  const position = new Map<M, Array<number>>()
  input.forEach((m, i) => {
    const at = position.get(m)
    if (at === undefined) position.set(m, [i])
    else at.push(i)
  })
  const used = new Uint8Array(input.length)
  const take = (m: M, after: number): number => {
    const at = position.get(m)
    if (at === undefined) return -1
    for (const i of at) if (used[i] === 0 && i > after) return i
    return -1
  }
  let last = -1
  const { sent } = originals(selection)
  for (const m of sent) {
    const i = take(m, last)
    if (i === -1) {
      violations.push(
        `L1: a kept message is not an input message (or is out of order) at kept position ${sent.indexOf(m)}`
      )
      continue
    }
    used[i] = 1
    last = i
  }
  for (const m of selection.excluded) {
    const i = take(m, -1)
    if (i === -1) violations.push("L1: an excluded message is not an input message, or is listed twice")
    else used[i] = 1
  }
  used.forEach((u, i) => {
    if (u === 0) violations.push(`L1: input message ${i} is neither kept nor excluded`)
  })
  return violations
}

/**
 * L2 pairs: no tool-call group of the input is split between kept and excluded, and if the input has no
 * orphan result, neither has the output.
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { pairViolations } from "@ctxkit/testing"
 *
 * const call: Message = { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ls", arguments: "{}" }] }
 * const result: Message = { role: "tool", toolCallId: "a", content: "x" }
 * pairViolations([call, result], { kept: [result], excluded: [call] }, formats.canonical).length > 0 // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const pairViolations = <M = unknown>(
  input: ReadonlyArray<NoInfer<M>>,
  selection: Selection<NoInfer<M>>,
  format: MessageFormat<M> = formats.auto as MessageFormat<M>
): Array<string> => {
  const violations: Array<string> = []
  const { groups, diagnostics } = toolGroups(input, format)
  const kept = new Set(originals(selection).sent)
  for (const group of groups) {
    const inKept = group.filter((i) => kept.has(input[i]!)).length
    if (inKept !== 0 && inKept !== group.length) {
      violations.push(`L2: group [${group.join(", ")}] is split: ${inKept} of ${group.length} kept`)
    }
  }
  // Orphans, of results and of approval responses, are checked each on their own: an input with none of a kind
  // must give an output with none of that kind.
  const hadOrphanResult = diagnostics.some((d) => d._tag === "OrphanResult")
  const hadOrphanResponse = diagnostics.some((d) => d._tag === "OrphanApprovalResponse")
  if (!hadOrphanResult || !hadOrphanResponse) {
    for (const d of toolGroups(selection.kept, format).diagnostics) {
      if (d._tag === "OrphanResult" && !hadOrphanResult) {
        violations.push(`L2: the output has an orphan result for call "${d.callId}"`)
      } else if (d._tag === "OrphanApprovalResponse" && !hadOrphanResponse) {
        violations.push(`L2: the output has an orphan approval response for approval "${d.approvalId}"`)
      }
    }
  }
  return violations
}

const callIds = <M>(format: MessageFormat<M>, m: M): string =>
  JSON.stringify([format.toolCalls(m).map((c) => c.id), format.toolResults(m).map((r) => r.callId)])

/**
 * L3 identity: replaced messages keep their role, message id and call ids; kept messages that were not
 * replaced are the very input objects (checked by {@link partitionViolations}).
 *
 * @example
 * ```ts
 * import { formats, type Message } from "@ctxkit/core"
 * import { identityViolations } from "@ctxkit/testing"
 *
 * const original: Message = { role: "user", content: "long text" }
 * const message: Message = { role: "assistant", content: "short" }
 * identityViolations({ kept: [message], excluded: [], replaced: [{ original, message }] }, formats.canonical).length // 1
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const identityViolations = <M = unknown>(
  selection: Selection<NoInfer<M>>,
  format: MessageFormat<M> = formats.auto as MessageFormat<M>
): Array<string> => {
  const violations: Array<string> = []
  for (const { message, original } of selection.replaced ?? []) {
    if (format.role(message) !== format.role(original)) violations.push("L3: a replaced message changed role")
    if (format.id(message) !== format.id(original)) violations.push("L3: a replaced message changed id")
    if (callIds(format, message) !== callIds(format, original)) {
      violations.push("L3: a replaced message changed its call ids")
    }
  }
  return violations
}

/**
 * Structural equality for plain data (arrays, plain objects, primitives; class instances compared by
 * their own enumerable fields and prototype).
 *
 * @example
 * ```ts
 * import { deepEqual } from "@ctxkit/testing"
 *
 * deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }) // true
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const deepEqual = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  }
  return true
}

/**
 * L9 purity: `f` works on a deep-frozen input (so it mutates nothing), does not throw, and gives equal
 * results when called twice.
 *
 * @example
 * ```ts
 * import { purityViolations } from "@ctxkit/testing"
 *
 * purityViolations((xs: ReadonlyArray<number>) => xs.filter((x) => x > 1), [1, 2, 3]) // []
 * purityViolations((xs: Array<number>) => xs.sort(), [3, 1]).length // 1
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const purityViolations = <I, O>(f: (input: I) => O, input: I): Array<string> => {
  deepFreeze(input)
  let first: O
  let second: O
  try {
    first = f(input)
    second = f(input)
  } catch (error) {
    return [`L9: the function threw on a deep-frozen input: ${error instanceof Error ? error.message : String(error)}`]
  }
  return deepEqual(first, second) ? [] : ["L9: two calls on the same input gave different results"]
}

/**
 * A fast-check property checking L1, L2, L3 and L9 for a selection function over generated conversations
 * (from `conversation(format)` in this package, or your own arbitrary of {@link Rendered} conversations).
 * Fails with the list of violations.
 *
 * @example
 * ```ts
 * import { formats } from "@ctxkit/core"
 * import { conversation, selectionLaws } from "@ctxkit/testing"
 * import * as fc from "fast-check"
 *
 * // "keep everything" trivially satisfies the laws
 * fc.assert(selectionLaws((messages) => ({ kept: messages, excluded: [] }), {
 *   arbitrary: conversation("openaiChat"),
 *   format: formats.openaiChat as never
 * }))
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const selectionLaws = <M>(
  select: (messages: ReadonlyArray<M>) => Selection<M>,
  options: { readonly arbitrary: fc.Arbitrary<Rendered<M>>; readonly format?: MessageFormat<M> | undefined }
): fc.IPropertyWithHooks<[Rendered<M>]> =>
  fc.property(options.arbitrary, (rendered) => {
    const input = rendered.messages
    const violations = purityViolations(select, input)
    if (violations.length === 0) {
      const selection = select(input)
      violations.push(
        ...partitionViolations(input, selection),
        ...pairViolations(input, selection, options.format),
        ...identityViolations(selection, options.format)
      )
    }
    if (violations.length > 0) throw new Error(violations.join("\n"))
  })
