import { type AnthropicMessage, toolGroups } from "@ctxkit/core"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { anthropic as fmt } from "../../src/formats/Anthropic.ts"

// Fixtures are fixed literals: `fixture[i]!` below indexes an element that exists.
// A billing investigation: a harness-stored system prompt, thinking before parallel calls answered by one
// user message, a server-side web search inside an assistant turn, a pinned user message between a call
// and its failed result, an MCP tool with its result, a failed server tool, and a pinned (meta) reply.
const thread: ReadonlyArray<AnthropicMessage> = deepFreeze([
  { role: "system", content: "You maintain the billing service. Never refund without a ticket." },
  {
    role: "user",
    content: [
      { type: "text", text: "Why did invoice 8812 fail?" },
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: "ERR card_declined (attempt 2)" },
        title: "gateway.log"
      }
    ]
  },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Fetch the invoice and its payment attempts together.", signature: "EqQBCkYIARgC" },
      { type: "text", text: "Looking it up." },
      { type: "tool_use", id: "toolu_inv", name: "get_invoice", input: { id: 8812 } },
      { type: "tool_use", id: "toolu_pay", name: "list_payments", input: { invoice: 8812, limit: 3 } }
    ]
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_inv", content: "{\"status\":\"open\",\"amount\":4200}" },
      {
        type: "tool_result",
        tool_use_id: "toolu_pay",
        is_error: false,
        content: [
          { type: "text", text: "attempt 1: declined" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "text", text: "attempt 2: declined" }
        ]
      }
    ]
  },
  {
    role: "assistant",
    content: [
      { type: "server_tool_use", id: "srvtoolu_ws", name: "web_search", input: { query: "card_declined meaning" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_ws",
        content: [{
          type: "web_search_result",
          url: "https://payments.example/declines",
          title: "Decline codes",
          encrypted_content: "EqgfCioIARgBIiQ3",
          page_age: "2 days ago"
        }]
      },
      { type: "text", text: "The issuing bank declined the card." },
      { type: "tool_use", id: "toolu_retry", name: "retry_charge", input: { invoice: 8812 } }
    ]
  },
  { role: "user", content: "Retry at most once.", pinned: true },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_retry", content: "gateway timeout", is_error: true }]
  },
  {
    role: "assistant",
    content: [
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
      {
        type: "mcp_tool_use",
        id: "mcptoolu_1",
        name: "open_ticket",
        server_name: "support",
        input: { priority: "high" }
      },
      {
        type: "mcp_tool_result",
        tool_use_id: "mcptoolu_1",
        is_error: false,
        content: [{ type: "text", text: "ticket SUP-77 opened" }]
      }
    ]
  },
  {
    role: "assistant",
    content: [
      { type: "server_tool_use", id: "srvtoolu_code", name: "code_execution", input: { code: "print(42)" } },
      {
        type: "code_execution_tool_result",
        tool_use_id: "srvtoolu_code",
        content: { type: "code_execution_tool_result_error", error_code: "unavailable" }
      }
    ]
  },
  { role: "assistant", content: "Opened SUP-77: the card was declined twice.", meta: { pinned: true } }
])

const garbage: ReadonlyArray<unknown> = [
  null,
  42,
  "user",
  [],
  {},
  { content: {} },
  { role: "assistant", content: [null, 7, { type: 3 }, { type: "tool_use" }] },
  { role: "user", content: [{ type: "tool_result", content: { deep: [[[[[[["x"]]]]]]] } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: 9 }] }
]

describe("formats.anthropic", () => {
  it("reads roles, pins and protection", () => {
    assert.deepStrictEqual(thread.map(fmt.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "tool",
      "assistant",
      "assistant",
      "assistant"
    ])
    assert.deepStrictEqual(thread.map(fmt.isPinned).flatMap((p, i) => p ? [i] : []), [5, 9])
    assert.deepStrictEqual(thread.map(fmt.isProtected).flatMap((p, i) => p ? [i] : []), [0, 5, 9])
    assert.deepStrictEqual(thread.map(fmt.attachesToNext).filter(Boolean), [])
    assert.deepStrictEqual(fmt.meta(thread[9]!), { pinned: true })
    // Tool results followed by a user's text is a user turn.
    assert.strictEqual(
      fmt.role({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_inv", content: "ok" }, {
          type: "text",
          text: "now fix it"
        }]
      }),
      "user"
    )
  })

  it("reads calls, results, links and text", () => {
    assert.deepStrictEqual(fmt.toolCalls(thread[2]!), [
      { id: "toolu_inv", name: "get_invoice", arguments: "{\"id\":8812}" },
      { id: "toolu_pay", name: "list_payments", arguments: "{\"invoice\":8812,\"limit\":3}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(thread[3]!), [
      { callId: "toolu_inv", isError: false, text: "{\"status\":\"open\",\"amount\":4200}" },
      { callId: "toolu_pay", isError: false, text: "attempt 1: declined\nattempt 2: declined" }
    ])
    assert.deepStrictEqual(fmt.links(thread[4]!), [
      { kind: "call", id: "srvtoolu_ws" },
      { kind: "result", id: "srvtoolu_ws" },
      { kind: "call", id: "toolu_retry" }
    ])
    assert.deepStrictEqual(fmt.toolResults(thread[6]!), [{
      callId: "toolu_retry",
      isError: true,
      text: "gateway timeout"
    }])
    assert.deepStrictEqual(fmt.toolCalls(thread[7]!), [
      { id: "mcptoolu_1", name: "open_ticket", arguments: "{\"priority\":\"high\"}" }
    ])
    assert.deepStrictEqual(fmt.toolResults(thread[7]!), [
      { callId: "mcptoolu_1", isError: false, text: "ticket SUP-77 opened" }
    ])
    assert.deepStrictEqual(fmt.toolResults(thread[8]!), [{ callId: "srvtoolu_code", isError: true, text: "" }])
    assert.deepStrictEqual(thread.map(fmt.text), [
      "You maintain the billing service. Never refund without a ticket.",
      "Why did invoice 8812 fail?\nERR card_declined (attempt 2)",
      "Fetch the invoice and its payment attempts together.\nLooking it up.\nget_invoice {\"id\":8812}\nlist_payments {\"invoice\":8812,\"limit\":3}",
      "{\"status\":\"open\",\"amount\":4200}\nattempt 1: declined\nattempt 2: declined",
      "web_search {\"query\":\"card_declined meaning\"}\nDecline codes\nhttps://payments.example/declines\nThe issuing bank declined the card.\nretry_charge {\"invoice\":8812}",
      "Retry at most once.",
      "gateway timeout",
      "open_ticket {\"priority\":\"high\"}\nticket SUP-77 opened",
      "code_execution {\"code\":\"print(42)\"}",
      "Opened SUP-77: the card was declined twice."
    ])
  })

  it("groups a multi-result message with its call and a result far from its call", () => {
    const { groups, groupOf, diagnostics } = toolGroups(thread, fmt)
    assert.deepStrictEqual(groups, [[0], [1], [2, 3], [4, 6], [5], [7], [8], [9]])
    assert.deepStrictEqual(groupOf, [0, 1, 2, 2, 3, 4, 3, 5, 6, 7])
    assert.deepStrictEqual(diagnostics, [])
  })

  it("rewrites only text blocks and the named result, keeping ids and other blocks", () => {
    const assistant = fmt.withText(thread[2]!, "Checking.")
    assert.deepStrictEqual(assistant.content, [
      { type: "thinking", thinking: "Fetch the invoice and its payment attempts together.", signature: "EqQBCkYIARgC" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_inv", name: "get_invoice", input: { id: 8812 } },
      { type: "tool_use", id: "toolu_pay", name: "list_payments", input: { invoice: 8812, limit: 3 } }
    ])
    assert.deepStrictEqual(fmt.toolCalls(assistant), fmt.toolCalls(thread[2]!))
    // No text block yet: the new one goes after the thinking, before the calls.
    assert.deepStrictEqual(
      fmt.withText(thread[7]!, "Opening a ticket.").content,
      [
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
        { type: "text", text: "Opening a ticket." },
        {
          type: "mcp_tool_use",
          id: "mcptoolu_1",
          name: "open_ticket",
          server_name: "support",
          input: { priority: "high" }
        },
        {
          type: "mcp_tool_result",
          tool_use_id: "mcptoolu_1",
          is_error: false,
          content: [{ type: "text", text: "ticket SUP-77 opened" }]
        }
      ]
    )
    assert.deepStrictEqual(fmt.withText(thread[9]!, "Done."), {
      role: "assistant",
      content: "Done.",
      meta: { pinned: true }
    })
    assert.deepStrictEqual(fmt.withText(thread[1]!, "").content, [{
      type: "document",
      source: { type: "text", media_type: "text/plain", data: "ERR card_declined (attempt 2)" },
      title: "gateway.log"
    }])

    // A message of results: its text is the first result's, the others are emptied.
    const results = fmt.withText(thread[3]!, "[results cleared]")
    assert.strictEqual(fmt.text(results), "[results cleared]")
    assert.deepStrictEqual(fmt.links(results), fmt.links(thread[3]!))
    assert.deepStrictEqual(fmt.toolResults(results).map((r) => r.text), ["[results cleared]", ""])

    const pay = fmt.withResultText(thread[3]!, "toolu_pay", "2 declined attempts")
    const blocks = pay.content as ReadonlyArray<unknown>
    assert.strictEqual(blocks[0], (thread[3]!.content as ReadonlyArray<unknown>)[0])
    assert.deepStrictEqual(blocks[1], {
      type: "tool_result",
      tool_use_id: "toolu_pay",
      is_error: false,
      content: [
        { type: "text", text: "2 declined attempts" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
      ]
    })
    assert.deepStrictEqual(fmt.withResultText(thread[6]!, "toolu_retry", "timeout").content, [
      { type: "tool_result", tool_use_id: "toolu_retry", content: "timeout", is_error: true }
    ])
    assert.deepStrictEqual(fmt.toolResults(fmt.withResultText(thread[7]!, "mcptoolu_1", "SUP-77")), [
      { callId: "mcptoolu_1", isError: false, text: "SUP-77" }
    ])
    // Server tool results are structured provider data: left as they are.
    assert.strictEqual(fmt.withResultText(thread[4]!, "srvtoolu_ws", "x"), thread[4])
    assert.strictEqual(fmt.withResultText(thread[3]!, "toolu_other", "x"), thread[3])
    assert.strictEqual(fmt.withResultText(thread[5]!, "toolu_retry", "x"), thread[5])
  })

  it("removes tool blocks by id, and the message when nothing meaningful is left", () => {
    // `!` on a withoutToolParts result: these calls keep other blocks, so a message is returned.
    const one = fmt.withoutToolParts(thread[2]!, new Set(["toolu_inv"]))
    assert.deepStrictEqual(fmt.toolCalls(one!).map((c) => c.id), ["toolu_pay"])
    assert.strictEqual(
      fmt.text(one!),
      "Fetch the invoice and its payment attempts together.\nLooking it up.\nlist_payments {\"invoice\":8812,\"limit\":3}"
    )
    const none = fmt.withoutToolParts(thread[2]!, new Set(["toolu_inv", "toolu_pay"]))
    assert.deepStrictEqual(fmt.text(none!), "Fetch the invoice and its payment attempts together.\nLooking it up.")
    assert.strictEqual(fmt.withoutToolParts(thread[3]!, new Set(["toolu_inv", "toolu_pay"])), undefined)
    assert.deepStrictEqual(fmt.links(fmt.withoutToolParts(thread[3]!, new Set(["toolu_inv"]))!), [
      { kind: "result", id: "toolu_pay" }
    ])
    assert.deepStrictEqual(fmt.links(fmt.withoutToolParts(thread[4]!, new Set(["srvtoolu_ws"]))!), [
      { kind: "call", id: "toolu_retry" }
    ])
    assert.strictEqual(fmt.withoutToolParts(thread[6]!, new Set(["toolu_retry"])), undefined)
    // Only redacted thinking would remain.
    assert.strictEqual(fmt.withoutToolParts(thread[7]!, new Set(["mcptoolu_1"])), undefined)
    assert.strictEqual(fmt.withoutToolParts(thread[2]!, new Set(["toolu_retry"])), thread[2])
    assert.strictEqual(fmt.withoutToolParts(thread[9]!, new Set(["toolu_inv"])), thread[9])
  })

  it("makes notes and one user message answering several calls", () => {
    assert.deepStrictEqual(fmt.makeNote("Summary: invoice 8812 declined twice.", { role: "user", kind: "summary" }), {
      role: "user",
      content: "Summary: invoice 8812 declined twice."
    })
    assert.deepStrictEqual(fmt.makeNote("Never refund without a ticket.", { role: "system", kind: "invariants" }), {
      role: "system",
      content: "Never refund without a ticket."
    })
    const stub = "The outcome of this call is unknown."
    const answers = fmt.makeToolResults(thread[2]!, fmt.toolCalls(thread[2]!), stub, { isError: true })
    assert.deepStrictEqual(answers, [{
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_inv", content: stub, is_error: true },
        { type: "tool_result", tool_use_id: "toolu_pay", content: stub, is_error: true }
      ]
    }])
    assert.strictEqual(fmt.role(answers[0]!), "tool")
    assert.deepStrictEqual(
      fmt.makeToolResults(thread[2]!, fmt.toolCalls(thread[2]!).slice(0, 1), stub, { isError: false }),
      [
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_inv", content: stub }] }
      ]
    )
    assert.deepStrictEqual(fmt.makeToolResults(thread[9]!, [], stub, { isError: false }), [])
    const cut = [...thread.slice(0, 3), ...answers]
    assert.deepStrictEqual(toolGroups(cut, fmt), { groups: [[0], [1], [2, 3]], groupOf: [0, 1, 2, 2], diagnostics: [] })
  })

  it("validates with path-named issues", () => {
    const paths = (message: unknown, at: string) => fmt.validate(message, at).map((i) => i.path)
    assert.deepStrictEqual(thread.flatMap((m, i) => paths(m, `messages[${i}]`)), [])
    assert.deepStrictEqual(
      paths(
        { role: "user", content: [{ type: "tool_result", content: 3 }, "x", { type: "tool_use", id: "a" }] },
        "messages[2]"
      ),
      [
        "messages[2].content[0].tool_use_id",
        "messages[2].content[0].content",
        "messages[2].content[1]",
        "messages[2].content[2].name"
      ]
    )
    assert.deepStrictEqual(paths({ role: "bot", content: {} }, "messages[0]"), [
      "messages[0].role",
      "messages[0].content"
    ])
    assert.deepStrictEqual(paths({ role: "assistant", content: [{ text: "hi" }] }, "messages[4]"), [
      "messages[4].content[0].type"
    ])
    assert.deepStrictEqual(
      paths({ role: "assistant", content: [{ type: "web_fetch_tool_result", content: {} }] }, "messages[1]"),
      ["messages[1].content[0].tool_use_id"]
    )
    assert.deepStrictEqual(paths(null, "messages[5]"), ["messages[5]"])
    assert.match(fmt.validate({ role: "user", content: 5 }, "messages[3]")[0]?.message ?? "", /got 5$/)
  })

  it("is total on garbage", () => {
    const message = (u: unknown) => u as AnthropicMessage
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
      "tool"
    ])
    assert.deepStrictEqual(garbage.map(message).flatMap(fmt.links), [])
    assert.strictEqual(fmt.text(message(garbage[7])), "")
    // Cyclic input does not hang or throw.
    const cyclic: Record<string, unknown> = { type: "tool_result", tool_use_id: "c" }
    cyclic["content"] = [cyclic]
    assert.strictEqual(fmt.text({ role: "user", content: [cyclic] }), "")
  })
})
