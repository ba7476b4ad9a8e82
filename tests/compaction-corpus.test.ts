/**
 * Compaction planning and the post-compaction tail reduction on the real corpus (`../shared/corpus/normalized/`):
 * - every conversation planned with keepTurns 0, 1, 2 and 5: L11 holds (the parts are pair-closed; the corpus has
 *   no open call, so "no plan" only ever means too little to summarize);
 * - every conversation, and every prefix of it (each point where a compaction could be asked for), planned with
 *   keepTurns 0 to 6: a larger keepTurns never keeps fewer messages (L11's last clause);
 * - every conversation reduced to 50%, 25% and 10% of its serialized size and to 4,000 characters: L12 holds, and
 *   the target is met exactly when it is reachable (when clipping everything to the smallest caps meets it);
 * - the real Claude Code compactions (`meta.compactions`): the history before each one planned with keepTurns 2
 *   and compared with what Claude Code did — it summarized everything (its kept tail is the summary alone).
 */
import { planCompaction, reduceToBudget } from "@ctxkit/compaction"
import { transcriptChars } from "@ctxkit/compaction/ReduceToBudget"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { deepFreeze, keepTurnsViolations, planViolations, reductionViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { corpusAbsent, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()

const metaOf = (m: Message): Readonly<Record<string, unknown>> | undefined =>
  (m as { readonly meta?: Readonly<Record<string, unknown>> }).meta

/** The canonical lens, with Claude Code's compaction summaries (`meta.kind = "compact_summary"`) as checkpoints. */
const corpusFormat: MessageFormat<Message> = {
  ...formats.canonical,
  isSummary: (m) => formats.canonical.isSummary(m) || metaOf(m)?.["kind"] === "compact_summary"
}

interface Compaction {
  readonly atMessageIndex: number
  readonly trigger: string
  readonly preTokens: number
}

const compactionsOf = (meta: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<Compaction> => {
  const list = meta?.["compactions"]
  return Array.isArray(list) ? list as ReadonlyArray<Compaction> : []
}

/**
 * Our keepTurns-2 plan of the history before each real compaction, measured when this test was written: the cut,
 * the kept messages and their serialized characters, out of the whole history's. Claude Code kept none of it.
 */
const measured: Readonly<
  Record<string, {
    readonly cut: number
    readonly kept: number
    readonly keptChars: number
    readonly wholeChars: number
    readonly midTurn: boolean
  }>
> = {
  "258c7280-ae70-4798-800f-63464d01a85d": {
    cut: 77,
    kept: 152,
    keptChars: 160_549,
    wholeChars: 406_506,
    midTurn: false
  },
  "4d5611e5-241a-462a-8d15-5122611a9569": {
    cut: 41,
    kept: 91,
    keptChars: 263_514,
    wholeChars: 432_744,
    midTurn: false
  },
  "8463c716-a2ea-4c14-9efa-87158ebd9f20": { cut: 156, kept: 4, keptChars: 6_804, wholeChars: 336_411, midTurn: true },
  "ae4a77f8-aedd-4bc1-888f-c94edc91af04": {
    cut: 18,
    kept: 270,
    keptChars: 256_818,
    wholeChars: 279_510,
    midTurn: false
  },
  "fa812bfe-b295-4cca-9c2f-fdf01028cb46": {
    cut: 106,
    kept: 182,
    keptChars: 255_926,
    wholeChars: 408_693,
    midTurn: false
  }
}

describe.skipIf(corpusAbsent)("compaction planning on real transcripts (../shared/corpus/normalized)", () => {
  for (const conversation of corpus) {
    it(`${conversation.source}/${conversation.id}: L11 at keepTurns 0, 1, 2 and 5`, () => {
      const messages = deepFreeze(conversation.messages as ReadonlyArray<Message>)
      for (const keepTurns of [0, 1, 2, 5]) {
        const plan = planCompaction(messages, { format: corpusFormat, keepTurns })
        assert.deepStrictEqual(planViolations(messages, plan, corpusFormat), [], `keepTurns ${keepTurns}`)
        if (plan._tag === "NoPlan") {
          // No call is open anywhere in the corpus: only too little to summarize stops a plan.
          assert.strictEqual(plan.reason, "nothing-to-summarize", `keepTurns ${keepTurns}: ${plan.detail}`)
          assert.isAtMost(messages.length, 6)
        } else if (keepTurns === 0) {
          assert.strictEqual(plan.cut, messages.length)
        }
      }
    })
  }
})

describe.skipIf(corpusAbsent)(
  "a larger keepTurns never keeps fewer messages, on every prefix of every real transcript",
  () => {
    for (const conversation of corpus) {
      it(`${conversation.source}/${conversation.id}: keepTurns 0 to 6 on ${conversation.messages.length} prefixes`, () => {
        const messages = deepFreeze(conversation.messages as ReadonlyArray<Message>)
        for (let end = 1; end <= messages.length; end++) {
          const history = messages.slice(0, end)
          const violations = keepTurnsViolations(
            history,
            (keepTurns) => planCompaction(history, { format: corpusFormat, keepTurns })
          )
          assert.deepStrictEqual(violations, [], `the first ${end} messages`)
        }
      })
    }
  }
)

describe.skipIf(corpusAbsent)("the real Claude Code compactions, planned with keepTurns 2", () => {
  const points = corpus.flatMap((conversation) =>
    compactionsOf(conversation.meta).map((compaction) => ({ conversation, compaction }))
  )

  it("the corpus has the five recorded compactions", () => {
    assert.strictEqual(points.length, 5)
    assert.deepStrictEqual(points.map((p) => p.conversation.id).sort(), Object.keys(measured).sort())
  })

  for (const { compaction, conversation } of points) {
    it(`${conversation.id} at message ${compaction.atMessageIndex} (${compaction.trigger})`, () => {
      const all = conversation.messages as ReadonlyArray<Message>
      // Claude Code replaced everything before this point by one summary: its kept tail is that summary alone.
      const summary = all[compaction.atMessageIndex]
      assert.isTrue(summary !== undefined && corpusFormat.isSummary(summary))
      const history = deepFreeze(all.slice(0, compaction.atMessageIndex))
      const plan = planCompaction(history, { format: corpusFormat, keepTurns: 2 })
      assert.strictEqual(plan._tag, "CompactionPlan", plan._tag === "NoPlan" ? plan.detail : "")
      if (plan._tag !== "CompactionPlan") return
      // Our cut is pair-closed at the point where Claude Code cut everything.
      assert.deepStrictEqual(planViolations(history, plan, corpusFormat), [])
      const wholeChars = transcriptChars(history)
      const keptChars = transcriptChars(plan.kept)
      // We keep the last two turns verbatim (or, in a single long turn, at least 4 messages): a smaller part of
      // the history than the whole, but more than Claude Code's nothing.
      assert.isAbove(plan.kept.length, 0)
      assert.isBelow(keptChars, wholeChars)
      assert.isAtLeast(plan.cut - plan.retained.length, 2)
      assert.deepStrictEqual(
        { cut: plan.cut, kept: plan.kept.length, keptChars, wholeChars, midTurn: plan.midTurn },
        measured[conversation.id]
      )
      // The kept tail of these sessions is within the default 800,000-character hard limit as it is.
      assert.strictEqual(reduceToBudget(plan.kept, 800_000, { format: corpusFormat }).messages, plan.kept)
    })
  }
})

describe.skipIf(corpusAbsent)(
  "tail reduction on real transcripts at 50%, 25% and 10% of their size, and at 4,000 characters",
  () => {
    for (const conversation of corpus) {
      it(`${conversation.source}/${conversation.id}: L12, within target exactly when reachable`, () => {
        const messages = deepFreeze(conversation.messages as ReadonlyArray<Message>)
        const size = transcriptChars(messages)
        assert.strictEqual(size, JSON.stringify(messages).length)
        // Everything clipped to the smallest caps: the least any reduction can reach.
        const floor = reduceToBudget(messages, 0, { format: corpusFormat })
        assert.deepStrictEqual(reductionViolations(messages, floor, 0, corpusFormat), [])
        for (const target of [Math.floor(size * 0.5), Math.floor(size * 0.25), Math.floor(size * 0.1), 4_000]) {
          const reduced = reduceToBudget(messages, target, { format: corpusFormat })
          assert.deepStrictEqual(reductionViolations(messages, reduced, target, corpusFormat), [], `target ${target}`)
          assert.strictEqual(reduced.withinTarget, floor.chars <= target, `target ${target}, floor ${floor.chars}`)
          assert.isAtMost(reduced.truncated, floor.truncated)
        }
      })
    }
  }
)
