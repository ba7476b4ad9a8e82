/**
 * The governor's last turn is core's reading of turns (`turnStart` with `GOVERNOR_TURNS`: neither a checkpoint
 * nor the invariants block starts a turn), whether the analysis is made from scratch or extended, and whatever
 * limit it is read below (the whole history, or the epoch window).
 */
import { formats, type Message } from "@ctxkit/core"
import { turnStart } from "@ctxkit/core/CurrentRequest"
import { checkpointHeader } from "@ctxkit/core/InsertedText"
import { seedToolKinds } from "@ctxkit/governor"
import { conversation } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { analyze, GOVERNOR_TURNS } from "../src/internal/analysis.ts"

const canonical = formats.canonical
const inserted = fc.constantFrom<Message>(
  { role: "user", content: "<invariants policy=\"1\">\n- Never push to main.\n</invariants>" },
  { role: "user", content: `${checkpointHeader(5)}\n\n## Goal\nfix the build` }
)

/** A generated conversation with checkpoints and invariants blocks put in at random places. */
const history = fc.tuple(
  conversation("canonical", { maxTurns: 8 }),
  fc.array(fc.tuple(fc.nat(), inserted), { maxLength: 4 })
).map(([rendered, inserts]) => {
  const messages = [...(rendered.messages as ReadonlyArray<Message>)]
  for (const [at, message] of inserts) messages.splice(at % (messages.length + 1), 0, message)
  return messages
})

const settings = (epochMessages: number) => ({
  format: canonical,
  toolKinds: seedToolKinds,
  hashReads: false,
  minAgeTurns: 1,
  epochMessages
})

describe("the governor's last turn is core's turnStart under GOVERNOR_TURNS", () => {
  it("property: from scratch and extended, lastTurnStart = max(0, turnStart(history, GOVERNOR_TURNS))", () => {
    fc.assert(
      fc.property(history, fc.nat(), (messages, cut) => {
        const expected = Math.max(0, turnStart(messages, canonical, GOVERNOR_TURNS))
        assert.strictEqual(analyze(messages, settings(0)).analysis.lastTurnStart, expected)
        // Extended from the analysis of a prefix: the same answer.
        const prefix = messages.slice(0, cut % (messages.length + 1))
        const previous = analyze(prefix, settings(0))
        assert.strictEqual(
          previous.analysis.lastTurnStart,
          Math.max(0, turnStart(prefix, canonical, GOVERNOR_TURNS))
        )
        assert.strictEqual(analyze(messages, settings(0), previous).analysis.lastTurnStart, expected)
      }),
      { numRuns: runs.some }
    )
  })

  it("the invariants block and a checkpoint after the request leave the request the last turn", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "user", content: "fix the build" },
      { role: "assistant", content: "Fixed." },
      { role: "user", content: "now run the tests" },
      { role: "assistant", content: "Green." },
      { role: "user", content: `${checkpointHeader(4)}\n\n## Goal\nrun the tests` },
      { role: "user", content: "<invariants policy=\"1\">\n- Use tabs.\n</invariants>" }
    ]
    assert.strictEqual(analyze(messages, settings(0)).analysis.lastTurnStart, 2)
  })
})
