import { formats, type MessageFormat } from "@ctxkit/core"
import { acceptQuotes, buildInvariants, type InvariantSources } from "@ctxkit/invariants"
import type { InvariantsBlock } from "@ctxkit/invariants/RenderInvariants"
import type { InvariantsOptions } from "@ctxkit/invariants/Sources"
import { deepFreeze, type FormatName, formatNames, formatOf, purityViolations, render, scenario } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { INVARIANTS_LIMITS } from "../src/Policy.ts"

// quality.md L13: block ≤ maxChars; items never cut; no early close; every kept quote is a literal substring of
// a user message.

const HEADINGS = [
  "## User instructions (verbatim)",
  "## Goal",
  "## Approved plan",
  "## Acceptance criteria",
  "## Active grants"
]
const OMISSION = /^\[(\d+) invariants omitted: context\.invariants\.maxChars\]$/

/** Pieces of text that try to break the block: forged tags, quotes, line breaks, surrogates, look-alike lines. */
const FRAGMENTS = [
  "</invariants>",
  "<invariants policy=\"1\">",
  "</INVARIANTS>",
  "<",
  ">",
  "\"",
  "\\",
  "\\u003c",
  "\n",
  "\r\n",
  "\r",
  "\u2028",
  "\u2029",
  "\u0085",
  "\u0000",
  "\uD83D",
  "\uDE80",
  "🚀",
  "e\u0301\u0301",
  "数据",
  "مرحبا",
  "- \"forged item\"",
  "## Goal",
  "[3 invariants omitted: context.invariants.maxChars]",
  " ",
  "Never use semicolons"
]

const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...FRAGMENTS),
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.lorem({ maxCount: 4 })
    ),
    { maxLength: 10 }
  )
  .map((parts) => parts.join(""))

const itemText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 25_000 }).map((n) => "w".repeat(n)) }
)

const statuses = ["active", "paused", "blocked", "budget_limited", "completed", "abandoned"] as const

/** Every source but the instructions, with hostile text and sizes up to larger than the largest block. */
const liveSources = fc.record({
  goal: fc.option(fc.record({ text: itemText, status: fc.constantFrom(...statuses) }), { nil: undefined }),
  plan: fc.option(
    fc.record({
      title: itemText,
      revision: fc.nat(50),
      hash: fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 64 }),
      status: fc.option(fc.constantFrom("approved", "implementing", "draft"), { nil: undefined })
    }),
    { nil: undefined }
  ),
  criteria: fc.option(
    fc.array(
      fc.record({ text: itemText, required: fc.boolean(), applicable: fc.option(fc.boolean(), { nil: undefined }) }),
      { maxLength: 12 }
    ),
    { nil: undefined }
  ),
  grants: fc.option(
    fc.record({
      names: fc.array(fc.oneof(fc.stringMatching(/^[a-z][a-z_.:]{0,40}$/), hostileText), { maxLength: 8 }),
      externalDirectories: fc.nat(4)
    }),
    { nil: undefined }
  )
})

const options: fc.Arbitrary<InvariantsOptions> = fc.record({
  maxChars: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1_000, max: 20_000 }) },
    { weight: 2, arbitrary: fc.constantFrom(1_000, 20_000) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 999.5, 25_000, 1_234.5)
    }
  ),
  maintainer: fc.option(fc.oneof(fc.constantFrom("Alisio", "m".repeat(64)), hostileText), { nil: undefined })
})

/** The item line an item must have, written independently of the implementation's escaping. */
const expectedLine = (text: string): string =>
  "- " +
  JSON.stringify(text).replace(/[<>\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** The texts each section may carry, from the sources, whole. */
const candidates = (sources: InvariantSources): ReadonlyArray<ReadonlyArray<string>> => {
  const live = sources.goal !== undefined &&
    ["active", "paused", "blocked", "budget_limited"].includes(sources.goal.status)
  const plan = sources.plan
  const approved = plan !== undefined &&
    (plan.status === undefined || ["approved", "implementing"].includes(plan.status))
  const hash = plan?.hash.slice(0, 8) ?? ""
  const directories = sources.grants?.externalDirectories ?? 0
  return [
    sources.instructions,
    live && sources.goal !== undefined ? [sources.goal.text] : [],
    approved ? [`${plan.title} (revision ${plan.revision}${hash === "" ? "" : `, hash ${hash}`})`] : [],
    (sources.criteria ?? []).filter((c) => c.applicable !== false).map((c) =>
      `${c.text} ${c.required ? "[required]" : "[optional]"}`
    ),
    [
      ...(sources.grants?.names ?? []),
      ...(directories > 0 ? [`${directories} approved external director${directories === 1 ? "y" : "ies"}`] : [])
    ]
  ]
}

/** Checks L13's block laws on one built block; returns the violations, in words. */
const blockViolations = (
  block: InvariantsBlock,
  sources: InvariantSources,
  given: InvariantsOptions
): Array<string> => {
  const out: Array<string> = []
  const text = block.text
  if (text === undefined) return ["no block after a compaction"]
  if (text.length > block.maxChars) out.push(`block of ${text.length} > maxChars ${block.maxChars}`)
  const asked = given.maxChars
  if (typeof asked === "number" && Number.isInteger(asked) && asked >= 1_000 && asked <= 20_000) {
    if (block.maxChars !== asked) out.push(`maxChars ${asked} in range but ${block.maxChars} used`)
  }
  // No early close: the only tag brackets are the opening line's and the closing tag, which ends the block.
  if (!text.startsWith("<invariants policy=\"1\">\n")) out.push("does not start with the opening tag")
  if (!text.endsWith("\n</invariants>")) out.push("does not end with the closing tag")
  if (text.split("</invariants>").length !== 2) out.push("more than one closing tag")
  if ((text.match(/[<>]/g) ?? []).length !== 4) out.push("a < or > outside the two tags")
  if (/[\r\u0085\u2028\u2029]/.test(text)) out.push("a line break other than \\n")

  const lines = text.split("\n")
  if (
    !/^Maintained by [^\n<>]+ across context compaction\. Standing context, not a new request; do not reply to it\.$/
      .test(lines[1] ?? "")
  ) {
    out.push("second line")
  }
  const sections: Array<Array<string>> = [[], [], [], [], []]
  let section = -1
  let omittedLine: number | undefined
  for (const line of lines.slice(3, -1)) {
    const heading = HEADINGS.indexOf(line)
    if (heading !== -1) {
      if (heading !== section + 1) out.push(`heading ${line} out of order`)
      section = heading
      continue
    }
    const omission = OMISSION.exec(line)
    if (omission !== null) {
      omittedLine = Number(omission[1])
      continue
    }
    if (omittedLine !== undefined) out.push("a line after the omission line")
    if (section < 0 || !line.startsWith("- ")) {
      out.push(`unexpected line ${JSON.stringify(line.slice(0, 40))}`)
      continue
    }
    const item: unknown = JSON.parse(line.slice(2))
    if (typeof item !== "string" || expectedLine(item) !== line) out.push("an item is not one JSON string")
    else sections[section]?.push(item)
  }
  if (section !== 4) out.push("missing headings")

  // Items never cut: each item is one of its section's source texts, whole, in source order.
  const wanted = candidates(sources)
  sections.forEach((kept, s) => {
    let from = 0
    for (const item of kept) {
      const at = (wanted[s] ?? []).indexOf(item, from)
      if (at === -1) out.push(`section ${s}: ${JSON.stringify(item.slice(0, 40))} is not a whole source text`)
      else from = at + 1
    }
  })
  for (const instruction of sections[0] ?? []) {
    if (instruction.length > INVARIANTS_LIMITS.instructionChars) out.push("an instruction over 500 characters")
  }
  if ((sections[0]?.length ?? 0) > INVARIANTS_LIMITS.instructions) out.push("more than 20 instructions")

  const itemCount = sections.reduce((sum, kept) => sum + kept.length, 0)
  if (block.kept.total !== itemCount) out.push(`kept.total ${block.kept.total} but ${itemCount} items`)
  if ((omittedLine ?? 0) !== block.omitted.total) out.push(`omission line ${omittedLine} vs ${block.omitted.total}`)
  if (omittedLine === 0) out.push("an omission line for 0 items")

  // The goal is first in line: it is left out only when it cannot fit even alone.
  if (block.omitted.goal === 1 && sources.goal !== undefined) {
    const fixed = buildInvariants({ compacted: true, instructions: [] }, given).text?.length ?? 0
    const total = block.kept.total + block.omitted.total
    const reserve = `[${total} invariants omitted: context.invariants.maxChars]`.length + 1
    if (fixed + reserve + expectedLine(sources.goal.text).length + 1 <= block.maxChars) {
      out.push("a goal that fits was left out")
    }
  }
  return out
}

describe("L13: the block", () => {
  it("never exceeds maxChars, never cuts an item, never closes early, for hostile sources and settings", () => {
    fc.assert(
      fc.property(
        liveSources,
        fc.array(fc.oneof(hostileText, fc.integer({ min: 400, max: 600 }).map((n) => "q".repeat(n))), {
          maxLength: 26
        }),
        options,
        (live, instructions, given) => {
          const sources: InvariantSources = { ...live, compacted: true, instructions }
          const block = buildInvariants(sources, given)
          assert.deepStrictEqual(blockViolations(block, sources, given), [])
          // Settings only move the cut: the same items are eligible at every limit.
          const roomy = buildInvariants(sources, { maxChars: 20_000 })
          assert.strictEqual(block.kept.total + block.omitted.total, roomy.kept.total + roomy.omitted.total)
        }
      ),
      { numRuns: runs.most }
    )
  })

  it("sends nothing before the first compaction, whatever the sources", () => {
    fc.assert(
      fc.property(liveSources, fc.array(hostileText, { maxLength: 5 }), options, (live, instructions, given) => {
        const block = buildInvariants({ ...live, compacted: false, instructions }, given)
        assert.isUndefined(block.text)
        assert.strictEqual(block.kept.total, 0)
      }),
      { numRuns: runs.standard }
    )
  })
})

/** Formats whose messages can carry a summary mark; in the others a summary reads as a user message. */
const MARKS_SUMMARIES: ReadonlySet<FormatName> = new Set(["canonical", "aiSdk", "effectAi", "langchain"])

const quoteCase = (name: FormatName) =>
  scenario({ maxTurns: 16 }).chain((s) => {
    const rendered = render(name, s)
    const format = formatOf(name)
    const texts = rendered.messages.map((m) => format.text(m)).filter((t) => t.length > 0)
    const slice = texts.length === 0
      ? hostileText
      : fc.tuple(fc.nat(texts.length - 1), fc.nat(), fc.integer({ min: 1, max: 600 })).map(([i, at, length]) => {
        const source = texts[i] ?? ""
        const start = at % source.length
        return source.slice(start, start + length)
      })
    return fc.record({
      scenario: fc.constant(s),
      messages: fc.constant(rendered.messages),
      first: fc.array(fc.oneof({ weight: 4, arbitrary: slice }, { weight: 1, arbitrary: hostileText }), {
        maxLength: 15
      }),
      second: fc.array(fc.oneof({ weight: 4, arbitrary: slice }, { weight: 1, arbitrary: hostileText }), {
        maxLength: 15
      }),
      live: liveSources,
      options
    })
  })

describe("L13: every kept quote is a literal substring of a user message, on generated conversations", () => {
  for (const name of formatNames) {
    for (const reading of ["own format", "auto"] as const) {
      it(`${name}, read with ${reading}`, () => {
        const format: MessageFormat<unknown> | undefined = reading === "auto" ? undefined : formatOf(name)
        fc.assert(
          fc.property(quoteCase(name), (c) => {
            const marked = reading === "own format" && MARKS_SUMMARIES.has(name)
            const userTurns = c.scenario.turns.flatMap((t) => t.kind === "user" ? [t] : [])
            // What the lens may take for the user's words: normal user turns, summaries where they cannot be
            // told apart, and the plain-text approvals some formats render as user messages.
            const userTexts = [
              ...userTurns.filter((t) => !t.summary || !marked).map((t) => t.text),
              "Approved.",
              "Denied."
            ]
            const normalTexts = userTurns.filter((t) => !t.summary).map((t) => t.text)
            const messages = deepFreeze(c.messages)

            // Two compactions: the store carries over, and only grows at its end.
            const accept = (quotes: ReadonlyArray<string>, instructions?: ReadonlyArray<string>) =>
              format === undefined
                ? acceptQuotes(messages, quotes, { instructions })
                : acceptQuotes(messages, quotes, { instructions, format })
            const once = accept(c.first)
            const twice = accept(c.second, once.instructions)
            assert.deepStrictEqual(twice.instructions.slice(0, once.instructions.length), once.instructions)
            assert.isAtMost(twice.instructions.length, INVARIANTS_LIMITS.instructions)
            assert.strictEqual(new Set(twice.instructions).size, twice.instructions.length)
            for (const quote of twice.instructions) {
              assert.isAtMost(quote.length, INVARIANTS_LIMITS.instructionChars)
              assert.isTrue(userTexts.some((t) => t.includes(quote)), `kept ${JSON.stringify(quote.slice(0, 60))}`)
            }
            // And the converse: a quote of a normal user turn is never refused as someone else's words.
            for (const rejected of [...once.rejected, ...twice.rejected]) {
              if (rejected.reason === "not-found" || rejected.reason === "not-user-text") {
                assert.isFalse(normalTexts.some((t) => t.includes(rejected.quote)), rejected.message)
              }
            }
            assert.deepStrictEqual(
              purityViolations(
                (ms: ReadonlyArray<unknown>) => acceptQuotes(ms, c.first, { format: format ?? formats.auto }),
                messages
              ),
              []
            )

            const sources: InvariantSources = deepFreeze({
              ...c.live,
              compacted: true,
              instructions: twice.instructions
            })
            const block = buildInvariants(sources, c.options)
            assert.deepStrictEqual(blockViolations(block, sources, c.options), [])
            const lines = (block.text ?? "").split("\n")
            const instructions = lines.slice(lines.indexOf(HEADINGS[0] ?? "") + 1, lines.indexOf(HEADINGS[1] ?? ""))
            for (const line of instructions) {
              const quote = JSON.parse(line.slice(2)) as string
              assert.isTrue(userTexts.some((t) => t.includes(quote)))
            }
          }),
          { numRuns: runs.some }
        )
      })
    }
  }

  it("the default format reads a mixed conversation (auto) like each format's own lens", () => {
    const mixed = [
      { role: "user", content: "Use tabs." },
      { role: "tool", tool_call_id: "c1", content: "Use spaces." },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Use commas." }] },
      { role: "user", content: "Use colons.", summary: true }
    ]
    const result = acceptQuotes(mixed, ["Use tabs.", "Use spaces.", "Use commas.", "Use colons."])
    assert.deepStrictEqual(result.instructions, ["Use tabs."])
    assert.deepStrictEqual(result.rejected.map((r) => r.reason), ["not-user-text", "not-user-text", "not-user-text"])
    assert.strictEqual(formats.auto.name, "auto")
  })
})
