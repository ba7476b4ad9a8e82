import { toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import {
  langchain as fmt,
  type LangChainFields,
  type LangChainMessage,
  type LangChainToolCall
} from "../../src/formats/LangChain.ts"

interface ChunkFields {
  readonly content: ReadonlyArray<unknown>
  readonly tool_calls: ReadonlyArray<LangChainToolCall>
  readonly additional_kwargs: Readonly<Record<string, unknown>>
}

/**
 * A stand-in for a live message of an older `@langchain/core`: a class instance with no own `type`, the
 * constructor fields kept in `lc_kwargs` (what it serializes from), and a method the lens must not need.
 */
class AIMessageChunk {
  readonly lc_serializable = true
  readonly lc_kwargs: ChunkFields
  readonly content: ReadonlyArray<unknown>
  readonly tool_calls: ReadonlyArray<LangChainToolCall>
  readonly additional_kwargs: Readonly<Record<string, unknown>>
  constructor(fields: ChunkFields) {
    this.lc_kwargs = fields
    this.content = fields.content
    this.tool_calls = fields.tool_calls
    this.additional_kwargs = fields.additional_kwargs
  }
  _getType(): string {
    return "ai"
  }
}

const live = new AIMessageChunk({
  content: [
    { type: "thinking", thinking: "A reboot clears the half-written flash." },
    { type: "text", text: "Rebooting the router." },
    { type: "tool_use", id: "toolu_rb", name: "reboot", input: { serial: "RT-5531" } }
  ],
  tool_calls: [{ id: "toolu_rb", name: "reboot", args: { serial: "RT-5531" }, type: "tool_call" }],
  additional_kwargs: {}
})

// A router support case in every shape LangChain persists: stored system prompt, plain human message,
// a serialized AI message with parallel calls, results out of order and far from their call (one in
// stored form), a pinned serialized human message, OpenAI-shaped raw tool calls (one with truncated
// arguments) answered by an error and a success, a live chunk with an Anthropic tool_use block, and a
// serialized ChatMessage reply.
const session: ReadonlyArray<LangChainMessage> = deepFreeze([
  {
    type: "system",
    data: {
      content: "You support Acme routers. Never factory-reset without consent.",
      additional_kwargs: {},
      response_metadata: {}
    }
  },
  { type: "human", content: "My router keeps rebooting. Serial RT-5531.", id: "msg_u1" },
  {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "AIMessage"],
    kwargs: {
      content: [{ type: "text", text: "Checking the device and open tickets." }],
      tool_calls: [
        { id: "call_dev", name: "get_device", args: { serial: "RT-5531" }, type: "tool_call" },
        { id: "call_tix", name: "search_tickets", args: { serial: "RT-5531", status: "open" }, type: "tool_call" }
      ],
      invalid_tool_calls: [],
      id: "run-7f2",
      additional_kwargs: {},
      response_metadata: {}
    }
  },
  { type: "tool", tool_call_id: "call_tix", name: "search_tickets", content: "[]", status: "success" },
  {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "HumanMessage"],
    kwargs: { content: "It's the 2021 model, if that matters.", additional_kwargs: { ctxkit: { pinned: true } } }
  },
  {
    type: "tool",
    data: {
      content: [{ type: "text", text: "firmware 1.2.0, uptime 3m" }],
      tool_call_id: "call_dev",
      name: "get_device",
      status: "success"
    }
  },
  {
    type: "ai",
    content: "",
    additional_kwargs: {
      tool_calls: [
        {
          id: "call_fw",
          type: "function",
          function: { name: "flash_firmware", arguments: "{\"serial\":\"RT-5531\",\"version\":\"1.3.1\"}" }
        },
        { id: "call_note", type: "function", function: { name: "add_note", arguments: "{\"text\":\"flashing" } }
      ]
    }
  },
  {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "ToolMessage"],
    kwargs: {
      content: "flash failed: checksum mismatch",
      tool_call_id: "call_fw",
      name: "flash_firmware",
      status: "error"
    }
  },
  { type: "tool", data: { content: "noted", tool_call_id: "call_note", name: "add_note" } },
  live,
  { type: "tool", tool_call_id: "toolu_rb", name: "reboot", content: "rebooted", status: "success" },
  {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "ChatMessage"],
    kwargs: { content: "The router is back on 1.2.0; the firmware update failed its checksum.", role: "assistant" }
  }
])

const at = (i: number): LangChainMessage => {
  const message = session[i]
  if (message === undefined) throw new Error(`no message ${i}`)
  return message
}

/** The fields of a message in any shape, for assertions. */
const fieldsOf = (message: LangChainMessage | undefined): LangChainFields => {
  if (message === undefined) return {}
  if ("kwargs" in message) return message.kwargs
  if ("data" in message) return message.data
  return message
}

const garbage: ReadonlyArray<unknown> = [
  null,
  42,
  "hello",
  [],
  {},
  { content: {} },
  { lc: 1, type: "constructor" },
  { type: "tool", data: 5 },
  { type: "ai", content: [null, 1], tool_calls: [null, {}], additional_kwargs: { tool_calls: "x" } }
]

describe("formats.langchain", () => {
  it("reads roles, ids, pins and protection in every shape", () => {
    assert.deepStrictEqual(session.map(fmt.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "user",
      "tool",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "tool",
      "assistant"
    ])
    assert.deepStrictEqual(
      session.map(fmt.id),
      session.map((_, i) => i === 1 ? "msg_u1" : i === 2 ? "run-7f2" : undefined)
    )
    assert.deepStrictEqual(session.map(fmt.isPinned), session.map((_, i) => i === 4))
    assert.deepStrictEqual(session.map(fmt.isProtected), session.map((_, i) => i === 0 || i === 4))
    assert.deepStrictEqual(fmt.meta(at(4)), { pinned: true })
    assert.isTrue(fmt.isPinned({ type: "human", content: "keep", pinned: true }))
    assert.isTrue(fmt.isPinned({ type: "human", data: { content: "keep" }, pinned: true }))
    assert.strictEqual(fmt.role({ type: "developer", content: "Be terse." }), "system")
    assert.strictEqual(fmt.role({ type: "generic", content: "hi", role: "user" }), "user")
    assert.strictEqual(
      fmt.role({
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "SystemMessageChunk"],
        kwargs: { content: "x" }
      }),
      "system"
    )
  })

  it("reads calls, results, links and text", () => {
    assert.deepStrictEqual(fmt.toolCalls(at(2)), [
      { id: "call_dev", name: "get_device", arguments: "{\"serial\":\"RT-5531\"}" },
      { id: "call_tix", name: "search_tickets", arguments: "{\"serial\":\"RT-5531\",\"status\":\"open\"}" }
    ])
    assert.deepStrictEqual(fmt.toolCalls(at(6)), [
      { id: "call_fw", name: "flash_firmware", arguments: "{\"serial\":\"RT-5531\",\"version\":\"1.3.1\"}" },
      { id: "call_note", name: "add_note", arguments: "{\"text\":\"flashing" }
    ])
    assert.deepStrictEqual(fmt.toolCalls(at(9)), [{
      id: "toolu_rb",
      name: "reboot",
      arguments: "{\"serial\":\"RT-5531\"}"
    }])
    assert.deepStrictEqual(fmt.toolResults(at(3)), [{
      callId: "call_tix",
      name: "search_tickets",
      isError: false,
      text: "[]"
    }])
    assert.deepStrictEqual(fmt.toolResults(at(5)), [
      { callId: "call_dev", name: "get_device", isError: false, text: "firmware 1.2.0, uptime 3m" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(7)), [
      { callId: "call_fw", name: "flash_firmware", isError: true, text: "flash failed: checksum mismatch" }
    ])
    assert.deepStrictEqual(fmt.toolResults(at(2)), [])

    assert.deepStrictEqual(fmt.links(at(1)), [])
    assert.deepStrictEqual(fmt.links(at(2)), [{ kind: "call", id: "call_dev" }, { kind: "call", id: "call_tix" }])
    assert.deepStrictEqual(fmt.links(at(6)), [{ kind: "call", id: "call_fw" }, { kind: "call", id: "call_note" }])
    assert.deepStrictEqual(fmt.links(at(8)), [{ kind: "result", id: "call_note" }])
    assert.deepStrictEqual(fmt.links(at(9)), [{ kind: "call", id: "toolu_rb" }])

    assert.strictEqual(fmt.text(at(0)), "You support Acme routers. Never factory-reset without consent.")
    assert.strictEqual(
      fmt.text(at(2)),
      "Checking the device and open tickets.\nget_device {\"serial\":\"RT-5531\"}\n" +
        "search_tickets {\"serial\":\"RT-5531\",\"status\":\"open\"}"
    )
    assert.strictEqual(
      fmt.text(at(9)),
      "A reboot clears the half-written flash.\nRebooting the router.\nreboot {\"serial\":\"RT-5531\"}"
    )
    assert.strictEqual(fmt.text(at(5)), "firmware 1.2.0, uptime 3m")
  })

  it("groups across shapes, with results far from their call", () => {
    const { diagnostics, groupOf, groups } = toolGroups(session, fmt)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3, 5], [4], [6, 7, 8], [9, 10], [11]])
    assert.deepStrictEqual(groupOf, [0, 1, 2, 2, 3, 2, 4, 4, 4, 5, 5, 6])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("prefers tool_calls over raw OpenAI calls, and falls back when tool_calls is empty", () => {
    const both: LangChainMessage = {
      type: "ai",
      content: "",
      tool_calls: [{ id: "c1", name: "ls", args: {} }],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{ }" } }] }
    }
    assert.deepStrictEqual(fmt.toolCalls(both), [{ id: "c1", name: "ls", arguments: "{}" }])
    const empty: LangChainMessage = {
      type: "ai",
      content: "",
      tool_calls: [],
      additional_kwargs: { tool_calls: [{ id: "c2", type: "function", function: { name: "ls", arguments: "{ }" } }] }
    }
    assert.deepStrictEqual(fmt.toolCalls(empty), [{ id: "c2", name: "ls", arguments: "{ }" }])
  })

  it("rewrites in place of the shape, keeping ids, prototypes and lc_kwargs in step", () => {
    const serialized = fmt.withText(at(2), "Looking into it.")
    assert.deepStrictEqual(serialized, {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "AIMessage"],
      kwargs: { ...fieldsOf(at(2)), content: [{ type: "text", text: "Looking into it." }] }
    })
    assert.deepStrictEqual(fmt.links(serialized), fmt.links(at(2)))

    const stored = fmt.withResultText(at(5), "call_dev", "fw 1.2.0")
    assert.deepStrictEqual(stored, {
      type: "tool",
      data: {
        content: [{ type: "text", text: "fw 1.2.0" }],
        tool_call_id: "call_dev",
        name: "get_device",
        status: "success"
      }
    })
    const failed = fmt.withResultText(at(7), "call_fw", "checksum mismatch")
    assert.deepStrictEqual(fmt.toolResults(failed), [
      { callId: "call_fw", name: "flash_firmware", isError: true, text: "checksum mismatch" }
    ])
    assert.deepStrictEqual(fmt.withText(at(3), "no tickets"), { ...at(3), content: "no tickets" })
    assert.strictEqual(fmt.withResultText(at(5), "call_tix", "x"), at(5))
    assert.strictEqual(fmt.withResultText(at(2), "call_dev", "x"), at(2))

    const rewritten = fmt.withText(live, "Rebooting now.")
    assert.instanceOf(rewritten, AIMessageChunk)
    const expected = [
      { type: "thinking", thinking: "A reboot clears the half-written flash." },
      { type: "text", text: "Rebooting now." },
      { type: "tool_use", id: "toolu_rb", name: "reboot", input: { serial: "RT-5531" } }
    ]
    assert.deepStrictEqual(fieldsOf(rewritten).content, expected)
    assert.deepStrictEqual((rewritten instanceof AIMessageChunk ? rewritten.lc_kwargs : undefined)?.content, expected)
    assert.deepStrictEqual(fmt.links(rewritten), [{ kind: "call", id: "toolu_rb" }])
    // The original is untouched.
    assert.strictEqual(
      fmt.text(live),
      "A reboot clears the half-written flash.\nRebooting the router.\nreboot {\"serial\":\"RT-5531\"}"
    )
  })

  it("removes calls everywhere they are recorded, and the message when nothing meaningful is left", () => {
    const serialized = fmt.withoutToolParts(at(2), new Set(["call_dev"]))
    assert.deepStrictEqual(serialized === undefined ? [] : fmt.links(serialized), [{ kind: "call", id: "call_tix" }])
    assert.deepStrictEqual(serialized === undefined ? undefined : fieldsOf(serialized).tool_calls, [
      { id: "call_tix", name: "search_tickets", args: { serial: "RT-5531", status: "open" }, type: "tool_call" }
    ])
    assert.deepStrictEqual(serialized !== undefined && "id" in serialized ? serialized.id : undefined, [
      "langchain_core",
      "messages",
      "AIMessage"
    ])

    const raw = fmt.withoutToolParts(at(6), new Set(["call_fw"]))
    assert.deepStrictEqual(raw === undefined ? [] : fmt.toolCalls(raw), [
      { id: "call_note", name: "add_note", arguments: "{\"text\":\"flashing" }
    ])
    assert.strictEqual(fmt.withoutToolParts(at(6), new Set(["call_fw", "call_note"])), undefined)
    // Text survives its calls.
    assert.deepStrictEqual(fmt.withoutToolParts(at(2), new Set(["call_dev", "call_tix"])), {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "AIMessage"],
      kwargs: { ...fieldsOf(at(2)), tool_calls: [] }
    })

    const chunk = fmt.withoutToolParts(live, new Set(["toolu_rb"]))
    assert.instanceOf(chunk, AIMessageChunk)
    const content = [
      { type: "thinking", thinking: "A reboot clears the half-written flash." },
      { type: "text", text: "Rebooting the router." }
    ]
    assert.deepStrictEqual(fieldsOf(chunk).content, content)
    assert.deepStrictEqual(fieldsOf(chunk).tool_calls, [])
    assert.deepStrictEqual(chunk instanceof AIMessageChunk ? chunk.lc_kwargs : undefined, {
      content,
      tool_calls: [],
      additional_kwargs: {}
    })

    assert.strictEqual(fmt.withoutToolParts(at(5), new Set(["call_dev"])), undefined)
    assert.strictEqual(fmt.withoutToolParts(at(7), new Set(["call_fw"])), undefined)
    assert.strictEqual(fmt.withoutToolParts(at(5), new Set(["call_tix"])), at(5))
    assert.strictEqual(fmt.withoutToolParts(at(2), new Set(["nope"])), at(2))
    assert.strictEqual(fmt.withoutToolParts(at(1), new Set(["call_dev"])), at(1))
  })

  it("makes notes and one tool message per call", () => {
    assert.deepStrictEqual(
      fmt.makeNote("Customer consented to a reboot only.", { role: "user", kind: "summary", id: "sum_1" }),
      {
        type: "human",
        content: "Customer consented to a reboot only.",
        additional_kwargs: { ctxkit: { summary: true } },
        id: "sum_1"
      }
    )
    assert.deepStrictEqual(fmt.makeNote("No factory resets.", { role: "system", kind: "invariants" }), {
      type: "system",
      content: "No factory resets."
    })
    const note = fmt.makeNote("s", { role: "user", kind: "summary" })
    assert.isTrue(fmt.isSummary(note))
    assert.isFalse(fmt.isSummary(at(1)))

    const stubs = fmt.makeToolResults(at(2), fmt.toolCalls(at(2)), "Outcome unknown.", { isError: true })
    assert.deepStrictEqual(stubs, [
      { type: "tool", tool_call_id: "call_dev", name: "get_device", content: "Outcome unknown.", status: "error" },
      { type: "tool", tool_call_id: "call_tix", name: "search_tickets", content: "Outcome unknown.", status: "error" }
    ])
    assert.deepStrictEqual(toolGroups([at(2), ...stubs], fmt).groups, [[0, 1, 2]])
    assert.deepStrictEqual(
      fmt.makeToolResults(at(2), [{ id: "c", name: "ls", arguments: "" }], "ok", { isError: false }),
      [{ type: "tool", tool_call_id: "c", name: "ls", content: "ok", status: "success" }]
    )
    assert.deepStrictEqual(stubs.flatMap((m, i) => fmt.validate(m, `stubs[${i}]`)), [])
    assert.deepStrictEqual(session.flatMap((m, i) => fmt.validate(m, `messages[${i}]`)), [])
  })

  it("validates with path-named issues in every shape", () => {
    const paths = (message: unknown, path: string) => fmt.validate(message, path).map((i) => i.path)
    assert.deepStrictEqual(paths("hi", "messages[0]"), ["messages[0]"])
    assert.deepStrictEqual(
      paths({
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "MysteryMessage"],
        kwargs: { content: "x" }
      }, "messages[1]"),
      ["messages[1].id"]
    )
    assert.deepStrictEqual(
      paths({ lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"] }, "messages[2]"),
      [
        "messages[2].kwargs"
      ]
    )
    assert.deepStrictEqual(paths({ type: "tool", data: { content: "x" } }, "messages[3]"), [
      "messages[3].data.tool_call_id"
    ])
    assert.deepStrictEqual(
      paths({ type: "ai", content: "", tool_calls: [{ name: "ls", args: "{}" }] }, "messages[4]"),
      [
        "messages[4].tool_calls[0].id",
        "messages[4].tool_calls[0].args"
      ]
    )
    assert.deepStrictEqual(paths({ type: "human", content: 5 }, "messages[5]"), ["messages[5].content"])
    assert.deepStrictEqual(
      paths({
        type: "ai",
        content: "",
        additional_kwargs: { tool_calls: [{ id: "x", function: { arguments: "{}" } }] }
      }, "messages[6]"),
      ["messages[6].additional_kwargs.tool_calls[0].function.name"]
    )
    assert.deepStrictEqual(paths({ type: "tool", tool_call_id: "c", content: "x", status: "failed" }, "messages[7]"), [
      "messages[7].status"
    ])
    assert.deepStrictEqual(paths({ type: "wizard", data: { content: "x" } }, "messages[8]"), ["messages[8].type"])
    assert.deepStrictEqual(
      paths({
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "ToolMessage"],
        kwargs: { content: [7], tool_call_id: "c" }
      }, "messages[9]"),
      ["messages[9].kwargs.content[0]"]
    )
    assert.match(fmt.validate({ type: "human", content: 5 }, "m")[0]?.message ?? "", /got 5$/)
  })

  it("is total on garbage", () => {
    const message = (u: unknown) => u as LangChainMessage
    // Every lens method on these values (and on arbitrary ones) is exercised in test/BadInput.test.ts.
    assert.deepStrictEqual(garbage.map(message).map(fmt.role), [
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "tool",
      "assistant"
    ])
    assert.deepStrictEqual(garbage.map(message).flatMap(fmt.links), [])
    assert.strictEqual(fmt.text(message(garbage[8])), "")
    assert.deepStrictEqual(garbage.map((junk, i) => fmt.validate(junk, `m[${i}]`).length > 0), garbage.map(() => true))
    assert.deepStrictEqual(toolGroups(garbage.map(message), fmt).groups, garbage.map((_, i) => [i]))
  })
})
