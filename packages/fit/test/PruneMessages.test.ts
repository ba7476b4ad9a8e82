import { type AiSdkMessage, formats, type MessageFormat, toolGroups } from "@ctxkit/core"
import { pruneMessages } from "@ctxkit/fit"
import { conversation, deepFreeze, formatNames, formatOf, purityViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as fc from "fast-check"

const ai = formats.aiSdk

const call = (id: string, toolName: string, reasoning?: string): AiSdkMessage => ({
  role: "assistant",
  content: [
    ...(reasoning === undefined ? [] : [{ type: "reasoning" as const, text: reasoning }]),
    { type: "tool-call", toolCallId: id, toolName, input: {} }
  ]
})
const result = (id: string, toolName: string): AiSdkMessage => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: id, toolName, output: { type: "text", value: `${toolName} ok` } }]
})
const user = (text: string): AiSdkMessage => ({ role: "user", content: text })
const reply = (text: string, reasoning?: string): AiSdkMessage => ({
  role: "assistant",
  content: [
    ...(reasoning === undefined ? [] : [{ type: "reasoning" as const, text: reasoning }]),
    { type: "text", text }
  ]
})

// An agent turn loop: two weather lookups, a search, then the answer — the shapes of the AI SDK's examples.
const session: ReadonlyArray<AiSdkMessage> = deepFreeze([
  user("Weather in Paris and Rome, and any news?"), // 0
  call("w1", "weather", "Two cities: two calls."), // 1
  result("w1", "weather"), // 2
  call("w2", "weather", "Now Rome."), // 3
  result("w2", "weather"), // 4
  call("s1", "search"), // 5
  result("s1", "search"), // 6
  reply("Paris 18°C, Rome 24°C; no news.", "Summing up.") // 7
])

const kinds = (removed: ReadonlyArray<{ readonly kind: string }>) => removed.map((r) => r.kind)

describe("pruneMessages: the AI SDK's documented options", () => {
  it("defaults remove nothing and return the input array itself", () => {
    const out = pruneMessages(session, { format: ai })
    assert.strictEqual(out.messages, session)
    assert.deepStrictEqual(out.removed, [])
    assert.deepStrictEqual(out.diagnostics, [])
  })

  it("reasoning: \"all\" removes the reasoning of every assistant message, \"before-last-message\" spares the last", () => {
    const all = pruneMessages(session, { reasoning: "all", format: ai })
    assert.deepStrictEqual(all.removed, [1, 3, 7].map((index) => ({ kind: "reasoning", index })))
    assert.isFalse(all.messages.some((m) => ai.text(m).includes("Summing up.")))
    const beforeLast = pruneMessages(session, { reasoning: "before-last-message", format: ai })
    assert.deepStrictEqual(beforeLast.removed, [1, 3].map((index) => ({ kind: "reasoning", index })))
    assert.strictEqual(beforeLast.messages[7], session[7])
    // Calls stay: only the reasoning part went.
    assert.deepStrictEqual(
      beforeLast.messages.map((m) => ai.toolCalls(m).map((c) => c.id)),
      session.map((m) => ai.toolCalls(m).map((c) => c.id))
    )
  })

  it("toolCalls: \"before-last-2-messages\" removes calls and results mentioned only before the last two messages", () => {
    const out = pruneMessages(session, { toolCalls: "before-last-2-messages", format: ai })
    // The search (messages 5–6) is in the last two; both weather calls and their results go, messages and all.
    assert.deepStrictEqual(out.messages, [session[0], session[5], session[6], session[7]])
    assert.deepStrictEqual(
      out.removed.filter((r) => r.kind === "tool-call").map((r) => r.kind === "tool-call" ? [r.callId, r.indices] : []),
      [["w1", [1, 2]], ["w2", [3, 4]]]
    )
    assert.deepStrictEqual(toolGroups(out.messages, ai).diagnostics, [])
  })

  it("toolCalls: \"before-last-message\" spares only the last message's; \"all\" removes every call", () => {
    const lastCall: ReadonlyArray<AiSdkMessage> = deepFreeze([
      ...session.slice(0, 6),
      user("go on"),
      call("x", "search")
    ])
    const out = pruneMessages(lastCall, { toolCalls: "before-last-message", format: ai })
    assert.deepStrictEqual(out.messages, [lastCall[0], lastCall[6], lastCall[7]])
    const all = pruneMessages(session, { toolCalls: "all", format: ai })
    assert.deepStrictEqual(all.messages, [session[0], session[7]])
  })

  it("toolCalls as a list of rules: only the named tools are pruned", () => {
    const out = pruneMessages(session, { toolCalls: [{ type: "before-last-message", tools: ["weather"] }], format: ai })
    assert.deepStrictEqual(out.messages, [session[0], session[5], session[6], session[7]])
  })

  it("a call mentioned in the last N messages is kept everywhere, however far its call is", () => {
    const far: ReadonlyArray<AiSdkMessage> = deepFreeze([
      user("deploy"),
      call("d1", "deploy"),
      user("status?"),
      result("d1", "deploy")
    ])
    assert.strictEqual(pruneMessages(far, { toolCalls: "before-last-message", format: ai }).messages, far)
  })

  it("approvals go with their call: request and response, wherever they sit", () => {
    const approved: ReadonlyArray<AiSdkMessage> = deepFreeze([
      user("deploy"),
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "d1", toolName: "deploy", input: {} },
          { type: "tool-approval-request", approvalId: "a1", toolCallId: "d1" }
        ]
      },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
      result("d1", "deploy"),
      reply("Deployed."),
      user("thanks")
    ])
    const out = pruneMessages(approved, { toolCalls: "before-last-2-messages", format: ai })
    assert.deepStrictEqual(out.messages, [approved[0], approved[4], approved[5]])
    assert.deepStrictEqual(out.removed.find((r) => r.kind === "tool-call"), {
      kind: "tool-call",
      callId: "d1",
      name: "deploy",
      indices: [1, 2, 3]
    })
  })

  it("emptyMessages: \"remove\" (default) removes empty messages, \"keep\" keeps those empty in the input", () => {
    const withEmpty: ReadonlyArray<AiSdkMessage> = deepFreeze([
      user("hi"),
      { role: "assistant", content: [] },
      user("")
    ])
    assert.deepStrictEqual(pruneMessages(withEmpty, { format: ai }).messages, [withEmpty[0]])
    assert.strictEqual(pruneMessages(withEmpty, { emptyMessages: "keep", format: ai }).messages, withEmpty)
    // Emptied by pruning: removed even under "keep".
    const onlyReasoning: ReadonlyArray<AiSdkMessage> = deepFreeze([user("hi"), reply("", "thinking…"), user("?")])
    const out = pruneMessages(onlyReasoning, { reasoning: "all", emptyMessages: "keep", format: ai })
    assert.deepStrictEqual(out.messages, [onlyReasoning[0], onlyReasoning[2]])
    assert.deepStrictEqual(kinds(out.removed), ["reasoning", "message"])
  })

  it("protected and pinned messages are never touched", () => {
    const pinned: ReadonlyArray<AiSdkMessage> = deepFreeze([
      { role: "system", content: "" },
      user("go"),
      { ...call("p1", "read", "keep this"), pinned: true },
      result("p1", "read"),
      user("next")
    ])
    const out = pruneMessages(pinned, { reasoning: "all", toolCalls: "all", format: ai })
    assert.strictEqual(out.messages, pinned)
  })

  it("an unusable option removes nothing for that option and says so; a non-array is reported", () => {
    const out = pruneMessages(session, {
      toolCalls: "before-last-x-messages" as "all",
      reasoning: "some" as "all",
      format: ai
    })
    assert.strictEqual(out.messages, session)
    assert.deepStrictEqual(out.diagnostics.map((d) => d._tag === "OptionAdjusted" ? [d.option, d.used] : [d._tag]), [
      ["reasoning", "\"none\""],
      ["toolCalls", "\"none\""]
    ])
    assert.include(out.diagnostics[1]!.message, "before-last-N-messages")
    const notArray = pruneMessages({ messages: session } as unknown as ReadonlyArray<AiSdkMessage>, { format: ai })
    assert.deepStrictEqual(notArray.diagnostics.map((d) => d._tag), ["NotAConversation"])
  })

  it("is data-last too", () => {
    const out = pipe(session, pruneMessages({ toolCalls: "all", format: ai }))
    assert.deepStrictEqual(out.messages, [session[0], session[7]])
  })

  it("works the same through formats.auto and in Anthropic thinking blocks", () => {
    // The last reply (reasoning and text only) is left out: telling it from a canonical message is `auto`'s
    // part of the same issue (AI SDK reasoning, defect 2), not pruning's.
    assert.deepStrictEqual(
      pruneMessages(session, { reasoning: "all", toolCalls: "before-last-2-messages" }).messages.slice(0, -1),
      pruneMessages(session, { reasoning: "all", toolCalls: "before-last-2-messages", format: ai }).messages.slice(
        0,
        -1
      )
    )
    const anthropic = deepFreeze([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hm", signature: "s" }, { type: "text", text: "hello" }]
      },
      { role: "user", content: "bye" }
    ])
    const out = pruneMessages(anthropic, { reasoning: "all", format: formats.anthropic })
    assert.deepStrictEqual(out.messages[1], { role: "assistant", content: [{ type: "text", text: "hello" }] })
  })
})

const noNewProblems = (
  before: ReadonlyArray<{ readonly _tag: string }>,
  after: ReadonlyArray<{ readonly _tag: string }>
) => {
  const count = (ds: ReadonlyArray<{ readonly _tag: string }>, tag: string) => ds.filter((d) => d._tag === tag).length
  for (const tag of ["OrphanResult", "OrphanApprovalResponse", "DanglingCall"]) {
    assert.isAtMost(count(after, tag), count(before, tag), tag)
  }
}

describe("pruneMessages: laws on generated conversations, every format", () => {
  const options = fc.record({
    reasoning: fc.constantFrom("all" as const, "before-last-message" as const, "none" as const),
    toolCalls: fc.oneof(
      fc.constantFrom("all" as const, "before-last-message" as const, "none" as const),
      fc.nat(6).map((n) => `before-last-${n}-messages` as const),
      fc.constant([{ type: "before-last-message" as const, tools: ["read_file", "search"] }])
    ),
    emptyMessages: fc.constantFrom("keep" as const, "remove" as const)
  })
  for (const name of formatNames) {
    const format = formatOf(name) as MessageFormat<unknown>
    it(`${name}: pair-safe, order-preserving, protected untouched, idempotent and pure`, () => {
      fc.assert(
        fc.property(conversation(name, { dangling: true, orphans: true, huge: false }), options, (rendered, o) => {
          const input = rendered.messages
          const out = pruneMessages(input, { ...o, format })
          // No new orphan or dangling call: calls, results and approvals went together.
          noNewProblems(toolGroups(input, format).diagnostics, toolGroups(out.messages, format).diagnostics)
          // Survivors keep their order; protected and pinned messages are all there, unchanged.
          const survivors = out.messages.filter((m) => input.includes(m))
          assert.deepStrictEqual(survivors, input.filter((m) => survivors.includes(m)))
          for (const m of input) if (format.isProtected(m) || format.isPinned(m)) assert.include(out.messages, m)
          assert.isAtMost(out.messages.length, input.length)
          // Removed messages are reported, by input index.
          const goneIndices = out.removed.filter((r) => r.kind === "message").map((r) =>
            r.kind === "message" ? r.index : -1
          )
          assert.strictEqual(out.messages.length, input.length - goneIndices.length)
          // Idempotent when the window cannot move (a "last N" window shifts as messages before it go).
          if (o.toolCalls === "all" || o.toolCalls === "none") {
            assert.strictEqual(pruneMessages(out.messages, { ...o, format }).messages, out.messages)
          }
          assert.deepStrictEqual(purityViolations((ms) => pruneMessages(ms, { ...o, format }), input), [])
        }),
        { numRuns: 150 }
      )
    })
  }
})
