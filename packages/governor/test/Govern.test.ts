import { approximateCounter } from "@ctxkit/budget"
import { CounterFailed } from "@ctxkit/budget/Diagnostics"
import { formats, type Message } from "@ctxkit/core"
import { ContextGoverned, Elision, govern, type ToolKinds } from "@ctxkit/governor"
import { GovernorSettingAdjusted } from "@ctxkit/governor/Diagnostics"
import type { GovernOptions } from "@ctxkit/governor/Govern"
import { deepFreeze } from "@ctxkit/testing"
// The event's id limit (32, the spec's number) is not exported from the root.
import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Schema from "effect/Schema"
import { MAX_EVENT_CALL_IDS } from "../src/ContextGoverned.ts"
import { body, call, read, result, say, user } from "./helpers.ts"

const on = (history: ReadonlyArray<Message>, options: GovernOptions<Message> = {}) =>
  govern(deepFreeze(history), { mode: "on", epochMessages: 0, format: formats.canonical, ...options })

/** `[callId, reason, supersededBy]` of every elision `on` makes. */
const elided = (history: ReadonlyArray<Message>, options: GovernOptions<Message> = {}) =>
  on(history, options).elisions.map((e) => [e.callId, e.reason, e.supersededBy])

/** read a.ts → edit (or `change`) a.ts → two assistant messages → a new user message. */
const readThenChange = (change: Message, changeResult: Message): Array<Message> => [
  user("fix a.ts"),
  read("r1", "a.ts"),
  result("r1", body("v1")),
  change,
  changeResult,
  say(),
  say(),
  user("next")
]

describe("govern: superseded_read", () => {
  it("elides a read that a later successful edit or write of the same path changed", () => {
    const edit = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    assert.deepStrictEqual(elided(edit), [["r1", "superseded_read", "e1"]])
    const write = readThenChange(call("w1", "write_file", { path: "a.ts" }), result("w1", "written"))
    assert.deepStrictEqual(elided(write), [["r1", "superseded_read", "w1"]])
    const out = on(edit).messages
    assert.deepStrictEqual(out[2], {
      role: "tool",
      toolCallId: "r1",
      content: "[elided: read_file \"a.ts\"@unknown; re-read to view]"
    })
  })

  it("does not elide it when the change is of another path, is an error, or the read itself is an error", () => {
    assert.deepStrictEqual(elided(readThenChange(call("e1", "edit_file", { path: "b.ts" }), result("e1", "ok"))), [])
    // Paths compare as written: ./a.ts is another path (only a lost saving).
    assert.deepStrictEqual(elided(readThenChange(call("e1", "edit_file", { path: "./a.ts" }), result("e1", "ok"))), [])
    assert.deepStrictEqual(
      elided(readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "no match", { isError: true }))),
      []
    )
    const erroredRead = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    erroredRead[2] = result("r1", body("permission denied"), { isError: true })
    assert.deepStrictEqual(elided(erroredRead), [])
  })

  it("elides a read when a later read returned another sha256, and not when it returned the same", () => {
    const history = (sha1: string | undefined, sha2: string | undefined): Array<Message> => [
      user(),
      read("r1", "a.ts"),
      result("r1", body("v1"), sha1 === undefined ? {} : { sha256: sha1 }),
      read("r2", "a.ts"),
      result("r2", body("v2"), sha2 === undefined ? {} : { sha256: sha2 }),
      say(),
      say(),
      user()
    ]
    const a = "a".repeat(64)
    const b = "b".repeat(64)
    assert.deepStrictEqual(elided(history(a, b)), [["r1", "superseded_read", "r2"]])
    assert.strictEqual(on(history(a, b)).messages[2]?.content, "[elided: read_file \"a.ts\"@aaaaaaaa; re-read to view]")
    assert.deepStrictEqual(elided(history(a, a)), [])
    assert.deepStrictEqual(elided(history(a, undefined)), [])
    assert.deepStrictEqual(elided(history(undefined, b)), [])
  })

  it("reads the sha256 from the message's meta, or through the mapping's accessor", () => {
    const withMeta: Array<Message> = [
      user(),
      read("r1", "a.ts"),
      { role: "tool", toolCallId: "r1", content: body("v1"), meta: { sha256: "1".repeat(64) } },
      read("r2", "a.ts"),
      { role: "tool", toolCallId: "r2", content: body("v2"), meta: { sha256: "2".repeat(64) } },
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(withMeta), [["r1", "superseded_read", "r2"]])
    const inText: ToolKinds = {
      read_file: {
        kind: "read_file",
        path: (args) => typeof args["path"] === "string" ? args["path"] : undefined,
        sha256: (r) => /sha256=([0-9a-f]{64})/.exec(r.text)?.[1]
      }
    }
    const history: Array<Message> = [
      user(),
      read("r1", "a.ts"),
      result("r1", `sha256=${"c".repeat(64)}\n${body("v1")}`),
      read("r2", "a.ts"),
      result("r2", `sha256=${"d".repeat(64)}\n${body("v2")}`),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history, { toolKinds: inText }), [["r1", "superseded_read", "r2"]])
    assert.include(on(history, { toolKinds: inText }).elisions[0]?.stub ?? "", "@cccccccc;")
  })

  it("with hashReads, hashes full reads the tool gave no sha256 for: other content supersedes, same content does not", () => {
    const history = (t1: string, t2: string, extra: Record<string, unknown> = {}): Array<Message> => [
      user(),
      read("r1", "a.ts", extra),
      result("r1", t1),
      read("r2", "a.ts", extra),
      result("r2", t2),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history(body("v1"), body("v2")), { hashReads: true }), [[
      "r1",
      "superseded_read",
      "r2"
    ]])
    assert.match(on(history(body("v1"), body("v2")), { hashReads: true }).elisions[0]?.stub ?? "", /@[0-9a-f]{8};/)
    assert.deepStrictEqual(elided(history(body("v1"), body("v1")), { hashReads: true }), [])
    assert.deepStrictEqual(elided(history(body("v1"), body("v2"))), [], "no hashing unless asked")
    // A partial read is not the file: it is never hashed.
    assert.deepStrictEqual(elided(history(body("v1"), body("v2"), { limit: 40 }), { hashReads: true }), [])
  })

  it("a read over 1 MiB without sha256 is only superseded by a write or an edit", () => {
    const big = (tag: string) => tag + "x".repeat(1024 * 1024)
    const reads: Array<Message> = [
      user(),
      read("r1", "big.log"),
      result("r1", big("1")),
      read("r2", "big.log"),
      result("r2", big("2")),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(reads, { hashReads: true }), [])
    const edited: Array<Message> = [
      user(),
      read("r1", "big.log"),
      result("r1", big("1")),
      call("e1", "edit_file", { path: "big.log" }),
      result("e1", "ok"),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(edited, { hashReads: true }), [["r1", "superseded_read", "e1"]])
  })

  it("never elides the last result for a path, nor write or edit results", () => {
    const history: Array<Message> = [
      user(),
      call("w1", "write_file", { path: "a.ts" }),
      result("w1", body("wrote v1")),
      read("r1", "a.ts"),
      result("r1", body("v1"), { sha256: "1".repeat(64) }),
      call("w2", "write_file", { path: "a.ts" }),
      result("w2", body("wrote v2")),
      read("r2", "a.ts"),
      result("r2", body("v2"), { sha256: "2".repeat(64) }),
      say(),
      say(),
      user()
    ]
    // r1 (superseded by w2, its nearest later change) goes; r2, the last result for a.ts, and the writes stay.
    assert.deepStrictEqual(elided(history), [["r1", "superseded_read", "w2"]])
  })

  it("shows the range of a partial read in its stub", () => {
    const history = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    history[1] = read("r1", "a.ts", { startLine: 10, limit: 50 })
    assert.strictEqual(
      on(history).elisions[0]?.stub,
      "[elided: read_file \"a.ts\"@unknown lines 10+50; re-read to view]"
    )
  })
})

describe("govern: the last turn, minAgeTurns and epochs", () => {
  const base = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))

  it("never elides anything in the last turn (from the last normal user message on)", () => {
    // Without the final user message, the last turn begins at message 0: nothing is eligible.
    assert.deepStrictEqual(elided(base.slice(0, -1)), [])
    // The same exchange after the last user message stays whole; one more user message makes it eligible.
    const inLastTurn = [user(), say(), say(), ...base.slice(1, -1)]
    assert.deepStrictEqual(elided(inLastTurn), [])
    assert.deepStrictEqual(elided([...inLastTurn, user()]), [["r1", "superseded_read", "e1"]])
    // A checkpoint is not a normal user message: it does not end the last turn.
    const checkpoint: Message = { role: "user", content: "Summary of the session so far", summary: true }
    assert.deepStrictEqual(elided([...base.slice(0, -1), checkpoint]), [])
    // Nor is the invariants block.
    const invariants: Message = { role: "user", content: "<invariants policy=\"1\">\n</invariants>" }
    assert.deepStrictEqual(elided([...base.slice(0, -1), invariants]), [])
  })

  it("elides a result only when at least minAgeTurns assistant messages came after it (default 2)", () => {
    // After r1's result: the edit's call and one more assistant message = 2.
    const two = [...base.slice(0, 6), user()]
    assert.deepStrictEqual(elided(two), [["r1", "superseded_read", "e1"]])
    assert.deepStrictEqual(elided(two, { minAgeTurns: 3 }), [])
    const one = [...base.slice(0, 5), user()]
    assert.deepStrictEqual(elided(one), [])
    assert.deepStrictEqual(elided(one, { minAgeTurns: 1 }), [["r1", "superseded_read", "e1"]])
    const twenty = [...base.slice(0, 5), ...Array.from({ length: 19 }, () => say()), user()]
    assert.deepStrictEqual(elided(twenty, { minAgeTurns: 20 }), [["r1", "superseded_read", "e1"]])
    assert.deepStrictEqual(elided(twenty.slice(0, -2).concat([user()]), { minAgeTurns: 20 }), [])
  })

  it("with epochMessages, only the first floor(length / epochMessages) × epochMessages messages are eligible", () => {
    // base has 8 messages; the user message at 7 ends the exchange.
    assert.deepStrictEqual(elided(base, { epochMessages: 8 }), [["r1", "superseded_read", "e1"]])
    assert.deepStrictEqual(elided(base, { epochMessages: 4 }), [["r1", "superseded_read", "e1"]])
    // A window of 5 messages ends before the user message: its last turn is all of it.
    assert.deepStrictEqual(elided(base, { epochMessages: 5 }), [])
    // A window of 9 is empty for 8 messages; at 9 messages the boundary is reached and the elision happens at once.
    assert.deepStrictEqual(elided(base, { epochMessages: 9 }), [])
    assert.deepStrictEqual(elided([...base, say()], { epochMessages: 9 }), [["r1", "superseded_read", "e1"]])
    // The default is 32.
    assert.deepStrictEqual(elided(base, { epochMessages: undefined }), [])
    const padded = [...base, ...Array.from({ length: 24 }, () => say())]
    assert.deepStrictEqual(elided(padded, { epochMessages: undefined }), [["r1", "superseded_read", "e1"]])
  })

  it("only results inside the window can supersede: the rules see the window alone", () => {
    const late = [user(), read("r1", "a.ts"), result("r1", body("v1")), say(), say(), user(), say(), say()]
    const grown = [...late, call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"), say(), say(), user()]
    // 13 messages, epochs of 8: the edit (message 9) is past the window.
    assert.deepStrictEqual(elided(grown, { epochMessages: 8 }), [])
    assert.deepStrictEqual(elided(grown, { epochMessages: 13 }), [["r1", "superseded_read", "e1"]])
  })
})

describe("govern: stale_bg_output", () => {
  const poll = (id: string, args: unknown) => call(id, "bg_output", args)
  const history = (a1: unknown, a2: unknown, t1 = body("out 1"), t2 = body("out 2")): Array<Message> => [
    user(),
    poll("b1", a1),
    result("b1", t1),
    poll("b2", a2),
    result("b2", t2),
    say(),
    say(),
    user()
  ]

  it("elides a query when a later one of the same task has identical arguments (offset defaults to 0)", () => {
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", offset: 0 })), [["b1", "stale_bg_output", "b2"]])
    assert.strictEqual(
      on(history({ id: "t1" }, { id: "t1" })).elisions[0]?.stub,
      "[elided: bg_output \"t1\" offset 0; a later bg_output covers it]"
    )
    assert.deepStrictEqual(elided(history({ id: "t1", offset: 10 }, { id: "t1", offset: 10 })).length, 1)
  })

  it("does not elide it for another offset, another task, another limit, or a later error", () => {
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", offset: 10 })), [])
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t2" })), [])
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", limit: 100 })), [])
    const failed = history({ id: "t1" }, { id: "t1" })
    failed[4] = result("b2", body("no such task"), { isError: true })
    assert.deepStrictEqual(elided(failed), [])
  })

  it("an absent limit equals the mapping's defaultLimit", () => {
    const kinds: ToolKinds = {
      bg_output: {
        kind: "bg_output",
        taskId: (args) => String(args["id"]),
        limit: (args) => typeof args["limit"] === "number" ? args["limit"] : undefined,
        defaultLimit: 100
      }
    }
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", limit: 100 }), { toolKinds: kinds }).length, 1)
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", limit: 50 }), { toolKinds: kinds }), [])
  })

  it("never elides a query that continues from an earlier next_offset (each chunk is new)", () => {
    const chunk = (next: number) => `{"next_offset": ${next}, "output": "${"x".repeat(200)}"}`
    const continued: Array<Message> = [
      user(),
      poll("b1", { id: "t1" }),
      result("b1", chunk(50)),
      poll("b2", { id: "t1", offset: 50 }),
      result("b2", chunk(90)),
      poll("b3", { id: "t1", offset: 50 }),
      result("b3", chunk(90)),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(continued), [])
    // Without the earlier next_offset, b2 and b3 are two identical queries: b2 goes.
    const fresh = [...continued]
    fresh[2] = result("b1", `{"output": "${"x".repeat(200)}"}`)
    assert.deepStrictEqual(elided(fresh), [["b2", "stale_bg_output", "b3"]])
  })

  it("elides a query that returned empty output when a later query of the same task exists", () => {
    const kinds: ToolKinds = {
      bg_output: {
        kind: "bg_output",
        taskId: (args) => String(args["id"]),
        offset: (args) => typeof args["offset"] === "number" ? args["offset"] : undefined,
        isEmpty: (text) => text.includes("\"output\": \"\"")
      }
    }
    const empty = `{"status": "running", "output": "", "note": "${"no output yet ".repeat(8)}"}`
    const h = history({ id: "t1" }, { id: "t1", offset: 10 }, empty)
    assert.deepStrictEqual(elided(h, { toolKinds: kinds }), [["b1", "stale_bg_output", "b2"]])
    // With the default (blank text), that result is not empty.
    assert.deepStrictEqual(elided(h), [])
    // Blank text is empty, but a stub is never shorter than blank text: nothing to gain, nothing elided.
    assert.deepStrictEqual(elided(history({ id: "t1" }, { id: "t1", offset: 10 }, "  ")), [])
  })
})

describe("govern: duplicate_search", () => {
  const history = (a1: unknown, t1: string, a2: unknown, t2: string): Array<Message> => [
    user(),
    call("s1", "search_text", a1),
    result("s1", t1),
    call("s2", "search_text", a2),
    result("s2", t2),
    say(),
    say(),
    user()
  ]
  const matches = "exit 0\nsrc/a.ts:3: // TODO one\nsrc/b.ts:9: // TODO two\n".repeat(3)

  it("elides a search when a later one has the same arguments and the same matches, elapsed time ignored", () => {
    assert.deepStrictEqual(
      elided(history({ pattern: "TODO" }, matches + "elapsed_ms: 12", { pattern: "TODO" }, matches + "elapsed_ms: 40")),
      [["s1", "duplicate_search", "s2"]]
    )
    assert.deepStrictEqual(
      elided(history({ pattern: "TODO", path: "src" }, matches, { path: "src", pattern: "TODO" }, matches)).length,
      1,
      "arguments compare as JSON, key order ignored"
    )
    assert.strictEqual(
      on(history({ pattern: "say \"TODO\"" }, matches, { pattern: "say \"TODO\"" }, matches)).elisions[0]?.stub,
      "[elided: search_text \"say \\\"TODO\\\"\"; identical to a later result]"
    )
  })

  it("does not elide it for other arguments, other matches or another exit code", () => {
    assert.deepStrictEqual(elided(history({ pattern: "TODO" }, matches, { pattern: "FIXME" }, matches)), [])
    assert.deepStrictEqual(elided(history({ pattern: "TODO" }, matches, { pattern: "TODO" }, matches + "x")), [])
    assert.deepStrictEqual(
      elided(history({ pattern: "TODO" }, matches, { pattern: "TODO" }, matches.replace("exit 0", "exit 1"))),
      []
    )
  })
})

describe("govern: what is never touched", () => {
  it("never elides results in pinned messages or checkpoints, nor user, assistant or system messages", () => {
    const history = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    history[2] = { role: "tool", toolCallId: "r1", content: body("v1"), pinned: true } as Message
    assert.deepStrictEqual(elided(history), [])
    const out = on([
      { role: "system", content: body("system") },
      ...readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    ])
    assert.deepStrictEqual(out.elisions.map((e) => e.index), [3])
  })

  it("never replaces a result by a stub that is not shorter", () => {
    const history = readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok"))
    history[2] = result("r1", "tiny")
    assert.deepStrictEqual(elided(history), [])
  })

  it("changes only the text of the elided result of a message answering several calls (Anthropic)", () => {
    const history = deepFreeze([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "r1", name: "read_file", input: { path: "a.ts" } },
          { type: "tool_use", id: "r2", name: "read_file", input: { path: "b.ts" } }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "r1", content: body("a") },
          { type: "tool_result", tool_use_id: "r2", content: body("b") }
        ]
      },
      { role: "assistant", content: [{ type: "tool_use", id: "e1", name: "edit_file", input: { path: "a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "e1", content: "ok" }] },
      { role: "assistant", content: "done" },
      { role: "user", content: "thanks" }
    ])
    const { elisions, messages } = govern(history, { mode: "on", epochMessages: 0, format: formats.anthropic })
    assert.deepStrictEqual(elisions.map((e) => e.callId), ["r1"])
    assert.deepStrictEqual(messages[2], {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "r1", content: "[elided: read_file \"a.ts\"@unknown; re-read to view]" },
        { type: "tool_result", tool_use_id: "r2", content: body("b") }
      ]
    })
    messages.forEach((m, i) => {
      if (i !== 2) assert.strictEqual(m, history[i])
    })
  })

  it("pairs a reused call id with its latest call", () => {
    const history: Array<Message> = [
      user(),
      read("c", "a.ts"),
      result("c", body("v1")),
      call("c", "edit_file", { path: "a.ts" }),
      result("c", "ok"),
      say(),
      say(),
      user()
    ]
    assert.deepStrictEqual(elided(history), [["c", "superseded_read", "c"]])
    assert.strictEqual(on(history).messages[4], history[4])
  })
})

describe("govern: modes, event and options", () => {
  const history = deepFreeze(readThenChange(call("e1", "edit_file", { path: "a.ts" }), result("e1", "ok")))

  it("off: the history itself, nothing measured", () => {
    const result = govern(history)
    assert.strictEqual(result.messages, history)
    assert.deepStrictEqual(result.elisions, [])
    assert.isUndefined(result.event)
    assert.strictEqual(govern(history, { mode: "off", epochMessages: 0 }).messages, history)
  })

  it("shadow: the history itself, plus what on would elide", () => {
    const shadow = govern(history, { mode: "shadow", epochMessages: 0 })
    const onResult = govern(history, { mode: "on", epochMessages: 0 })
    assert.strictEqual(shadow.messages, history)
    assert.deepStrictEqual(shadow.elisions, onResult.elisions)
    assert.strictEqual(shadow.event?.mode, "shadow")
    assert.strictEqual(shadow.event?.tokensAfter, onResult.event?.tokensAfter)
  })

  it("on: a new array where only the elided result changed; the rest are the same objects", () => {
    const { messages } = govern(history, { mode: "on", epochMessages: 0 })
    assert.notStrictEqual(messages, history)
    messages.forEach((m, i) => (i === 2 ? assert.notStrictEqual(m, history[i]) : assert.strictEqual(m, history[i])))
    // No elision: the history itself.
    assert.strictEqual(govern(history.slice(0, 3), { mode: "on", epochMessages: 0 }).messages.length, 3)
  })

  it("emits a context_governed event with counts, token estimates and the newly elided call ids", () => {
    const { elisions, event } = govern(history, { mode: "on", epochMessages: 0, request: 7 })
    assert.isTrue(Schema.is(ContextGoverned)(event))
    assert.isTrue(elisions.every(Schema.is(Elision)))
    const stubTokens = approximateCounter.count("[elided: read_file \"a.ts\"@unknown; re-read to view]")
    assert.deepStrictEqual(elisions[0]?.tokensSaved, approximateCounter.count(body("v1")) - stubTokens)
    assert.deepStrictEqual(event, {
      type: "context_governed",
      mode: "on",
      policyVersion: 1,
      request: 7,
      messages: 8,
      segments: 8,
      elided: { total: 1, superseded_read: 1, stale_bg_output: 0, duplicate_search: 0 },
      tokensBefore: event?.tokensBefore ?? -1,
      tokensAfter: (event?.tokensBefore ?? 0) - (elisions[0]?.tokensSaved ?? 0),
      approximate: true,
      newlyElided: ["r1"],
      newlyElidedMore: 0
    })
    const again = govern(history, { mode: "on", epochMessages: 0, previouslyElided: ["r1"] })
    assert.deepStrictEqual(again.event?.newlyElided, [])
    // Never paths, patterns or stub text.
    assert.notInclude(JSON.stringify(event), "a.ts")
    assert.notInclude(JSON.stringify(event), "elided:")
  })

  it("lists at most 32 newly elided call ids and counts the rest", () => {
    const many: Array<Message> = [user()]
    for (let k = 0; k < 40; k++) many.push(read(`r${k}`, `f${k}.ts`), result(`r${k}`, body(`v${k}`)))
    for (let k = 0; k < 40; k++) many.push(call(`e${k}`, "edit_file", { path: `f${k}.ts` }), result(`e${k}`, "ok"))
    many.push(say(), say(), user())
    const { event } = govern(many, { mode: "shadow", epochMessages: 0, format: formats.canonical })
    assert.strictEqual(event?.elided.total, 40)
    assert.strictEqual(event?.newlyElided.length, MAX_EVENT_CALL_IDS)
    assert.strictEqual(event?.newlyElidedMore, 8)
  })

  it("is data-first and data-last", () => {
    assert.deepStrictEqual(
      pipe(history, govern({ mode: "on", epochMessages: 0 })).elisions,
      govern(history, { mode: "on", epochMessages: 0 }).elisions
    )
  })

  it("replaces out-of-range settings, with a diagnostic naming the setting and the fix", () => {
    const adjusted = (options: GovernOptions<Message>) =>
      govern(history, { mode: "shadow", ...options }).diagnostics.map((d) =>
        d instanceof GovernorSettingAdjusted ? [d.setting, d.given, d.used] : [d._tag]
      )
    assert.deepStrictEqual(adjusted({ minAgeTurns: 0 }), [["minAgeTurns", "0", "1"]])
    assert.deepStrictEqual(adjusted({ minAgeTurns: 21 }), [["minAgeTurns", "21", "20"]])
    assert.deepStrictEqual(adjusted({ minAgeTurns: Number.NaN }), [["minAgeTurns", "NaN", "2"]])
    assert.deepStrictEqual(adjusted({ epochMessages: -1 }), [["epochMessages", "-1", "0"]])
    assert.deepStrictEqual(adjusted({ epochMessages: 5000 }), [["epochMessages", "5000", "1000"]])
    assert.deepStrictEqual(adjusted({ epochMessages: Infinity }), [["epochMessages", "Infinity", "1000"]])
    assert.deepStrictEqual(adjusted({ policyVersion: 2 as unknown as 1 }), [["policyVersion", "2", "1"]])
    const bogus = govern(history, { mode: "bogus" as unknown as "on" })
    assert.isUndefined(bogus.event)
    assert.strictEqual(
      bogus.diagnostics[0]?.message,
      "Governor setting mode = \"bogus\" is out of range; used \"off\" instead. Set it to \"off\", \"shadow\" or \"on\"."
    )
  })

  it("survives bad input: not an array, junk messages, throwing accessors, a throwing counter", () => {
    assert.deepStrictEqual(govern("nope" as unknown as ReadonlyArray<Message>, { mode: "on" }).messages, [])
    const junk = [null, 3, "x", { role: 7 }, { toolCalls: "no" }, ...history] as unknown as ReadonlyArray<Message>
    assert.strictEqual(govern(junk, { mode: "on", epochMessages: 0 }).elisions.length, 1)
    const throwing: ToolKinds = {
      read_file: {
        kind: "read_file",
        path: () => {
          throw new Error("boom")
        }
      },
      edit_file: () => {
        throw new Error("boom")
      }
    }
    assert.deepStrictEqual(govern(history, { mode: "on", epochMessages: 0, toolKinds: throwing }).elisions, [])
    const broken = {
      id: "broken",
      approximate: false,
      count: (): number => {
        throw new Error("no vocab")
      }
    }
    const r = govern(history, { mode: "on", epochMessages: 0, counter: broken })
    assert.strictEqual(r.elisions.length, 1)
    assert.isTrue(r.event?.approximate)
    assert.isTrue(r.diagnostics.some((d) => d instanceof CounterFailed))
  })
})
