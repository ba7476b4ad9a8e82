import { formats, type Message, type MessageFormat, toolGroups } from "@ctxkit/core"
import {
  conversation,
  deepEqual,
  deepFreeze,
  identityViolations,
  keepTurnsViolations,
  pairViolations,
  partitionViolations,
  purityViolations,
  selectionLaws
} from "@ctxkit/testing"
import type { Selection } from "@ctxkit/testing/Laws"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const call: Message = { role: "assistant", content: "", toolCalls: [{ id: "a", name: "ls", arguments: "{}" }] }
const result: Message = { role: "tool", toolCallId: "a", content: "x" }
const user: Message = { role: "user", content: "hi" }
const input: ReadonlyArray<Message> = [user, call, result]

describe("law checks catch what they must", () => {
  it("L1: reordering, losing or inventing messages", () => {
    assert.deepStrictEqual(partitionViolations(input, { kept: input, excluded: [] }), [])
    assert.isNotEmpty(partitionViolations(input, { kept: [call, user, result], excluded: [] }))
    assert.isNotEmpty(partitionViolations(input, { kept: [user], excluded: [call] }))
    assert.isNotEmpty(
      partitionViolations(input, { kept: [{ role: "user", content: "hi" }, call, result], excluded: [] })
    )
    assert.isNotEmpty(partitionViolations(input, { kept: input, excluded: [user] }))
    // inserted and replaced messages are accounted for
    const note: Message = { role: "user", content: "[Summary]", summary: true }
    const shorter: Message = { role: "tool", toolCallId: "a", content: "…" }
    assert.deepStrictEqual(
      partitionViolations(input, {
        kept: [note, call, shorter],
        excluded: [user],
        inserted: [note],
        replaced: [{ original: result, message: shorter }]
      }),
      []
    )
  })

  it("L2: split groups and new orphans", () => {
    assert.deepStrictEqual(pairViolations(input, { kept: [user], excluded: [call, result] }, formats.canonical), [])
    const split = pairViolations(input, { kept: [user, result], excluded: [call] }, formats.canonical)
    assert.isTrue(split.some((v) => v.includes("split")))
    assert.isTrue(split.some((v) => v.includes("orphan")))
  })

  it("L3: a rewrite that changes a call id or role", () => {
    const renamed: Message = { role: "tool", toolCallId: "b", content: "x" }
    assert.isNotEmpty(
      identityViolations(
        { kept: [renamed], excluded: [], replaced: [{ original: result, message: renamed }] },
        formats.canonical
      )
    )
    const fine: Message = { role: "tool", toolCallId: "a", content: "stub" }
    assert.deepStrictEqual(
      identityViolations(
        { kept: [fine], excluded: [], replaced: [{ original: result, message: fine }] },
        formats.canonical
      ),
      []
    )
  })

  it("L11: a larger keepTurns that keeps fewer messages", () => {
    const history = ["u0", "a0", "u1", "a1", "u2", "a2"]
    const at = (cut: number) => ({
      _tag: "CompactionPlan",
      summarized: history.slice(0, cut),
      kept: history.slice(cut)
    })
    // The kept counts by keepTurns: 0, 2, 4, 4, … is fine; 0, 2, 1 is not (keepTurns 2 keeps fewer than 1).
    assert.deepStrictEqual(keepTurnsViolations(history, (k) => at(Math.max(2, 6 - 2 * k)), [0, 1, 2, 3]), [])
    const bad = keepTurnsViolations(history, (k) => at(k === 2 ? 5 : 6 - 2 * k), [0, 1, 2, 3])
    assert.deepStrictEqual(bad, ["L11: keepTurns 2 keeps 1 message but keepTurns 1 keeps 2"])
    // A no-plan keeps everything: a plan after it with fewer kept is a violation; invalid options are one too.
    const none = { _tag: "NoPlan", reason: "nothing-to-summarize" }
    assert.isNotEmpty(keepTurnsViolations(history, (k) => k === 0 ? none : at(4), [0, 1]))
    assert.isNotEmpty(keepTurnsViolations(history, () => ({ _tag: "NoPlan", reason: "invalid-options" }), [1]))
  })

  it("L9: mutation, throwing, nondeterminism", () => {
    assert.isNotEmpty(purityViolations((ms: Array<{ n: number }>) => ms.map((m) => (m.n++, m)), [{ n: 1 }]))
    let calls = 0
    assert.isNotEmpty(purityViolations(() => ++calls, null))
    assert.deepStrictEqual(purityViolations((xs: ReadonlyArray<number>) => xs.slice(1), [1, 2]), [])
  })

  it("deepFreeze and deepEqual", () => {
    const value = deepFreeze({ a: [{ b: 1 }] })
    assert.isTrue(Object.isFrozen(value.a[0]))
    assert.isTrue(deepEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }))
    assert.isFalse(deepEqual({ a: [1] }, { a: [1], b: undefined }))
    assert.isFalse(deepEqual([1], { 0: 1 }))
  })

  it("selectionLaws passes a correct selector and fails a pair-splitting one", () => {
    const format = formats.canonical as MessageFormat<unknown>
    // Correct: drop the oldest group.
    const dropFirstGroup = (messages: ReadonlyArray<unknown>): Selection<unknown> => {
      const { groups } = toolGroups(messages, format)
      const gone = new Set(groups[0] ?? [])
      return { kept: messages.filter((_, i) => !gone.has(i)), excluded: messages.filter((_, i) => gone.has(i)) }
    }
    fc.assert(selectionLaws(dropFirstGroup, { arbitrary: conversation("canonical"), format }), {
      numRuns: runs.standard
    })
    // Wrong: drop the first assistant message alone, leaving its results behind.
    const dropFirstAssistant = (messages: ReadonlyArray<unknown>): Selection<unknown> => {
      const at = messages.findIndex((m) => format.toolCalls(m).length > 0)
      return { kept: messages.filter((_, i) => i !== at), excluded: at === -1 ? [] : [messages[at]] }
    }
    assert.throws(() =>
      fc.assert(selectionLaws(dropFirstAssistant, { arbitrary: conversation("canonical"), format }), {
        numRuns: runs.more
      })
    )
  })
})
