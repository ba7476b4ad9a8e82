/**
 * The event schemas and the versioned JSONL envelope: exact JSON for one event of each type, round trips, and
 * clear errors for lines that are not events of this version.
 */
import {
  type CompactionEvent,
  CompactionEvent as CompactionEventSchema,
  decodeEventLine,
  encodeEventLine,
  envelope
} from "@ctxkit/compaction"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { EVENT_SCHEMA_VERSION, InvalidEventLine } from "../src/Events.ts"

const context = { runId: "run-7", sessionId: "ses-1", seq: 3, timestamp: "2026-05-01T10:00:00.000Z" }
const head = "{\"schemaVersion\":1,\"runId\":\"run-7\",\"sessionId\":\"ses-1\",\"seq\":3,"
const stamp = ",\"timestamp\":\"2026-05-01T10:00:00.000Z\","

const cases: ReadonlyArray<readonly [CompactionEvent, string]> = [
  [
    { type: "compaction_started", data: { reason: "auto", before: 41_200, messages: 86 } },
    `${head}"type":"compaction_started"${stamp}"data":{"reason":"auto","before":41200,"messages":86}}`
  ],
  [
    {
      type: "compaction_completed",
      data: {
        reason: "manual",
        before: 41_200,
        after: 9_800,
        replaced: 70,
        structured: true,
        summarizedTokens: 33_000,
        checkpointTokens: 1_600,
        plugins: [{ name: "memory", summary: "2 saved", data: { saved: 2, tags: ["a", null] } }],
        partial: true
      }
    },
    `${head}"type":"compaction_completed"${stamp}"data":{"reason":"manual","before":41200,"after":9800,"replaced":70,` +
    `"structured":true,"summarizedTokens":33000,"checkpointTokens":1600,` +
    `"plugins":[{"name":"memory","summary":"2 saved","data":{"saved":2,"tags":["a",null]}}],"partial":true}}`
  ],
  [
    { type: "compaction_skipped", data: { reason: "budget", before: 120, detail: "nothing to summarize" } },
    `${head}"type":"compaction_skipped"${stamp}"data":{"reason":"budget","before":120,"detail":"nothing to summarize"}}`
  ],
  [
    { type: "compaction_failed", data: { reason: "auto", error: "Summarizer returned an empty summary" } },
    `${head}"type":"compaction_failed"${stamp}"data":{"reason":"auto","error":"Summarizer returned an empty summary"}}`
  ],
  [
    { type: "context_reduced", data: { messages: 3, reason: "hard-limit", tokensSaved: 52_000 } },
    `${head}"type":"context_reduced"${stamp}"data":{"messages":3,"reason":"hard-limit","tokensSaved":52000}}`
  ],
  [
    {
      type: "plugin_hook_failed",
      data: { source: "memory", hook: "afterCompact", error: "did not complete within 5000 ms", continued: true }
    },
    `${head}"type":"plugin_hook_failed"${stamp}` +
    `"data":{"source":"memory","hook":"afterCompact","error":"did not complete within 5000 ms","continued":true}}`
  ]
]

const failureOf = (line: string): InvalidEventLine => {
  const result = decodeEventLine(line)
  assert.isTrue(Result.isFailure(result), `expected ${line} to be rejected`)
  return (result as Result.Failure<unknown, InvalidEventLine>).failure
}

describe("events", () => {
  it("the schema version is 1", () => {
    assert.strictEqual(EVENT_SCHEMA_VERSION, 1)
  })

  for (const [event, json] of cases) {
    it(`${event.type}: exact JSON line and round trip`, () => {
      assert.isTrue(Schema.is(CompactionEventSchema)(event))
      const wrapped = envelope(event, context)
      const line = encodeEventLine(wrapped)
      assert.strictEqual(line, json)
      assert.isFalse(line.endsWith("\n"))
      const back = decodeEventLine(line)
      assert.isTrue(Result.isSuccess(back))
      assert.deepStrictEqual(Result.getOrThrow(back), wrapped)
      // A trailing newline (as written to a file) reads the same.
      assert.deepStrictEqual(Result.getOrThrow(decodeEventLine(`${line}\n`)), wrapped)
      assert.deepStrictEqual(Result.getOrThrow(decodeEventLine(`${line}\r\n`)), wrapped)
    })
  }

  it("optional data fields are absent, not undefined, in the JSON", () => {
    const line = encodeEventLine(envelope({ type: "context_reduced", data: { messages: 1 } }, context))
    assert.strictEqual(line, `${head}"type":"context_reduced"${stamp}"data":{"messages":1}}`)
  })

  it("an unknown schemaVersion is rejected before anything else, naming the version", () => {
    const error = failureOf("{\"schemaVersion\":2,\"type\":\"whatever\"}")
    assert.instanceOf(error, InvalidEventLine)
    assert.strictEqual(error.problem, "unsupported-version")
    assert.strictEqual(
      error.message,
      "Invalid compaction event line (unsupported-version): schemaVersion is 2, but this reader understands only version 1; upgrade @ctxkit/compaction to read it."
    )
    assert.strictEqual(
      failureOf("{\"type\":\"context_reduced\"}").detail,
      "schemaVersion is missing; this reader understands only version 1"
    )
  })

  it("not JSON, not an object, unknown type, bad field: each named", () => {
    assert.strictEqual(failureOf("{oops").problem, "not-json")
    assert.strictEqual(
      failureOf("{oops").message,
      "Invalid compaction event line (not-json): the line is not valid JSON; write one event per line."
    )
    assert.strictEqual(failureOf("[1]").detail, "expected a JSON object, got an array")
    assert.strictEqual(failureOf("42").problem, "not-an-object")
    const unknown = failureOf(`${head}"type":"compaction_exploded"${stamp}"data":{}}`)
    assert.strictEqual(unknown.problem, "invalid-event")
    assert.strictEqual(
      unknown.detail,
      "type is \"compaction_exploded\"; expected one of compaction_started, compaction_completed, compaction_skipped, compaction_failed, context_reduced, plugin_hook_failed"
    )
    const bad = failureOf(
      `${head}"type":"compaction_started"${stamp}"data":{"reason":"auto","before":-1,"messages":2}}`
    )
    assert.strictEqual(bad.problem, "invalid-event")
    assert.match(bad.detail, /^data\.before: /)
    const reason = failureOf(`${head}"type":"compaction_failed"${stamp}"data":{"reason":"later","error":"x"}}`)
    assert.match(reason.detail, /^data\.reason: /)
    const time = failureOf(
      `{"schemaVersion":1,"runId":"r","sessionId":"s","seq":0,"type":"context_reduced","timestamp":"yesterday","data":{"messages":1}}`
    )
    assert.match(time.detail, /^timestamp: /)
    const seq = failureOf(
      `{"schemaVersion":1,"runId":"r","sessionId":"s","seq":1.5,"type":"context_reduced","timestamp":"2026-05-01T10:00:00Z","data":{"messages":1}}`
    )
    assert.match(seq.detail, /^seq: /)
  })

  it("a non-string line is rejected without throwing", () => {
    const error = failureOf(42 as unknown as string)
    assert.strictEqual(error.detail, "expected a string, got 42")
  })

  it("round trip: any event survives encode and decode", () => {
    const count = fc.nat({ max: 1_000_000 })
    const reason = fc.constantFrom("manual" as const, "auto" as const, "budget" as const)
    const event: fc.Arbitrary<CompactionEvent> = fc.oneof(
      fc.record({
        type: fc.constant("compaction_started" as const),
        data: fc.record({ reason, before: count, messages: count })
      }),
      fc.record({ type: fc.constant("compaction_failed" as const), data: fc.record({ reason, error: fc.string() }) }),
      fc.record({
        type: fc.constant("compaction_skipped" as const),
        data: fc.record({ reason, before: count, detail: fc.string() })
      }),
      fc.record({
        type: fc.constant("context_reduced" as const),
        data: fc.record({ messages: count, reason: fc.string(), tokensSaved: count }, { requiredKeys: ["messages"] })
      }),
      fc.record({
        type: fc.constant("plugin_hook_failed" as const),
        data: fc.record({
          source: fc.string(),
          hook: fc.constantFrom("beforeCompact" as const, "afterCompact" as const),
          error: fc.string(),
          continued: fc.boolean()
        })
      })
    )
    fc.assert(
      fc.property(event, fc.string(), fc.nat(), (e, runId, seq) => {
        const wrapped = envelope(e, { ...context, runId, seq })
        const back = decodeEventLine(encodeEventLine(wrapped))
        return Result.isSuccess(back) && encodeEventLine(back.success) === encodeEventLine(wrapped)
      })
    )
  })
})
