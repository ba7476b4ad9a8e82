import { Checkpoint, parseCheckpoint, renderCheckpoint, summaryMessage } from "@ctxkit/compaction"
import { formats, type Message, type MessageFormat } from "@ctxkit/core"
import { checkpointHeader } from "@ctxkit/core/InsertedText"
import { deepFreeze, formatNames, formatOf } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"
import { CHECKPOINT_SECTIONS } from "../src/Checkpoint.ts"
import { INJECT_CONTEXT_MAX_CHARS } from "../src/SummaryMessage.ts"

const full: Checkpoint = {
  goal: "Make `npm run build` pass on main",
  instructions: ["Do not touch package.json", "Use pnpm, never npm install"],
  discoveries: ["TS2304 comes from src/legacy.ts:12"],
  accomplished: ["Removed the dead import in src/a.ts"],
  currentState: "Build fails only in src/legacy.ts",
  nextSteps: ["Delete src/legacy.ts", "Run pnpm test"],
  relevantFiles: ["src/legacy.ts", "src/a.ts"]
}

const FULL_RENDERED = `## Goal
Make \`npm run build\` pass on main

## User instructions/constraints
- Do not touch package.json
- Use pnpm, never npm install

## Discoveries
- TS2304 comes from src/legacy.ts:12

## Accomplished
- Removed the dead import in src/a.ts

## Current state
Build fails only in src/legacy.ts

## Next steps
- Delete src/legacy.ts
- Run pnpm test

## Relevant files
- src/legacy.ts
- src/a.ts`

const MINIMAL_RENDERED = `## Goal
Fix it

## User instructions/constraints
- (none)

## Discoveries
- (none)

## Accomplished
- (none)

## Current state
(none)

## Next steps
- (none)

## Relevant files
- (none)`

const textOnly = (raw: string) => ({ structured: false, extracted: {}, text: raw.trim() })

describe("renderCheckpoint", () => {
  it("renders the seven sections in order, exactly", () => {
    assert.strictEqual(renderCheckpoint(full), FULL_RENDERED)
  })

  it("renders empty lists as - (none) and an empty text as (none)", () => {
    assert.strictEqual(
      renderCheckpoint({
        goal: "Fix it",
        instructions: [],
        discoveries: [],
        accomplished: [],
        currentState: "",
        nextSteps: [],
        relevantFiles: []
      }),
      MINIMAL_RENDERED
    )
  })

  it("lists the sections with their titles", () => {
    assert.deepStrictEqual(CHECKPOINT_SECTIONS, [
      ["goal", "Goal"],
      ["instructions", "User instructions/constraints"],
      ["discoveries", "Discoveries"],
      ["accomplished", "Accomplished"],
      ["currentState", "Current state"],
      ["nextSteps", "Next steps"],
      ["relevantFiles", "Relevant files"]
    ])
  })
})

describe("parseCheckpoint", () => {
  it("reads a fenced ```json block", () => {
    const raw = "Here is the checkpoint:\n\n```json\n" + JSON.stringify({ checkpoint: full }, null, 2) + "\n```\nDone."
    assert.deepStrictEqual(parseCheckpoint(raw), {
      structured: true,
      checkpoint: full,
      extracted: {},
      text: FULL_RENDERED
    })
  })

  it("reads a bare ``` block", () => {
    const raw = "```\n{\"checkpoint\":{\"goal\":\"Fix it\"}}\n```"
    assert.strictEqual(parseCheckpoint(raw).text, MINIMAL_RENDERED)
  })

  it("reads bare JSON inside prose, from the first { to the last }", () => {
    const raw = "Sure! {\"checkpoint\": {\"goal\": \"Fix it\"}} Let me know {if} you need more."
    assert.strictEqual(parseCheckpoint(raw).structured, false)
    const clean = "Sure! {\"checkpoint\": {\"goal\": \"Fix it\"}} Let me know if you need more."
    assert.deepStrictEqual(parseCheckpoint(clean), {
      structured: true,
      checkpoint: {
        goal: "Fix it",
        instructions: [],
        discoveries: [],
        accomplished: [],
        currentState: "",
        nextSteps: [],
        relevantFiles: []
      },
      extracted: {},
      text: MINIMAL_RENDERED
    })
  })

  it("tries the { … } span when the first fenced block is not the checkpoint", () => {
    const raw = "The command was:\n```bash\nnpm run build\n```\n{\"checkpoint\":{\"goal\":\"Fix it\"}}"
    assert.strictEqual(parseCheckpoint(raw).text, MINIMAL_RENDERED)
  })

  it("trims every text and fills missing optional fields with their defaults", () => {
    const parsed = parseCheckpoint(
      JSON.stringify({ checkpoint: { goal: "  Fix it \n", nextSteps: ["  run tests  "], currentState: " red " } })
    )
    assert.deepStrictEqual(parsed.checkpoint, {
      goal: "Fix it",
      instructions: [],
      discoveries: [],
      accomplished: [],
      currentState: "red",
      nextSteps: ["run tests"],
      relevantFiles: []
    })
  })

  it("falls back to the trimmed raw text on every schema violation", () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => `item ${i}`)
    const invalid: ReadonlyArray<unknown> = [
      { checkpoint: { goal: "" } },
      { checkpoint: { goal: "   " } },
      { checkpoint: {} },
      { checkpoint: { goal: "x".repeat(4_001) } },
      { checkpoint: { goal: "Fix it", nextSteps: items(41) } },
      { checkpoint: { goal: "Fix it", relevantFiles: ["y".repeat(4_001)] } },
      { checkpoint: { goal: "Fix it", currentState: "z".repeat(4_001) } },
      { checkpoint: { goal: "Fix it", currentState: null } },
      { checkpoint: { goal: "Fix it", discoveries: "one" } },
      { checkpoint: { goal: "Fix it", accomplished: [1, 2] } },
      { checkpoint: { goal: 42 } },
      { goal: "Fix it" },
      { checkpoint: null },
      [{ goal: "Fix it" }]
    ]
    for (const value of invalid) {
      const raw = `  ${JSON.stringify(value)}\n`
      assert.deepStrictEqual(parseCheckpoint(raw), textOnly(raw), JSON.stringify(value).slice(0, 80))
    }
  })

  it("accepts the limits themselves: 40 items, 4,000 characters after trimming", () => {
    const parsed = parseCheckpoint(JSON.stringify({
      checkpoint: {
        goal: ` ${"g".repeat(4_000)} `,
        nextSteps: Array.from({ length: 40 }, () => "s".repeat(4_000)),
        currentState: "c".repeat(4_000)
      }
    }))
    assert.isTrue(parsed.structured)
    assert.strictEqual(parsed.checkpoint?.goal.length, 4_000)
    assert.strictEqual(parsed.checkpoint?.nextSteps.length, 40)
  })

  it("falls back on invalid JSON, no JSON, and an unclosed (cut) reply", () => {
    for (
      const raw of [
        "  We fixed the build and the next step is the tests.  ",
        "{\"checkpoint\": {\"goal\": \"Fix it\",}}",
        "```json\n{\"checkpoint\": {\"goal\": \"Fix it\"",
        "{\"checkpoint\": {\"goal\": \"Fix it\", \"nextSteps\": [\"a\"",
        "} {",
        "",
        "   "
      ]
    ) {
      assert.deepStrictEqual(parseCheckpoint(raw), textOnly(raw), raw)
    }
  })

  it("extracts only the requested extra fields present at the top level", () => {
    const raw = JSON.stringify({
      checkpoint: { goal: "Fix it" },
      memory: ["uses pnpm"],
      report: { saved: 3 },
      unrequested: true
    })
    assert.deepStrictEqual(parseCheckpoint(raw).extracted, {})
    assert.deepStrictEqual(parseCheckpoint(raw, ["memory", "report", "missing", "checkpoint"]).extracted, {
      memory: ["uses pnpm"],
      report: { saved: 3 }
    })
    // Extra fields come only with a structured checkpoint.
    assert.deepStrictEqual(parseCheckpoint("{\"memory\":[1]}", ["memory"]).extracted, {})
  })

  it("a requested __proto__ field is an own property, not the prototype", () => {
    const parsed = parseCheckpoint("{\"checkpoint\":{\"goal\":\"x\"},\"__proto__\":{\"polluted\":true}}", ["__proto__"])
    assert.isTrue(Object.hasOwn(parsed.extracted, "__proto__"))
    assert.strictEqual(Object.getPrototypeOf(parsed.extracted), Object.prototype)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("survives deeply nested JSON", () => {
    const raw = "{\"checkpoint\":" + "[".repeat(200_000) + "]".repeat(200_000) + "}"
    assert.isFalse(parseCheckpoint(raw).structured)
  })
})

describe("parseCheckpoint: properties", () => {
  it("is total on any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), (raw, f) => {
        const parsed = parseCheckpoint(raw, f)
        if (!parsed.structured) assert.deepStrictEqual(parsed, textOnly(raw))
      }),
      { numRuns: runs.most }
    )
  })

  it("is total on any JSON value, bare or fenced", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, fenced) => {
        const json = JSON.stringify(value)
        const raw = fenced ? "```json\n" + json + "\n```" : json
        const parsed = parseCheckpoint(raw, ["checkpoint", "a"])
        assert.isString(parsed.text)
        if (!parsed.structured) assert.deepStrictEqual(parsed, textOnly(raw))
      }),
      { numRuns: runs.most }
    )
  })

  const item = fc.string({ unit: "grapheme", maxLength: 30 })
  const list = fc.array(item, { maxLength: 40 })
  const validCheckpoint = fc.record({
    goal: item.filter((goal) => goal.trim().length > 0),
    instructions: list,
    discoveries: list,
    accomplished: list,
    currentState: item,
    nextSteps: list,
    relevantFiles: list
  }, { requiredKeys: ["goal"] })

  const trimmed = (c: Partial<Checkpoint> & { readonly goal: string }): Checkpoint => ({
    goal: c.goal.trim(),
    instructions: (c.instructions ?? []).map((s) => s.trim()),
    discoveries: (c.discoveries ?? []).map((s) => s.trim()),
    accomplished: (c.accomplished ?? []).map((s) => s.trim()),
    currentState: (c.currentState ?? "").trim(),
    nextSteps: (c.nextSteps ?? []).map((s) => s.trim()),
    relevantFiles: (c.relevantFiles ?? []).map((s) => s.trim())
  })

  it("parse(JSON of a valid checkpoint) gives the trimmed checkpoint, and its rendering", () => {
    fc.assert(
      fc.property(validCheckpoint, fc.constantFrom("", "Checkpoint:\n", "```json\n"), (checkpoint, prefix) => {
        const json = JSON.stringify({ checkpoint, extra: 1 })
        const raw = prefix === "```json\n" ? `${prefix}${json}\n\`\`\`` : `${prefix}${json}`
        const parsed = parseCheckpoint(raw)
        assert.isTrue(parsed.structured)
        assert.deepStrictEqual(parsed.checkpoint, trimmed(checkpoint))
        assert.strictEqual(parsed.text, renderCheckpoint(trimmed(checkpoint)))
        // Parsing a decoded checkpoint again changes nothing.
        assert.deepStrictEqual(
          parseCheckpoint(JSON.stringify({ checkpoint: parsed.checkpoint })).checkpoint,
          parsed.checkpoint
        )
      }),
      { numRuns: runs.many }
    )
  })

  it("render: seven titles in order, one `- ` line per item, `- (none)` per empty list", () => {
    const line = fc.string({ maxLength: 20 }).map((t) => t.replace(/[\r\n\u2028\u2029]/g, " ").trim())
      .filter((t) => !t.startsWith("-") && !t.startsWith("#"))
    const lines = fc.array(line, { maxLength: 6 })
    fc.assert(
      fc.property(
        fc.record({
          goal: line.filter((t) => t.length > 0),
          instructions: lines,
          discoveries: lines,
          accomplished: lines,
          currentState: line,
          nextSteps: lines,
          relevantFiles: lines
        }),
        (checkpoint) => {
          const rendered = renderCheckpoint(checkpoint).split(/\r\n|\r|\n/)
          assert.deepStrictEqual(
            rendered.filter((l) => l.startsWith("## ")),
            CHECKPOINT_SECTIONS.map(([, title]) => `## ${title}`)
          )
          const lists = [
            checkpoint.instructions,
            checkpoint.discoveries,
            checkpoint.accomplished,
            checkpoint.nextSteps,
            checkpoint.relevantFiles
          ]
          assert.strictEqual(
            rendered.filter((l) => l.startsWith("- ")).length,
            lists.reduce((n, l) => n + Math.max(1, l.length), 0)
          )
          assert.strictEqual(
            rendered.filter((l) => l === "- (none)").length - lists.flat().filter((t) => t === "(none)").length,
            lists.filter((l) => l.length === 0).length
          )
        }
      ),
      { numRuns: runs.more }
    )
  })
})

describe("summaryMessage", () => {
  const body = "## Goal\nFix it"
  const header = "[Checkpoint of 12 earlier messages, generated by context compaction]"

  it("writes the header, a blank line and the body, as a canonical summary by default", () => {
    assert.strictEqual(checkpointHeader(12), header)
    assert.deepStrictEqual(summaryMessage(body, 12), {
      role: "user",
      content: `${header}\n\n${body}`,
      summary: true
    })
  })

  it("adds non-blank plugin texts after the body, each cut to 24,000 code units without splitting a pair", () => {
    const long = "m".repeat(INJECT_CONTEXT_MAX_CHARS - 1) + "🚀" + "rest"
    const note = summaryMessage<Message>(body, 3, {
      injectContext: ["Remembered: uses pnpm.", "  ", long, "x".repeat(24_000)]
    })
    assert.strictEqual(INJECT_CONTEXT_MAX_CHARS, 24_000)
    assert.strictEqual(
      formats.canonical.ownText(note),
      "[Checkpoint of 3 earlier messages, generated by context compaction]\n\n## Goal\nFix it\n\n" +
        "Remembered: uses pnpm.\n\n" + "m".repeat(23_999) + "\n\n" + "x".repeat(24_000)
    )
  })

  for (const name of formatNames) {
    it(`${name}: the checkpoint is a user summary through its own lens and through auto`, () => {
      const format = formatOf(name)
      const note = summaryMessage(body, 12, { format, injectContext: ["Remembered: uses pnpm."] })
      assert.isTrue(format.isSummary(note))
      assert.isTrue((formats.auto as MessageFormat<unknown>).isSummary(note))
      assert.strictEqual(format.role(note), "user")
      assert.strictEqual(format.ownText(note), `${header}\n\n${body}\n\nRemembered: uses pnpm.`)
      assert.strictEqual(format.isSummary(deepFreeze(note)), true)
    })
  }

  it("auto: a plain note is still a summary", () => {
    const note = summaryMessage(body, 12, { format: formats.auto as MessageFormat<unknown> })
    assert.isTrue((formats.auto as MessageFormat<unknown>).isSummary(note))
  })
})
