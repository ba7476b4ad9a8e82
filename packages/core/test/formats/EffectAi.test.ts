import type { EffectAiMessage } from "@ctxkit/core"
import { toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import { effectAi as fmt } from "../../src/formats/EffectAi.ts"

const PART = "~effect/ai/Prompt/Part"
const MESSAGE = "~effect/ai/Prompt/Message"

// A sales analyst: a question with an attached CSV, parallel SQL queries plus a provider-executed code run
// answered in the assistant message, one query answered right away and the other (a failure with model
// output) after a pinned instruction, then a drop that needs approval, approved and answered in one tool
// message, and a final reply in the encoded (string content) form.
const session: ReadonlyArray<EffectAiMessage> = deepFreeze([
  Prompt.makeMessage("system", {
    content: "You answer questions about the sales warehouse. Read-only unless approved."
  }),
  Prompt.makeMessage("user", {
    content: [
      Prompt.makePart("text", { text: "Compare Q3 revenue for EU and US; targets attached." }),
      Prompt.makePart("file", { mediaType: "text/csv", fileName: "targets.csv", data: "region,q3\nEU,3.9\nUS,4.0" })
    ]
  }),
  Prompt.makeMessage("assistant", {
    content: [
      Prompt.makePart("reasoning", { text: "Two independent queries, then a quick chart." }),
      Prompt.makePart("tool-call", {
        id: "q_eu",
        name: "run_sql",
        params: { sql: "select sum(amount) from eu_sales where quarter = 3" },
        providerExecuted: false
      }),
      Prompt.makePart("tool-call", {
        id: "q_us",
        name: "run_sql",
        params: { sql: "select sum(amount) from us_sales where quarter = 3" },
        providerExecuted: false
      }),
      Prompt.makePart("tool-call", {
        id: "srv_code",
        name: "code_execution",
        params: { code: "print(3.9 / 4.0)" },
        providerExecuted: true
      }),
      Prompt.makePart("tool-result", {
        id: "srv_code",
        name: "code_execution",
        isFailure: false,
        result: { stdout: "0.975" },
        providerExecuted: true
      })
    ],
    options: { anthropic: { cacheControl: { type: "ephemeral" } } }
  }),
  Prompt.makeMessage("tool", {
    content: [
      Prompt.makePart("tool-result", {
        id: "q_us",
        name: "run_sql",
        isFailure: false,
        result: { rows: [{ sum: 4210000 }] },
        providerExecuted: false
      })
    ]
  }),
  Prompt.makeMessage("user", {
    content: [Prompt.makePart("text", { text: "Report amounts in millions, one decimal." })],
    options: { ctxkit: { pinned: true } }
  }),
  Prompt.makeMessage("tool", {
    content: [
      Prompt.makePart("tool-result", {
        id: "q_eu",
        name: "run_sql",
        isFailure: true,
        result: { code: "42P01" },
        modelOutput: [Prompt.makePart("text", { text: "ERROR: relation \"eu_sales\" does not exist" })],
        providerExecuted: false
      })
    ]
  }),
  Prompt.makeMessage("assistant", {
    content: [
      Prompt.makePart("text", { text: "The EU table is missing; a stale temp table blocks the rebuild." }),
      Prompt.makePart("tool-call", {
        id: "drop_1",
        name: "drop_table",
        params: { table: "tmp_q3" },
        providerExecuted: false
      }),
      Prompt.makePart("tool-approval-request", { approvalId: "ap_drop", toolCallId: "drop_1" })
    ]
  }),
  Prompt.makeMessage("tool", {
    content: [
      Prompt.makePart("tool-approval-response", { approvalId: "ap_drop", approved: true }),
      Prompt.makePart("tool-result", {
        id: "drop_1",
        name: "drop_table",
        isFailure: false,
        result: { dropped: true },
        providerExecuted: false
      })
    ]
  }),
  { role: "assistant", content: "US Q3 was 4.2M; EU could not be computed yet." }
])

const at = (i: number): EffectAiMessage => {
  const message = session[i]
  if (message === undefined) throw new Error(`no message ${i}`)
  return message
}

const isDecodedPart = (part: unknown): boolean => Prompt.isPart(part)

const garbage: ReadonlyArray<unknown> = [
  null,
  42,
  "hello",
  [],
  {},
  { content: {} },
  { role: "assistant", content: [null, 42, "x", {}, { type: "tool-call" }, { type: "tool-result", modelOutput: 5 }] },
  { role: "tool", content: [{ type: "tool-approval-request" }, { type: "tool-approval-response", approvalId: 7 }] },
  { role: "wizard", content: "abracadabra" }
]

describe("formats.effectAi", () => {
  it("accepts the real Prompt types", () => {
    // Compile-time checks: decoded and encoded prompt messages are lens messages.
    const decoded: ReadonlyArray<EffectAiMessage> = Prompt.make("hi").content
    const encoded: Prompt.MessageEncoded = { role: "user", content: "hi" }
    const asLens: EffectAiMessage = encoded
    assert.strictEqual(fmt.text(decoded[0] ?? asLens), "hi")
    assert.strictEqual(fmt.text(asLens), "hi")
  })

  it("reads roles, pins and protection", () => {
    assert.deepStrictEqual(session.map(fmt.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "user",
      "tool",
      "assistant",
      "tool",
      "assistant"
    ])
    assert.deepStrictEqual(session.map(fmt.isPinned), session.map((_, i) => i === 4))
    assert.deepStrictEqual(session.map(fmt.isProtected), session.map((_, i) => i === 0 || i === 4))
    assert.deepStrictEqual(fmt.meta(at(4)), { pinned: true })
    assert.isTrue(fmt.isPinned({ role: "user", content: "keep", pinned: true }))
    assert.strictEqual(fmt.meta(at(2)), undefined)
  })

  it("reads calls, results, links and text", () => {
    assert.deepStrictEqual(fmt.toolCalls(at(2)), [
      { id: "q_eu", name: "run_sql", arguments: "{\"sql\":\"select sum(amount) from eu_sales where quarter = 3\"}" },
      { id: "q_us", name: "run_sql", arguments: "{\"sql\":\"select sum(amount) from us_sales where quarter = 3\"}" },
      { id: "srv_code", name: "code_execution", arguments: "{\"code\":\"print(3.9 / 4.0)\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(2)), [
      { callId: "srv_code", name: "code_execution", isError: false, text: "{\"stdout\":\"0.975\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(3)), [
      { callId: "q_us", name: "run_sql", isError: false, text: "{\"rows\":[{\"sum\":4210000}]}" }
    ])
    // The model reads `modelOutput` when there is one.
    assert.deepStrictEqual(fmt.toolResults(at(5)), [
      { callId: "q_eu", name: "run_sql", isError: true, text: "ERROR: relation \"eu_sales\" does not exist" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(7)), [
      { callId: "drop_1", name: "drop_table", isError: false, text: "{\"dropped\":true}" }
    ])

    assert.deepStrictEqual(fmt.links(at(1)), [])
    assert.deepStrictEqual(fmt.links(at(2)), [
      { kind: "call", id: "q_eu" },
      { kind: "ref", key: "call:q_eu" },
      { kind: "call", id: "q_us" },
      { kind: "ref", key: "call:q_us" },
      { kind: "call", id: "srv_code" },
      { kind: "ref", key: "call:srv_code" },
      { kind: "result", id: "srv_code" }
    ])
    assert.deepStrictEqual(fmt.links(at(6)), [
      { kind: "call", id: "drop_1" },
      { kind: "ref", key: "call:drop_1" },
      { kind: "ref", key: "approval:ap_drop" },
      { kind: "ref", key: "call:drop_1" }
    ])
    assert.deepStrictEqual(fmt.links(at(7)), [
      { kind: "ref", key: "approval:ap_drop" },
      { kind: "result", id: "drop_1" }
    ])

    assert.strictEqual(fmt.text(at(0)), "You answer questions about the sales warehouse. Read-only unless approved.")
    assert.strictEqual(fmt.text(at(1)), "Compare Q3 revenue for EU and US; targets attached.")
    assert.strictEqual(
      fmt.text(at(6)),
      "The EU table is missing; a stale temp table blocks the rebuild.\ndrop_table {\"table\":\"tmp_q3\"}"
    )
    assert.strictEqual(fmt.text(at(8)), "US Q3 was 4.2M; EU could not be computed yet.")
  })

  it("groups calls with far results and approvals; the provider-executed pair stays in its message", () => {
    const { diagnostics, groupOf, groups } = toolGroups(session, fmt)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3, 5], [4], [6, 7], [8]])
    assert.deepStrictEqual(groupOf, [0, 1, 2, 2, 3, 2, 4, 4, 5])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("reads encoded messages and their decoded form alike", () => {
    const encoded: ReadonlyArray<Prompt.MessageEncoded> = deepFreeze([
      { role: "user", content: "What is in ./src?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Listing." },
          { type: "tool-call", id: "ls_1", name: "list_dir", params: { path: "./src" } },
          { type: "tool-approval-request", approvalId: "ap_ls", toolCallId: "ls_1" }
        ]
      },
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: "ap_ls", approved: true, reason: "fine" }]
      },
      {
        role: "tool",
        content: [{ type: "tool-result", id: "ls_1", name: "list_dir", isFailure: false, result: ["index.ts"] }]
      }
    ])
    const decoded = Prompt.make(encoded).content
    assert.isTrue(decoded.every((message) => Prompt.isMessage(message)))
    const forms: ReadonlyArray<ReadonlyArray<EffectAiMessage>> = [encoded, decoded]
    for (const messages of forms) {
      assert.deepStrictEqual(messages.map(fmt.role), ["user", "assistant", "tool", "tool"])
      assert.deepStrictEqual(messages.map(fmt.text), [
        "What is in ./src?",
        "Listing.\nlist_dir {\"path\":\"./src\"}",
        "fine",
        "[\"index.ts\"]"
      ])
      assert.deepStrictEqual(messages.map(fmt.links), [
        [],
        [{ kind: "call", id: "ls_1" }, { kind: "ref", key: "call:ls_1" }, { kind: "ref", key: "approval:ap_ls" }, {
          kind: "ref",
          key: "call:ls_1"
        }],
        [{ kind: "ref", key: "approval:ap_ls" }],
        [{ kind: "result", id: "ls_1" }]
      ])
      assert.deepStrictEqual(toolGroups(messages, fmt).groups, [[0], [1, 2, 3]])
      assert.deepStrictEqual(messages.flatMap((m, i) => fmt.validate(m, `messages[${i}]`)), [])
    }
    assert.deepStrictEqual(fmt.withText(encoded[0] ?? at(0), "What is in ./lib?"), {
      role: "user",
      content: "What is in ./lib?"
    })
  })

  it("rewrites text and results, keeping ids, options and markers", () => {
    const rewritten = fmt.withText(at(2), "Querying both regions.")
    assert.isTrue(Prompt.isMessage(rewritten))
    assert.deepStrictEqual(rewritten.options, { anthropic: { cacheControl: { type: "ephemeral" } } })
    assert.deepStrictEqual(fmt.links(rewritten), fmt.links(at(2)))
    assert.deepStrictEqual(fmt.toolCalls(rewritten), fmt.toolCalls(at(2)))
    const parts = Array.isArray(rewritten.content) ? rewritten.content : []
    assert.isTrue(parts.every(isDecodedPart))
    assert.deepStrictEqual(parts.map((part) => part.type), [
      "reasoning",
      "tool-call",
      "tool-call",
      "tool-call",
      "tool-result",
      "text"
    ])
    assert.deepStrictEqual(parts[5], { [PART]: PART, type: "text", text: "Querying both regions.", options: {} })
    assert.deepStrictEqual(fmt.validate(rewritten, "messages[2]"), [])

    const user = fmt.withText(at(1), "Compare Q3 revenue.")
    assert.deepStrictEqual(
      Array.isArray(user.content) ? user.content[0] : undefined,
      Prompt.makePart("text", { text: "Compare Q3 revenue." })
    )
    assert.deepStrictEqual(fmt.withText(at(0), "Be brief."), {
      [MESSAGE]: MESSAGE,
      role: "system",
      content: "Be brief.",
      options: {}
    })

    const failure = fmt.withResultText(at(5), "q_eu", "ERROR: missing table")
    assert.deepStrictEqual(fmt.toolResults(failure), [
      { callId: "q_eu", name: "run_sql", isError: true, text: "ERROR: missing table" }
    ])
    assert.deepStrictEqual(failure.content, [
      Prompt.makePart("tool-result", {
        id: "q_eu",
        name: "run_sql",
        isFailure: true,
        result: "ERROR: missing table",
        modelOutput: [Prompt.makePart("text", { text: "ERROR: missing table" })],
        providerExecuted: false
      })
    ])
    assert.deepStrictEqual(fmt.validate(failure, "messages[5]"), [])
    const provider = fmt.withResultText(at(2), "srv_code", "0.975")
    assert.deepStrictEqual(fmt.toolResults(provider), [{
      callId: "srv_code",
      name: "code_execution",
      isError: false,
      text: "0.975"
    }])
    assert.strictEqual(fmt.withResultText(at(3), "q_eu", "x"), at(3))
    assert.strictEqual(fmt.withResultText(at(8), "q_eu", "x"), at(8))

    // A message made of results: the first takes the text, the others are emptied.
    const results = fmt.withText(at(7), "[elided]")
    assert.deepStrictEqual(fmt.toolResults(results), [{
      callId: "drop_1",
      name: "drop_table",
      isError: false,
      text: "[elided]"
    }])
    assert.deepStrictEqual(fmt.links(results), fmt.links(at(7)))
  })

  it("removes tool parts by id, approvals with their call, and the message when nothing meaningful is left", () => {
    const kept = fmt.withoutToolParts(at(2), new Set(["q_eu", "srv_code"]))
    assert.deepStrictEqual(kept === undefined ? [] : fmt.links(kept), [
      { kind: "call", id: "q_us" },
      { kind: "ref", key: "call:q_us" }
    ])
    assert.isTrue(kept !== undefined && Prompt.isMessage(kept))
    assert.deepStrictEqual(kept?.options, { anthropic: { cacheControl: { type: "ephemeral" } } })
    // Only reasoning would be left.
    assert.strictEqual(fmt.withoutToolParts(at(2), new Set(["q_eu", "q_us", "srv_code"])), undefined)
    assert.strictEqual(fmt.withoutToolParts(at(3), new Set(["q_us"])), undefined)
    assert.deepStrictEqual(fmt.withoutToolParts(at(6), new Set(["drop_1"]))?.content, [
      Prompt.makePart("text", { text: "The EU table is missing; a stale temp table blocks the rebuild." })
    ])
    // The response's request lives in another message: the response stays, grouped with its call.
    assert.deepStrictEqual(fmt.withoutToolParts(at(7), new Set(["drop_1"]))?.content, [
      Prompt.makePart("tool-approval-response", { approvalId: "ap_drop", approved: true })
    ])
    assert.strictEqual(fmt.withoutToolParts(at(2), new Set(["nope"])), at(2))
    assert.strictEqual(fmt.withoutToolParts(at(8), new Set(["q_eu"])), at(8))
  })

  it("makes decoded notes and tool messages in the issuer's form", () => {
    const summary = fmt.makeNote("US Q3: 4.2M. EU: unknown.", { role: "user", kind: "summary", id: "sum_1" })
    assert.deepStrictEqual(summary, {
      [MESSAGE]: MESSAGE,
      role: "user",
      content: [Prompt.makePart("text", { text: "US Q3: 4.2M. EU: unknown." })],
      options: { ctxkit: { summary: true, id: "sum_1" } }
    })
    assert.isTrue(Prompt.isMessage(summary))
    assert.isTrue(fmt.isSummary(summary))
    assert.strictEqual(fmt.id(summary), "sum_1")
    assert.deepStrictEqual(fmt.makeNote("Read-only.", { role: "system", kind: "invariants" }), {
      [MESSAGE]: MESSAGE,
      role: "system",
      content: "Read-only.",
      options: {}
    })

    const stubs = fmt.makeToolResults(at(2), fmt.toolCalls(at(2)).slice(0, 2), "Outcome unknown.", { isError: true })
    assert.deepStrictEqual(stubs, [
      Prompt.makeMessage("tool", {
        content: [
          Prompt.makePart("tool-result", {
            id: "q_eu",
            name: "run_sql",
            isFailure: true,
            result: "Outcome unknown.",
            providerExecuted: false
          }),
          Prompt.makePart("tool-result", {
            id: "q_us",
            name: "run_sql",
            isFailure: true,
            result: "Outcome unknown.",
            providerExecuted: false
          })
        ]
      })
    ])
    assert.deepStrictEqual(
      fmt.makeToolResults({ role: "assistant", content: [] }, [{ id: "c1", name: "ls", arguments: "{}" }], "ok", {
        isError: false
      }),
      [{
        role: "tool",
        content: [{
          type: "tool-result",
          id: "c1",
          name: "ls",
          isFailure: false,
          result: "ok",
          providerExecuted: false
        }]
      }]
    )
    assert.deepStrictEqual(fmt.makeToolResults(at(2), [], "x", { isError: false }), [])
    assert.deepStrictEqual([summary, ...stubs].flatMap((m, i) => fmt.validate(m, `notes[${i}]`)), [])
    assert.deepStrictEqual(session.flatMap((m, i) => fmt.validate(m, `messages[${i}]`)), [])
  })

  it("validates with path-named issues", () => {
    const paths = (message: unknown, path: string) => fmt.validate(message, path).map((i) => i.path)
    assert.deepStrictEqual(paths(42, "messages[0]"), ["messages[0]"])
    assert.deepStrictEqual(paths({ role: "narrator", content: "x" }, "messages[1]"), ["messages[1].role"])
    assert.deepStrictEqual(
      paths({ role: "assistant", content: [{ type: "tool-call", id: 1, name: "x" }] }, "messages[2]"),
      [
        "messages[2].content[0].id",
        "messages[2].content[0].params"
      ]
    )
    assert.deepStrictEqual(paths({ role: "tool", content: "done" }, "messages[3]"), ["messages[3].content"])
    const badDecoded = {
      ...Prompt.makeMessage("tool", { content: [] }),
      content: [{ ...Prompt.makePart("tool-approval-response", { approvalId: "a", approved: true }), approved: "yes" }]
    }
    assert.deepStrictEqual(paths(badDecoded, "messages[4]"), ["messages[4].content[0].approved"])
    assert.match(fmt.validate(null, "m")[0]?.message ?? "", /null/)
  })

  it("is total on garbage", () => {
    const message = (u: unknown) => u as EffectAiMessage
    // Every lens method on these values (and on arbitrary ones) is exercised in test/BadInput.test.ts.
    assert.deepStrictEqual(garbage.map(message).map(fmt.role), [
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "assistant",
      "tool",
      "user"
    ])
    assert.deepStrictEqual(garbage.map(message).flatMap(fmt.links), [])
    assert.strictEqual(fmt.text(message(garbage[6])), "")
    assert.deepStrictEqual(garbage.map((junk, i) => fmt.validate(junk, `m[${i}]`).length > 0), garbage.map(() => true))
    assert.deepStrictEqual(toolGroups(garbage.map(message), fmt).groups, garbage.map((_, i) => [i]))
  })
})
