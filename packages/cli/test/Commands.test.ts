/**
 * Each command through the real bin, on generated conversations in every wire format and on fixed inputs: the
 * JSON of cli.md checked field by field against what the library itself returns for the same input.
 */
import { approximateCounter, available, conversationCost, makeCostCache } from "@ctxkit/budget"
import { compact, planCompaction, reduceToBudget } from "@ctxkit/compaction"
import { formats, type MessageFormat } from "@ctxkit/core"
import { Summarizer } from "@ctxkit/engine"
import { strategies } from "@ctxkit/fit"
import { contextReport, govern } from "@ctxkit/governor"
import { explainInstructions, validateSkill } from "@ctxkit/instructions"
import { OverflowDetector } from "@ctxkit/overflow"
import { conversation, type FormatName, formatNames } from "@ctxkit/testing"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, vi } from "vitest"
import { renderReportHtml } from "../src/HtmlReport.ts"
import { ctxkit, jsonOf, SLOW_TEST_TIMEOUT } from "./bin.ts"

// Each test starts real processes; on a shared machine under load one start can take tens of seconds.
vi.setConfig({ testTimeout: SLOW_TEST_TIMEOUT })

let dir = ""
const at = (name: string) => path.join(dir, name)
const write = (name: string, value: unknown): string => {
  fs.writeFileSync(at(name), typeof value === "string" ? value : JSON.stringify(value))
  return at(name)
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxkit-cli-"))
})
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

/** The CLI name of each format. */
const CLI_NAME: Record<FormatName, string> = {
  canonical: "canonical",
  openaiChat: "openai-chat",
  openaiResponses: "openai-responses",
  anthropic: "anthropic",
  aiSdk: "ai-sdk",
  effectAi: "effect-ai",
  langchain: "langchain"
}

/** What a conversation looks like after a trip through a JSON file (what the bin reads). */
const viaJson = (messages: ReadonlyArray<unknown>): ReadonlyArray<unknown> => JSON.parse(JSON.stringify(messages))

/** `fit --json` as the library computes it. */
const expectedFit = (
  messages: ReadonlyArray<unknown>,
  format: MessageFormat<unknown>,
  budget: number,
  strategy: keyof typeof strategies = "truncate"
) => {
  const cache = makeCostCache()
  const before = conversationCost(messages, { counter: approximateCounter, format, cache })
  const result = strategies[strategy].fit(messages, approximateCounter, budget, { format, cache, countExcluded: true })
  const gone = new Set(result.excluded.map((e) => e.index))
  return {
    fits: result.fits,
    budget: result.budget,
    tokensBefore: before.total,
    tokens: result.tokens,
    kept: messages.flatMap((_, i) => (gone.has(i) ? [] : [i])),
    excluded: result.excluded.map((e) => ({
      index: e.index,
      reason: e.reason,
      tokens: e.tokens ?? before.costs[e.index]
    })),
    truncated: result.truncated.map((t) => t.index),
    inserted: result.inserted.length,
    messages: result.kept
  }
}

interface FitJson {
  readonly fits: boolean
  readonly budget: number
  readonly tokensBefore: number
  readonly tokens: number
  readonly kept: ReadonlyArray<number>
  readonly excluded: ReadonlyArray<{ readonly index: number; readonly reason: string; readonly tokens: number }>
  readonly truncated: ReadonlyArray<number>
  readonly inserted: number
  readonly messages: ReadonlyArray<unknown>
}

/** Field by field, then the partition law of cli.md: `kept` and `excluded` are the input's positions, once each. */
const assertFit = (actual: FitJson, expected: ReturnType<typeof expectedFit>, length: number) => {
  assert.deepStrictEqual(
    Object.keys(actual).sort(),
    ["budget", "excluded", "fits", "inserted", "kept", "messages", "tokens", "tokensBefore", "truncated"]
  )
  assert.strictEqual(actual.fits, expected.fits)
  assert.strictEqual(actual.budget, expected.budget)
  assert.strictEqual(actual.tokensBefore, expected.tokensBefore)
  assert.strictEqual(actual.tokens, expected.tokens)
  assert.deepStrictEqual(actual.kept, expected.kept)
  assert.deepStrictEqual(actual.excluded, expected.excluded)
  assert.deepStrictEqual(actual.truncated, expected.truncated)
  assert.strictEqual(actual.inserted, expected.inserted)
  assert.deepStrictEqual(actual.messages, viaJson(expected.messages))
  const positions = [...actual.kept, ...actual.excluded.map((e) => e.index)].sort((a, b) => a - b)
  assert.deepStrictEqual(positions, Array.from({ length }, (_, i) => i))
  for (const t of actual.truncated) {
    assert.isTrue(actual.kept.includes(t), "a truncated message is kept (sent, compressed)")
  }
}

describe("fit", () => {
  // A few generated conversations per format, each at half its cost: some messages must go.
  for (const name of formatNames) {
    it(`${name}: --json matches the library, --format named and detected`, async () => {
      const samples = fc.sample(conversation(name, { maxTurns: 8 }), { seed: 42, numRuns: 2 })
      for (const [k, sample] of samples.entries()) {
        const messages = viaJson(sample.messages)
        const format = formats[name] as MessageFormat<unknown>
        const total = conversationCost(messages, { counter: approximateCounter, format }).total
        const budget = Math.max(1, Math.floor(total / 2))
        const file = write(`${name}-${k}.json`, messages)
        const expected = expectedFit(messages, format, budget)
        const named = await ctxkit(["fit", file, "--budget", String(budget), "--format", CLI_NAME[name], "--json"])
        assert.strictEqual(named.code, expected.fits ? 0 : 1, named.stderr)
        assertFit(jsonOf(named) as FitJson, expected, messages.length)
      }
    })
  }

  const chat = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Read the config, please." },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{\"path\":\"a.json\"}" } }]
    },
    { role: "tool", tool_call_id: "c1", content: "{\"port\": 8080}\n".repeat(40) },
    { role: "assistant", content: "It sets port 8080." },
    { role: "user", content: "And the host?" }
  ]

  it("reads an array, { messages }, JSONL and stdin alike, and answers in the input's format", async () => {
    const expected = expectedFit(chat, formats.openaiChat as MessageFormat<unknown>, 60)
    const runs = await Promise.all([
      ctxkit(["fit", write("chat.json", chat), "--budget", "60", "--json"]),
      ctxkit(["fit", write("chat-messages.json", { model: "gpt-4o", messages: chat }), "--budget", "60", "--json"]),
      ctxkit([
        "fit",
        write("chat.jsonl", chat.map((m) => JSON.stringify(m)).join("\n") + "\n"),
        "--budget",
        "60",
        "--json"
      ]),
      ctxkit(["fit", "-", "--budget", "60", "--json"], { stdin: JSON.stringify(chat) }),
      ctxkit(["fit", "--budget", "60", "--json"], { stdin: JSON.stringify(chat) })
    ])
    for (const run of runs) {
      assert.strictEqual(run.code, 0, run.stderr)
      assertFit(jsonOf(run) as FitJson, expected, chat.length)
    }
    // The call and its result went together, and the kept messages are the caller's own OpenAI objects.
    const first = jsonOf(runs[0]!) as FitJson
    assert.deepStrictEqual(first.excluded.map((e) => e.index), [1, 2, 3])
    assert.deepStrictEqual(first.messages, [chat[0], chat[4], chat[5]])
  })

  it("reads a Responses { input } body", async () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "List the files." }] },
      { type: "function_call", call_id: "f1", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "f1", output: "a.txt\n".repeat(50) },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "One file, many times." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks." }] }
    ]
    const run = await ctxkit(["fit", write("responses.json", { model: "gpt-5", input }), "--budget", "40", "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    assertFit(
      jsonOf(run) as FitJson,
      expectedFit(input, formats.openaiResponses as MessageFormat<unknown>, 40),
      input.length
    )
  })

  it("--window and --max-tokens give the budget available(window, maxTokens)", async () => {
    const file = write("chat-window.json", chat)
    const plain = jsonOf(await ctxkit(["fit", file, "--window", "400", "--json"])) as FitJson
    const capped = jsonOf(await ctxkit(["fit", file, "--window", "400", "--max-tokens", "20", "--json"])) as FitJson
    assert.strictEqual(plain.budget, available(400))
    assert.strictEqual(plain.budget, 300)
    assert.strictEqual(capped.budget, available(400, 20))
    assert.strictEqual(capped.budget, 380)
  })

  it("exit 1 with the whole JSON when the protected messages alone do not fit", async () => {
    const big = [{ role: "system", content: "rule ".repeat(400) }, { role: "user", content: "go" }]
    const run = await ctxkit(["fit", write("big.json", big), "--budget", "50", "--json"])
    assert.strictEqual(run.code, 1)
    const json = jsonOf(run) as FitJson
    assert.isFalse(json.fits)
    assertFit(json, expectedFit(big, formats.canonical as MessageFormat<unknown>, 50), big.length)
    assert.match(run.stderr.trim(), /^ctxkit: the protected messages alone .* raise --budget or --window/)
    const human = await ctxkit(["fit", at("big.json"), "--budget", "50"])
    assert.strictEqual(human.code, 1)
    assert.match(human.stdout, /^does not fit: \d+ of 50 tokens/)
  })

  it("--strategy summarize inserts the summary note, in the input's format", async () => {
    const long = [
      { role: "system", content: "Be helpful." },
      ...Array.from(
        { length: 12 },
        (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i}: ${"words ".repeat(30)}` })
      ),
      { role: "user", content: "Summarize where we are." }
    ]
    const run = await ctxkit(["fit", write("long.json", long), "--budget", "200", "--strategy", "summarize", "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const json = jsonOf(run) as FitJson
    assertFit(json, expectedFit(long, formats.canonical as MessageFormat<unknown>, 200, "summarize"), long.length)
    assert.strictEqual(json.inserted, 1)
    assert.isTrue(json.messages.some((m) => JSON.stringify(m).includes("[Summary of earlier context]")))
  })

  it("--tokenizer o200k counts with the exact vocabulary", async () => {
    const { o200kCounter } = await import("@ctxkit/budget/o200k")
    const run = await ctxkit([
      "fit",
      write("chat-o200k.json", chat),
      "--budget",
      "1000",
      "--tokenizer",
      "o200k",
      "--json"
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    const json = jsonOf(run) as FitJson
    const exact = conversationCost(chat, {
      counter: o200kCounter,
      format: formats.openaiChat as MessageFormat<unknown>
    })
    assert.strictEqual(json.tokensBefore, exact.total)
    assert.notStrictEqual(
      exact.total,
      conversationCost(chat, { format: formats.openaiChat as MessageFormat<unknown> }).total
    )
  })

  it("the human summary names the format, the counter and what was excluded", async () => {
    const run = await ctxkit(["fit", write("chat-human.json", chat), "--budget", "60"])
    assert.strictEqual(run.code, 0)
    const expected = expectedFit(chat, formats.openaiChat as MessageFormat<unknown>, 60)
    assert.strictEqual(
      run.stdout.split("\n")[0],
      `fits: ${expected.tokens} of 60 tokens; ${expected.tokensBefore} before fitting`
    )
    assert.include(run.stdout, "6 messages, openai-chat (detected), counted with approximate-chars-v1 (approximate)")
    assert.include(run.stdout, "kept 3 messages; excluded 3 (context-shift: 3)")
    assert.strictEqual(run.stderr, "")
  })

  it("a 50 MB conversation is read and fitted", async () => {
    const chunk = "lorem ipsum dolor sit amet ".repeat(370) // about 10 kB
    const messages = Array.from(
      { length: 5_000 },
      (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `${i} ${chunk}` })
    )
    const file = write("fifty.json", messages)
    assert.isAbove(fs.statSync(file).size, 50_000_000)
    const run = await ctxkit(["fit", file, "--budget", "100000", "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const json = jsonOf(run) as FitJson
    assert.strictEqual(json.kept.length + json.excluded.length, 5_000)
    assert.isTrue(json.fits)
    assert.isAtMost(json.tokens, 100_000)
    assert.strictEqual(json.kept[json.kept.length - 1], 4_999)
    assert.strictEqual(run.stderr, "", "no progress when stderr is not a terminal")
  })
})

// Six read-then-write rounds: 38 messages, past the governor's 32-message epoch, so the early reads are elided.
const toolChat: ReadonlyArray<unknown> = [
  { role: "system", content: "You are a coding agent." },
  ...Array.from({ length: 6 }, (_, k) => [
    { role: "user", content: `Fix src/f${k}.ts.` },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: `r${k}`, name: "read_file", arguments: `{"path":"src/f${k}.ts"}` }]
    },
    { role: "tool", toolCallId: `r${k}`, content: `export const v${k} = 1\n`.repeat(60) },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: `w${k}`, name: "write_file", arguments: `{"path":"src/f${k}.ts","content":"x"}` }]
    },
    { role: "tool", toolCallId: `w${k}`, content: "ok" },
    { role: "assistant", content: `Fixed src/f${k}.ts.` }
  ]).flat(),
  { role: "user", content: "Now the README." }
]

describe("report", () => {
  it("--json is the library's ContextReport, and --html writes the page renderReportHtml makes", async () => {
    const file = write("tools.json", toolChat)
    const html = at("report.html")
    const run = await ctxkit(["report", file, "--window", "8192", "--html", html, "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const expected = contextReport(toolChat, {
      mode: "shadow",
      format: formats.canonical as MessageFormat<unknown>,
      counter: approximateCounter
    })
    assert.deepStrictEqual(jsonOf(run), expected)
    assert.isTrue(
      expected.mode === "shadow" && expected.elisions.length === 5,
      "the reads before the epoch are superseded"
    )
    assert.strictEqual(fs.readFileSync(html, "utf8"), renderReportHtml(expected, { source: file, window: 8192 }))
  })

  it("--governor on, and exit 1 when the request does not fit the window less the reserve", async () => {
    const file = write("tools-on.json", toolChat)
    const on = await ctxkit(["report", file, "--window", "8192", "--governor", "on", "--json"])
    assert.deepStrictEqual(
      jsonOf(on),
      contextReport(toolChat, { mode: "on", format: formats.canonical as MessageFormat<unknown> })
    )
    const tight = await ctxkit(["report", file, "--window", "300"])
    assert.strictEqual(tight.code, 1)
    assert.match(tight.stdout, /window 300: [\d,]+ tokens used/)
    assert.match(
      tight.stderr.trim(),
      /^ctxkit: the request \([\d,]+ tokens\) does not fit the window of 300 less 75 reserved/
    )
  })
})

describe("govern", () => {
  it("--json: the elisions, the governor's token estimates and the request", async () => {
    const file = write("tools-govern.json", toolChat)
    for (const mode of ["shadow", "on"] as const) {
      const run = await ctxkit(["govern", file, "--mode", mode, "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      const expected = govern(toolChat, {
        mode,
        format: formats.canonical as MessageFormat<unknown>,
        counter: approximateCounter
      })
      const json = jsonOf(run) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(json).sort(), ["elisions", "messages", "tokensAfter", "tokensBefore"])
      assert.deepStrictEqual(json["elisions"], expected.elisions)
      assert.strictEqual(json["tokensBefore"], expected.event?.tokensBefore)
      assert.strictEqual(json["tokensAfter"], expected.event?.tokensAfter)
      assert.isBelow(json["tokensAfter"] as number, json["tokensBefore"] as number)
      assert.deepStrictEqual(json["messages"], viaJson(expected.messages))
    }
  })
})

/** The `compact --json` document. */
interface CompactJson {
  readonly plan: { readonly cut: number; readonly summarized: number; readonly kept: number } | null
  readonly skipped: { readonly reason: string; readonly detail: string } | null
  readonly checkpoint: { readonly structured: boolean; readonly partial: boolean; readonly text: string } | null
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly reduction: { readonly target: number; readonly charsBefore: number; readonly chars: number }
  readonly fits: boolean
  readonly messages: ReadonlyArray<unknown>
}

describe("compact", () => {
  const history: ReadonlyArray<unknown> = [
    { role: "system", content: "You are a coding agent." },
    ...Array.from({ length: 6 }, (_, t) => [
      { role: "user", content: `Task ${t}: change file ${t}.` },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: `c${t}`, name: "read_file", arguments: `{"path":"f${t}.ts"}` }]
      },
      { role: "tool", toolCallId: `c${t}`, content: `file ${t} `.repeat(200) },
      { role: "assistant", content: `Changed file ${t}.` }
    ]).flat()
  ]

  it("--json: the plan, the offline checkpoint and the reduction, as the library makes them", async () => {
    const file = write("compact.json", history)
    const run = await ctxkit(["compact", file, "--keep-turns", "1", "--max-context-chars", "3000", "--json"])
    const json = jsonOf(run) as CompactJson
    const plan = planCompaction(history, { keepTurns: 1, format: formats.canonical as MessageFormat<unknown> })
    assert.strictEqual(plan._tag, "CompactionPlan")
    assert.strictEqual(json.plan?.cut, plan._tag === "CompactionPlan" ? plan.cut : -1)
    const outcome = await Effect.runPromise(
      compact(history, { reason: "manual", keepTurns: 1, format: formats.canonical as MessageFormat<unknown> }).pipe(
        Effect.provide(Summarizer.layerExtractive)
      )
    )
    assert.strictEqual(outcome._tag, "Compacted")
    if (outcome._tag !== "Compacted") return
    assert.strictEqual(json.checkpoint?.text, outcome.parsed.text)
    assert.strictEqual(json.checkpoint?.structured, outcome.parsed.structured)
    const reduced = reduceToBudget(outcome.messages, 4000, { format: formats.canonical as MessageFormat<unknown> })
    assert.deepStrictEqual(json.messages, viaJson(reduced.messages))
    assert.strictEqual(json.reduction.chars, reduced.chars)
    assert.strictEqual(json.reduction.target, 4000)
    // Over 3,000 characters even after reduction (the target's floor is 4,000): exit 1.
    assert.strictEqual(json.fits, reduced.chars <= 3000)
    assert.strictEqual(run.code, json.fits ? 0 : 1)
  })

  it("a conversation with an unanswered call is not compacted, and says why", async () => {
    const open = [...history, {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "open", name: "run", arguments: "{}" }]
    }]
    const run = await ctxkit(["compact", write("open.json", open), "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const json = jsonOf(run) as CompactJson
    assert.isNull(json.plan)
    assert.strictEqual(json.skipped?.reason, "open-call")
    assert.deepStrictEqual(json.messages, open)
  })
})

describe("detect", () => {
  it("flags the collapse and the plateau, replaying the detector request by request", async () => {
    const samples = [
      { estimate: 1200, tokens: 1350 },
      { estimate: 2400, tokens: 2690 },
      { estimate: 3600, tokens: 4000 },
      { estimate: 6204, tokens: 3725 },
      { estimate: 800, tokens: 900, reset: true },
      { estimate: 9000, tokens: 63 }
    ]
    const run = await ctxkit([
      "detect",
      write("samples.jsonl", samples.map((s) => JSON.stringify(s)).join("\n")),
      "--json"
    ])
    let state = OverflowDetector.initial()
    const expected = samples.map(({ reset, ...request }, index) => {
      if (reset === true) state = OverflowDetector.reset(state, "compaction")
      const observed = OverflowDetector.observe(state, request)
      state = observed.state
      return { index, truncated: observed.verdict.truncated, rule: observed.verdict.rule }
    })
    const truncated = expected.filter((r) => r.truncated).length
    assert.deepStrictEqual(jsonOf(run), { requests: expected, truncated })
    assert.isAtLeast(truncated, 2)
    assert.strictEqual(run.code, 1)
    assert.match(
      run.stderr.trim(),
      /^ctxkit: \d+ requests were truncated by the server; set the model's real context window/
    )
  })

  it("honest requests: exit 0", async () => {
    const honest = [{ estimate: 1000, tokens: 1100 }, { estimate: 1800, tokens: 2000 }, {
      estimate: 2500,
      tokens: 2790
    }]
    const run = await ctxkit(["detect", "-", "--json"], { stdin: JSON.stringify(honest) })
    assert.strictEqual(run.code, 0, run.stderr)
    assert.deepStrictEqual((jsonOf(run) as { truncated: number }).truncated, 0)
  })
})

describe("window", () => {
  it("asks a llama.cpp-like server and says where the window came from", async () => {
    const server = http.createServer((request, response) => {
      response.setHeader("content-type", "application/json")
      if (request.url === "/props") {
        response.end(
          JSON.stringify({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1, model_path: "m.gguf" })
        )
      } else {
        response.statusCode = 404
        response.end("{}")
      }
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const run = await ctxkit(["window", "--base-url", `http://127.0.0.1:${port}`, "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      const json = jsonOf(run) as { window: number | null; source: string; warnings: ReadonlyArray<string> }
      assert.deepStrictEqual(Object.keys(json).sort(), ["source", "warnings", "window"])
      assert.strictEqual(json.window, 4096)
      assert.match(json.source, /n_ctx/)
      const human = await ctxkit(["window", "--base-url", `http://127.0.0.1:${port}`])
      assert.match(human.stdout, /^window 4,096 tokens \(from .*n_ctx.*\)/)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("a server that is not there: window null with warnings, exit 0", async () => {
    const run = await ctxkit(["window", "--base-url", "http://127.0.0.1:9", "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const json = jsonOf(run) as { window: number | null; warnings: ReadonlyArray<string> }
    assert.isNull(json.window)
    assert.isAbove(json.warnings.length, 0)
  })
})

describe("context explain and skills", () => {
  it("context explain lists the applied file per directory, as explainInstructions does", async () => {
    const root = at("workspace")
    fs.mkdirSync(path.join(root, ".git"), { recursive: true })
    fs.mkdirSync(path.join(root, "pkg", "src"), { recursive: true })
    fs.writeFileSync(path.join(root, "AGENTS.md"), "Root rules.")
    fs.writeFileSync(path.join(root, "pkg", "AGENTS.override.md"), "Package rules.")
    const target = path.join(root, "pkg", "src")
    const run = await ctxkit(["context", "explain", target, "--json"])
    assert.strictEqual(run.code, 0, run.stderr)
    const expected = await Effect.runPromise(
      explainInstructions({ workspaceRoot: root, claudeMdFallback: false }, target).pipe(
        Effect.provide(NodeServices.layer)
      )
    )
    assert.deepStrictEqual(jsonOf(run), { workspace: root, directories: viaJson(expected) })
    assert.deepStrictEqual(expected.map((d) => d.kind), ["agents", "override", "none"])
  })

  it("skills list and validate: a valid skill exits 0, an invalid one 1 with its diagnostics", async () => {
    const project = at("skills-project")
    const good = path.join(project, ".agents", "skills", "greet")
    const bad = path.join(project, ".agents", "skills", "bad")
    fs.mkdirSync(good, { recursive: true })
    fs.mkdirSync(bad, { recursive: true })
    fs.writeFileSync(path.join(good, "SKILL.md"), "---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n")
    const listed = await ctxkit(["skills", "list", project, "--home", at("no-home"), "--json"])
    assert.strictEqual(listed.code, 0, listed.stderr)
    const json = jsonOf(listed) as { skills: ReadonlyArray<{ name: string; source: string }> }
    assert.deepStrictEqual(json.skills.map((s) => [s.name, s.source]), [["greet", "project"]])
    const valid = await ctxkit(["skills", "validate", good, "--json"])
    assert.strictEqual(valid.code, 0, valid.stderr)
    assert.isTrue((jsonOf(valid) as { valid: boolean }).valid)
    fs.writeFileSync(path.join(bad, "SKILL.md"), "---\nname: -Bad_Name\n---\nNo description.\n")
    const invalid = await ctxkit(["skills", "validate", bad, "--json"])
    assert.strictEqual(invalid.code, 1)
    const report = await Effect.runPromise(validateSkill(bad).pipe(Effect.provide(NodeServices.layer)))
    const out = jsonOf(invalid) as { valid: boolean; skills: ReadonlyArray<{ diagnostics: ReadonlyArray<unknown> }> }
    assert.isFalse(out.valid)
    assert.deepStrictEqual(out.skills[0]?.diagnostics, viaJson(report.skills[0]?.validation.diagnostics ?? []))
  })
})

describe("help and version", () => {
  it("--help and --version exit 0 on stdout; no subcommand shows the commands", async () => {
    const help = await ctxkit(["fit", "--help"])
    assert.strictEqual(help.code, 0)
    assert.include(help.stdout, "--budget")
    assert.include(help.stdout, "--strategy")
    const version = await ctxkit(["--version"])
    assert.strictEqual(version.code, 0)
    assert.match(version.stdout, /0\.1\.0/)
    const root = await ctxkit([])
    assert.strictEqual(root.code, 0)
    for (const name of ["fit", "report", "govern", "compact", "detect", "window", "context", "skills", "demo"]) {
      assert.include(root.stdout, name)
    }
  })
})
