/**
 * The governor on the real corpus (`../shared/corpus/normalized/`): every conversation through `govern` in
 * `shadow` with the corpus's canonical tool names. Every stale read the corpus labels (`readEditRead` in
 * stats.json) that the rules make eligible is elided; every elision is independently explained by the rules;
 * L10 holds on real transcripts; the tokens saved per session are printed.
 */
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { canonicalToolKinds, type Elision, govern } from "@ctxkit/governor"
import type { GovernOptions } from "@ctxkit/governor/Govern"
import { deepEqual, deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { corpusAbsent, corpusDir, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()

interface GovernorEvent {
  readonly pattern: string
  readonly callId: string
  readonly previousCallId?: string
  readonly editCallId?: string
  readonly path?: string
}

const metaOf = (m: Message): Readonly<Record<string, unknown>> | undefined =>
  (m as { readonly meta?: Readonly<Record<string, unknown>> }).meta

/**
 * The corpus's conventions on top of the canonical lens: Claude Code error results carry `meta.isError`, and its
 * compaction summaries `meta.kind = "compact_summary"` (checkpoints, not normal user messages).
 */
const corpusFormat: MessageFormat<Message> = {
  ...formats.canonical,
  isSummary: (m) => formats.canonical.isSummary(m) || metaOf(m)?.["kind"] === "compact_summary",
  toolResults: (m) =>
    formats.canonical.toolResults(m).map((r) => (metaOf(m)?.["isError"] === true ? { ...r, isError: true } : r))
}

const options = (extra: GovernOptions<Message> = {}): GovernOptions<Message> => ({
  toolKinds: canonicalToolKinds,
  format: corpusFormat,
  ...extra
})

/** Independent reading of the corpus, for the checks: calls by id, results by call id, turn and age facts. */
const facts = (messages: ReadonlyArray<Message>) => {
  const callAt = new Map<
    string,
    { readonly index: number; readonly name: string; readonly args: Record<string, unknown> }
  >()
  const resultAt = new Map<string, number>()
  let lastUser = -1
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      for (const c of m.toolCalls ?? []) {
        let args: Record<string, unknown> = {}
        try {
          args = JSON.parse(c.arguments) as Record<string, unknown>
        } catch {
          args = {}
        }
        callAt.set(c.id, { index: i, name: c.name, args })
      }
    }
    if (m.role === "tool") resultAt.set(m.toolCallId, i)
    if (m.role === "user" && m.summary !== true && metaOf(m)?.["kind"] !== "compact_summary") lastUser = i
  })
  const assistantsAfter = (index: number): number =>
    messages.slice(index + 1).filter((m) => m.role === "assistant").length
  const isError = (index: number): boolean => {
    const m = messages[index]
    return m === undefined || m.role !== "tool" || m.isError === true || metaOf(m)?.["isError"] === true
  }
  return { callAt, resultAt, lastUser, assistantsAfter, isError }
}

const filePath = (args: Record<string, unknown>): string | undefined =>
  typeof args["file_path"] === "string"
    ? args["file_path"]
    : typeof args["path"] === "string"
    ? args["path"]
    : undefined

const stats = (): ReadonlyMap<string, ReadonlyArray<GovernorEvent>> => {
  const out = new Map<string, ReadonlyArray<GovernorEvent>>()
  if (corpusDir === undefined) return out
  const parsed = JSON.parse(fs.readFileSync(path.join(corpusDir, "stats.json"), "utf8")) as {
    readonly conversations: Readonly<
      Record<string, ReadonlyArray<{ readonly id: string; readonly governorEvents?: ReadonlyArray<GovernorEvent> }>>
    >
  }
  for (const list of Object.values(parsed.conversations)) for (const c of list) out.set(c.id, c.governorEvents ?? [])
  return out
}

const events = stats()
const summary: Array<string> = []

// In order: the last test prints what the others measured.
describe.skipIf(corpusAbsent)(
  "governor on real transcripts (../shared/corpus/normalized)",
  { concurrent: false },
  () => {
    it("has the conversations and the labelled stale reads the corpus README describes", () => {
      assert.strictEqual(corpus.length, 37)
      const staleReads = [...events.values()].flat().filter((e) => e.pattern === "readEditRead")
      assert.strictEqual(staleReads.length, 45)
    })

    for (const conversation of corpus) {
      const messages = deepFreeze(conversation.messages) as unknown as ReadonlyArray<Message>
      it(`${conversation.source}/${conversation.id}: every eligible labelled stale read is elided; every elision follows the rules`, () => {
        const shadow = govern(messages, options({ mode: "shadow", epochMessages: 0 }))
        assert.strictEqual(shadow.messages, messages)
        const f = facts(messages)
        const byCall = new Map<string, Elision>(shadow.elisions.map((e) => [e.callId, e]))

        // 1. Every labelled readEditRead whose earlier read the rules make eligible is elided.
        let eligible = 0
        const skipped = { lastTurn: 0, young: 0, errors: 0 }
        for (const event of events.get(conversation.id) ?? []) {
          if (event.pattern !== "readEditRead" || event.previousCallId === undefined) continue
          const at = f.resultAt.get(event.previousCallId)
          const edit = f.resultAt.get(event.editCallId ?? "")
          assert.isDefined(at)
          assert.isDefined(edit)
          if (at === undefined || edit === undefined) continue
          if (at >= f.lastUser) skipped.lastTurn++
          else if (f.assistantsAfter(at) < 2) skipped.young++
          else if (f.isError(at) || f.isError(edit)) skipped.errors++
          else {
            eligible++
            assert.strictEqual(
              byCall.get(event.previousCallId)?.reason,
              "superseded_read",
              `${event.previousCallId} is elided`
            )
          }
        }

        // 2. Nothing outside the rules: each elision is explained, checked here without the package's code.
        for (const e of shadow.elisions) {
          const call = f.callAt.get(e.callId)
          const later = f.callAt.get(e.supersededBy)
          const laterAt = f.resultAt.get(e.supersededBy)
          assert.isDefined(call)
          assert.isDefined(later)
          assert.isDefined(laterAt)
          if (call === undefined || later === undefined || laterAt === undefined) continue
          assert.strictEqual(f.resultAt.get(e.callId), e.index)
          assert.isFalse(f.isError(e.index), "only successful results")
          assert.isFalse(f.isError(laterAt), "only a successful later result supersedes")
          assert.isAbove(laterAt, e.index, "the superseding result is later")
          assert.isBelow(e.index, f.lastUser, "never in the last turn")
          assert.isAtLeast(f.assistantsAfter(e.index), 2, "minAgeTurns")
          const original = messages[e.index]
          assert.isBelow(e.stub.length, typeof original?.content === "string" ? original.content.length : 0)
          switch (e.reason) {
            case "superseded_read":
              assert.strictEqual(call.name, "read_file")
              assert.oneOf(later.name, ["edit_file", "write_file"])
              assert.strictEqual(filePath(later.args), filePath(call.args))
              assert.strictEqual(
                e.stub.startsWith(`[elided: read_file ${JSON.stringify(filePath(call.args))}@unknown`),
                true
              )
              break
            case "stale_bg_output":
              assert.strictEqual(call.name, "background_output")
              assert.strictEqual(later.name, "background_output")
              assert.strictEqual(later.args["task_id"], call.args["task_id"])
              break
            case "duplicate_search":
              assert.strictEqual(call.name, "search")
              assert.strictEqual(later.name, "search")
              assert.isTrue(deepEqual(later.args, call.args))
              break
          }
        }

        // 3. L10 on a real transcript: on changes only the elided results' texts, to their stubs.
        const on = govern(messages, options({ mode: "on", epochMessages: 0 }))
        assert.deepStrictEqual(on.elisions, shadow.elisions)
        on.messages.forEach((m, i) => {
          const e = on.elisions.find((x) => x.index === i)
          if (e === undefined) return assert.strictEqual(m, messages[i])
          assert.deepStrictEqual(m, { ...messages[i], content: e.stub })
        })

        const saved = shadow.elisions.reduce((n, e) => n + e.tokensSaved, 0)
        const byEpoch = govern(messages, options({ mode: "shadow" })).event
        if (shadow.elisions.length > 0 || eligible > 0) {
          const counts = shadow.event?.elided
          summary.push(
            `${conversation.source}/${conversation.id}: ${messages.length} messages; elided ${shadow.elisions.length} ` +
              `(superseded_read ${counts?.superseded_read}, stale_bg_output ${counts?.stale_bg_output}, ` +
              `duplicate_search ${counts?.duplicate_search}); labelled stale reads ${eligible} eligible, all elided ` +
              `(left: ${skipped.lastTurn} in the last turn, ${skipped.young} too young, ${skipped.errors} errors); ` +
              `tokens ${shadow.event?.tokensBefore} → ${shadow.event?.tokensAfter} (saved ${saved}); ` +
              `with epochMessages 32: ${byEpoch?.elided.total} elided, saved ${
                (byEpoch?.tokensBefore ?? 0) - (byEpoch?.tokensAfter ?? 0)
              }`
          )
        }
      })
    }

    it("between epochs, each request of a growing real session is a prefix of the next (epochMessages 32)", () => {
      const sessions = corpus.filter((c) => c.messages.length >= 290)
      assert.strictEqual(sessions.length, 5)
      let elided = 0
      for (const session of sessions) {
        const messages = session.messages as unknown as ReadonlyArray<Message>
        let previous: ReadonlyArray<Message> = []
        for (let n = 1; n <= messages.length; n++) {
          const current = govern(messages.slice(0, n), options({ mode: "on" }))
          if (Math.floor((n - 1) / 32) === Math.floor(n / 32)) {
            previous.forEach((m, i) =>
              assert.strictEqual(m === current.messages[i] || deepEqual(m, current.messages[i]), true)
            )
          }
          elided = Math.max(elided, current.elisions.length)
          previous = current.messages
        }
      }
      assert.isAbove(elided, 0)
    })

    it("prints the savings per session", () => {
      // Runs last in its file (tests of one file run in order); prints what the sessions above measured.
      console.log(`\ngovernor on the corpus (shadow, epochMessages 0 unless said):\n${summary.join("\n")}\n`)
      assert.isAbove(summary.length, 0)
    })
  }
)
