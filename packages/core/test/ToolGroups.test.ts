import { formats, makeFormat, type Message, type MessageFormat, toolGroups } from "@ctxkit/core"
import { conversation, deepFreeze, formatNames, formatOf, groupsFromKeys, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const call = (id: string, name = "read_file") => ({ id, name, arguments: `{"path":"${id}.ts"}` })

describe("toolGroups on hand-written conversations", () => {
  it("keeps parallel calls with all their results, even far apart", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Read a and b" },
      { role: "assistant", content: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", toolCallId: "a", content: "export const a = 1" },
      { role: "user", content: "(while b runs) also check the README" },
      { role: "assistant", content: "Noted." },
      { role: "tool", toolCallId: "b", content: "export const b = 2" }
    ]
    const { diagnostics, groupOf, groups } = toolGroups(messages, formats.canonical)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3, 6], [4], [5]])
    assert.deepStrictEqual(groupOf, [0, 1, 2, 2, 3, 4, 2])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("joins groups transitively when one message answers calls of two turns", () => {
    const messages = [
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ls", input: {} }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "cat", input: { path: "x" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "x" },
          { type: "tool_result", tool_use_id: "t2", content: "hello" }
        ]
      },
      { role: "user", content: "thanks" }
    ]
    assert.deepStrictEqual(toolGroups(messages, formats.anthropic).groups, [[0, 1, 2], [3]])
  })

  it("reports orphan results, dangling calls and reused ids without throwing", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "tool", toolCallId: "ghost", content: "stale" },
      { role: "assistant", content: "", toolCalls: [call("x"), call("y")] },
      { role: "tool", toolCallId: "x", content: "ok" },
      { role: "assistant", content: "", toolCalls: [call("x")] }
    ]
    const { diagnostics, groups } = toolGroups(messages, formats.canonical)
    assert.deepStrictEqual(
      diagnostics.map((d) => [d._tag, "callId" in d ? d.callId : "", "index" in d ? d.index : -1]),
      [["ReusedCallId", "x", 3], ["OrphanResult", "ghost", 0], ["DanglingCall", "y", 1], ["DanglingCall", "x", 3]]
    )
    assert.deepStrictEqual(groups, [[0], [1, 2], [3]])
    for (const d of diagnostics) assert.include(d.message, "callId" in d ? d.callId : "")
  })

  it("groups a result met before its call with that call, among calls met first (no diagnostic)", () => {
    // The walk adds a new call id without looking it up first; an id it already knew (here from the result)
    // makes it walk again, looking every call up.
    const messages: ReadonlyArray<Message> = [
      { role: "assistant", content: "", toolCalls: [call("a")] },
      { role: "tool", toolCallId: "a", content: "a" },
      { role: "tool", toolCallId: "late", content: "replayed first" },
      { role: "user", content: "go on" },
      { role: "assistant", content: "", toolCalls: [call("late"), call("b")] },
      { role: "tool", toolCallId: "b", content: "b" }
    ]
    const { diagnostics, groups } = toolGroups(messages, formats.canonical)
    assert.deepStrictEqual(groups, [[0, 1], [2, 4, 5], [3]])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("pairs a reused id with its latest call once the earlier one was answered (per-response numbering)", () => {
    // Servers that number calls per response ("call_0" every turn), and replayed trajectories, reuse ids.
    const messages: ReadonlyArray<Message> = [
      { role: "assistant", content: "", toolCalls: [call("call_0")] },
      { role: "tool", toolCallId: "call_0", content: "first" },
      { role: "assistant", content: "", toolCalls: [call("call_0")] },
      { role: "tool", toolCallId: "call_0", content: "second" },
      { role: "assistant", content: "", toolCalls: [call("call_0", "ls"), call("call_1")] },
      { role: "tool", toolCallId: "call_0", content: "third" },
      { role: "tool", toolCallId: "call_1", content: "fourth" }
    ]
    const { diagnostics, groups } = toolGroups(messages, formats.canonical)
    assert.deepStrictEqual(groups, [[0, 1], [2, 3], [4, 5, 6]])
    assert.deepStrictEqual(diagnostics.map((d) => d._tag === "ReusedCallId" ? [d.first, d.index] : d._tag), [[0, 2], [
      2,
      4
    ]])
  })

  it("keeps two unanswered calls with one id together with their results: they cannot be told apart", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "assistant", content: "", toolCalls: [call("dup")] },
      { role: "assistant", content: "", toolCalls: [call("dup")] },
      { role: "tool", toolCallId: "dup", content: "which?" },
      { role: "user", content: "hm" }
    ]
    assert.deepStrictEqual(toolGroups(messages, formats.canonical).groups, [[0, 1, 2], [3]])
  })

  it("groups a message that attaches to the next one with it", () => {
    interface Item {
      readonly kind: "reasoning" | "call" | "output" | "text"
      readonly id?: string
    }
    const items = makeFormat<Item>({
      name: "items",
      role: (m) => m.kind === "output" ? "tool" : m.kind === "text" ? "user" : "assistant",
      toolCalls: (m) => m.kind === "call" && m.id ? [{ id: m.id, name: "f", arguments: "" }] : [],
      toolResults: (m) => m.kind === "output" && m.id ? [{ callId: m.id, isError: false, text: "" }] : [],
      attachesToNext: (m) => m.kind === "reasoning",
      text: () => "",
      withText: (m) => m,
      withResultText: (m) => m,
      withoutToolParts: (m) => m,
      makeNote: () => ({ kind: "text" }),
      makeToolResults: () => [],
      validate: () => []
    })
    const messages: ReadonlyArray<Item> = [
      { kind: "text" },
      { kind: "reasoning" },
      { kind: "call", id: "c" },
      { kind: "reasoning" },
      { kind: "output", id: "c" },
      { kind: "reasoning" }
    ]
    assert.deepStrictEqual(toolGroups(messages, items).groups, [[0], [1, 2, 3, 4], [5]])
  })

  it("handles empty input and garbage messages", () => {
    assert.deepStrictEqual(toolGroups([]), { groups: [], groupOf: [], diagnostics: [] })
    const garbage = [null, 42, "text", [], { role: 7 }, { content: {} }] as ReadonlyArray<unknown>
    for (const format of Object.values(formats) as ReadonlyArray<MessageFormat<unknown>>) {
      const { groups } = toolGroups(garbage, format)
      assert.deepStrictEqual(groups, [[0], [1], [2], [3], [4], [5]], format.name)
    }
  })

  it("tracks more call ids than there are messages (one turn issuing many parallel calls)", () => {
    const ids = Array.from({ length: 20 }, (_, k) => `toolu_${k}`)
    const messages = [
      { role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "Read", input: { id } })) },
      {
        role: "user",
        content: ids.slice(0, 17).map((id) => ({ type: "tool_result", tool_use_id: id, content: "ok" }))
      }
    ]
    const { diagnostics, groupOf, groups } = toolGroups(messages, formats.anthropic)
    assert.deepStrictEqual(groups, [[0, 1]])
    assert.deepStrictEqual(groupOf, [0, 0])
    assert.deepStrictEqual(
      diagnostics.map((d) => d._tag === "DanglingCall" ? `${d.callId}@${d.index}` : d._tag),
      ["toolu_17@0", "toolu_18@0", "toolu_19@0"]
    )
  })
})

describe("toolGroups laws, on generated conversations in every format", () => {
  for (const name of formatNames) {
    const format = formatOf(name)
    it(`${name}: groups equal the rendering oracle; partition, order, groupOf`, () => {
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true }), (rendered) => {
          const { groupOf, groups } = toolGroups(rendered.messages, format)
          assert.deepStrictEqual(groups, groupsFromKeys(rendered))
          const seen = groups.flat().sort((a, b) => a - b)
          assert.deepStrictEqual(seen, rendered.messages.map((_, i) => i))
          groups.forEach((group, g) => {
            for (let k = 1; k < group.length; k++) assert.isTrue(group[k - 1]! < group[k]!)
            if (g > 0) assert.isTrue(groups[g - 1]![0]! < group[0]!)
            for (const i of group) assert.strictEqual(groupOf[i], g)
          })
        }),
        { numRuns: runs.most }
      )
    })

    it(`${name}: every call is grouped with all its results, and diagnostics match what was generated`, () => {
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true }), (rendered) => {
          const { diagnostics, groupOf } = toolGroups(rendered.messages, format)
          const callers = new Map<string, number>()
          rendered.messages.forEach((m, i) => {
            for (const c of format.toolCalls(m)) callers.set(c.id, i)
          })
          const answered = new Set<string>()
          let orphans = 0
          rendered.messages.forEach((m, i) => {
            for (const r of format.toolResults(m)) {
              answered.add(r.callId)
              const at = callers.get(r.callId)
              if (at === undefined) orphans++
              else assert.strictEqual(groupOf[at], groupOf[i])
            }
          })
          // A call whose approval was answered awaits execution; an answer with no request is an orphan.
          const requests = new Map<string, string>()
          const responses = new Set<string>()
          for (const m of rendered.messages) {
            for (const a of format.approvals(m)) {
              if (a.kind === "request") requests.set(a.approvalId, a.callId)
              else responses.add(a.approvalId)
            }
          }
          const approvedCalls = new Set([...requests].filter(([id]) => responses.has(id)).map(([, callId]) => callId))
          const unanswered = [...callers.keys()].filter((id) => !answered.has(id))
          const dangling = unanswered.filter((id) => !approvedCalls.has(id)).length
          const awaiting = unanswered.length - dangling
          const orphanResponses = [...responses].filter((id) => !requests.has(id)).length
          assert.strictEqual(diagnostics.filter((d) => d._tag === "OrphanResult").length, orphans)
          assert.strictEqual(diagnostics.filter((d) => d._tag === "DanglingCall").length, dangling)
          assert.strictEqual(diagnostics.filter((d) => d._tag === "AwaitingExecution").length, awaiting)
          assert.strictEqual(diagnostics.filter((d) => d._tag === "OrphanApprovalResponse").length, orphanResponses)
          assert.strictEqual(diagnostics.filter((d) => d._tag === "ReusedCallId").length, 0)
        }),
        { numRuns: runs.many }
      )
    })

    it(`${name}: well-formed conversations have no diagnostics`, () => {
      fc.assert(
        fc.property(conversation(name), (rendered) => {
          assert.deepStrictEqual(toolGroups(rendered.messages, format).diagnostics, [])
        }),
        { numRuns: runs.many }
      )
    })

    it(`${name}: a result met again before its call joins that call's group, and nothing else changes`, () => {
      // The copy at the front is a result seen before any call for its id: the walk must start again, looking
      // each call's id up, and give the original partition with the copy in its call's group.
      fc.assert(
        fc.property(conversation(name), fc.nat(), (rendered, pick) => {
          // A message that only answers (a Responses `mcp_call` both calls and answers: a copy would reuse its id).
          const answers = rendered.messages.flatMap((m, i) =>
            format.toolResults(m).length > 0 && format.toolCalls(m).length === 0 ? [i] : []
          )
          fc.pre(answers.length > 0)
          const j = answers[pick % answers.length]!
          const before = toolGroups(rendered.messages, format).groupOf
          const { diagnostics, groupOf } = toolGroups([rendered.messages[j]!, ...rendered.messages], format)
          assert.deepStrictEqual(diagnostics, [])
          // Same partition, shifted by one, with message 0 in the group of message j + 1.
          for (let a = 0; a < before.length; a++) {
            for (let b = 0; b < before.length; b++) {
              assert.strictEqual(groupOf[a + 1] === groupOf[b + 1], before[a] === before[b])
            }
          }
          assert.strictEqual(groupOf[0], groupOf[j + 1])
        }),
        { numRuns: runs.some }
      )
    })

    it(`${name}: pure (deep-frozen input, deterministic) and auto-detection agrees`, () => {
      fc.assert(
        fc.property(conversation(name, { orphans: true, dangling: true }), (rendered) => {
          assert.deepStrictEqual(purityViolations((ms) => toolGroups(ms, format), rendered.messages), [])
          assert.deepStrictEqual(
            toolGroups(deepFreeze(rendered.messages), formats.auto).groups,
            toolGroups(rendered.messages, format).groups
          )
        }),
        { numRuns: runs.more }
      )
    })
  }
})

describe("toolGroups on any link graph", () => {
  // Messages that are nothing but their links, so that every order, reuse and merge can be generated.
  interface Linked {
    readonly links: ReadonlyArray<{ readonly kind: "call" | "result" | "ref"; readonly id: string }>
    readonly attach: boolean
  }
  const linked = makeFormat<Linked>({
    name: "linked",
    role: () => "assistant",
    forEachLink: (m, visit) => {
      for (const link of m.links) visit(link.kind, link.id)
    },
    toolCalls: (m) => m.links.flatMap((l) => l.kind === "call" ? [{ id: l.id, name: "f", arguments: "" }] : []),
    toolResults: (m) => m.links.flatMap((l) => l.kind === "result" ? [{ callId: l.id, isError: false, text: "" }] : []),
    attachesToNext: (m) => m.attach,
    text: () => "",
    withText: (m) => m,
    withResultText: (m) => m,
    withoutToolParts: (m) => m,
    makeNote: () => ({ links: [], attach: false }),
    makeToolResults: () => [],
    validate: () => []
  })

  /**
   * The rules of the walk, stated plainly: the pairs of messages each link ties together, then the connected
   * components by repeated relabelling (quadratic, and independent of the walk's numbering as it goes).
   */
  const oracle = (messages: ReadonlyArray<Linked>): Array<number> => {
    const ties: Array<readonly [number, number]> = []
    const firstWithKey = new Map<string, number>()
    const ids = new Map<string, { anchor: number; issuer: number; answered: boolean }>()
    messages.forEach((m, i) => {
      for (const { id, kind } of m.links) {
        if (kind === "ref") {
          const first = firstWithKey.get(id)
          if (first === undefined) firstWithKey.set(id, i)
          else ties.push([first, i])
          continue
        }
        const known = ids.get(id)
        if (known === undefined) {
          ids.set(id, { anchor: i, issuer: kind === "call" ? i : -1, answered: kind === "result" })
        } else if (kind === "result") {
          ties.push([known.anchor, i])
          known.answered = true
        } else if (known.issuer === -1) {
          ties.push([known.anchor, i])
          known.issuer = i
        } else if (known.answered && known.issuer !== i) {
          // An answered call's id used again: a new call, in a new group.
          Object.assign(known, { anchor: i, issuer: i, answered: false })
        } else ties.push([known.anchor, i])
      }
      if (m.attach && i + 1 < messages.length) ties.push([i, i + 1])
    })
    const label = messages.map((_, i) => i)
    for (let changed = true; changed;) {
      changed = false
      for (const [a, b] of ties) {
        const low = Math.min(label[a]!, label[b]!)
        for (const x of [a, b]) {
          if (label[x] !== low) {
            for (let k = 0; k < label.length; k++) if (label[k] === label[x] && k !== x) label[k] = low
            label[x] = low
            changed = true
          }
        }
      }
    }
    const number = new Map<number, number>()
    return label.map((l) => number.get(l) ?? (number.set(l, number.size), number.size - 1))
  }

  const message: fc.Arbitrary<Linked> = fc.record({
    links: fc.array(
      fc.record({ kind: fc.constantFrom("call", "result", "ref"), id: fc.constantFrom("a", "b", "c", "d", "e") }),
      { maxLength: 3 }
    ),
    // One message in four attaches to the next.
    attach: fc.nat(3).map((k) => k === 0)
  })

  it("numbers the groups by first member and ties exactly what the rules tie, whatever the order of links", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), (messages) => {
        assert.deepStrictEqual(toolGroups(messages, linked).groupOf, oracle(messages))
      }),
      { numRuns: runs.most }
    )
  })

  it("merges two groups when one message names both, and numbers the rest again", () => {
    const messages: ReadonlyArray<Linked> = [
      { links: [{ kind: "call", id: "a" }], attach: false },
      { links: [], attach: false },
      { links: [{ kind: "call", id: "b" }], attach: false },
      { links: [{ kind: "result", id: "b" }, { kind: "result", id: "a" }], attach: false },
      { links: [], attach: false }
    ]
    const { groupOf, groups } = toolGroups(messages, linked)
    assert.deepStrictEqual(groupOf, [0, 1, 0, 0, 2])
    assert.deepStrictEqual(groups, [[0, 2, 3], [1], [4]])
  })
})
