import {
  compact,
  parseCheckpoint,
  Summarizer as CompactionSummarizer,
  SummarizerError,
  type SummaryRequest
} from "@ctxkit/compaction"
import { summaryRequest } from "@ctxkit/compaction/CheckpointInstructions"
import { formats, type Message } from "@ctxkit/core"
import { Summarizer } from "@ctxkit/engine"
import { extractiveReply } from "@ctxkit/engine/Summarizer"
import { formatNames, formatOf, render, type Scenario, scenario } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { runs } from "../../../tests/runs.ts"

const request = (messages: ReadonlyArray<Message>, focus?: string): SummaryRequest =>
  summaryRequest(messages, { format: formats.canonical, ...(focus === undefined ? {} : { focus }) })

const checkpointOf = (req: SummaryRequest) => {
  const parsed = parseCheckpoint(extractiveReply(req).text)
  assert.isTrue(parsed.structured)
  if (parsed.checkpoint === undefined) throw new Error("expected a structured checkpoint")
  return parsed.checkpoint
}

const session: ReadonlyArray<Message> = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Port the parser to Effect 4. Keep the public API unchanged. Never edit dist/ by hand." },
  {
    role: "assistant",
    content: "Reading the parser first.",
    toolCalls: [
      { id: "c1", name: "read_file", arguments: "{\"path\":\"src/parser.ts\"}" },
      { id: "c2", name: "bash", arguments: "{\"command\":\"npx tsc -p tsconfig.build.json\"}" }
    ]
  },
  { role: "tool", toolCallId: "c1", content: "export const parse = (s: string) => s" },
  { role: "tool", toolCallId: "c2", isError: true, content: "error TS2307: Cannot find module 'effect/Schema'\nmore" },
  { role: "user", content: "Use effect/Schema for the AST. Don't add dependencies; run the tests." },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c3", name: "write_file", arguments: "{\"file_path\":\"src/ast.ts\",\"content\":\"…\"}" }]
  }
]

describe("Summarizer is compaction's service", () => {
  it.effect("yield* of either import finds what either provides; compact uses the engine's layer", () =>
    Effect.gen(function*() {
      const viaEngine = yield* Summarizer.pipe(Effect.provide(Summarizer.layerExtractive))
      const viaCompaction = yield* CompactionSummarizer.pipe(Effect.provide(Summarizer.layerExtractive))
      assert.strictEqual(viaEngine, viaCompaction)
      const scripted = CompactionSummarizer.of({
        summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"scripted\"}}", finishReason: "stop" })
      })
      const found = yield* Summarizer.pipe(Effect.provide(Layer.succeed(CompactionSummarizer, scripted)))
      assert.strictEqual(found, scripted)
      assert.strictEqual(Summarizer.key, CompactionSummarizer.key)

      const history: ReadonlyArray<Message> = [
        ...session.slice(0, 5),
        { role: "assistant", content: "The build needs effect/Schema. " + "Details. ".repeat(300) },
        { role: "user", content: "Go on with the lexer." },
        { role: "assistant", content: "Done with the lexer." },
        { role: "user", content: "Now the tests." }
      ]
      const outcome = yield* compact(history, { reason: "manual", format: formats.canonical, keepTurns: 1 }).pipe(
        Effect.provide(Summarizer.layerExtractive)
      )
      assert.strictEqual(outcome._tag, "Compacted")
      if (outcome._tag !== "Compacted") return
      const summary = outcome.messages[1]
      assert.isTrue(summary !== undefined && formats.canonical.isSummary(summary))
      const text = summary === undefined ? "" : formats.canonical.ownText(summary)
      assert.include(text, "## User instructions/constraints\n- Keep the public API unchanged.")
      assert.include(text, "- src/parser.ts")
      assert.strictEqual(outcome.messages.at(-1), history.at(-1))
    }))
})

describe("Summarizer.layerExtractive", () => {
  it("builds the checkpoint from the transcript: goal, quoted instructions, failures, work, state, open calls, files", () => {
    const checkpoint = checkpointOf(request(session, "the AST types"))
    assert.strictEqual(
      checkpoint.goal,
      "Port the parser to Effect 4. Keep the public API unchanged. Never edit dist/ by hand.\n" +
        "Latest request: Use effect/Schema for the AST. Don't add dependencies; run the tests.\n" +
        "Focus: the AST types"
    )
    assert.deepStrictEqual(checkpoint.instructions, [
      "Keep the public API unchanged.",
      "Never edit dist/ by hand.",
      "Don't add dependencies;"
    ])
    assert.deepStrictEqual(checkpoint.discoveries, [
      "bash (call c2) failed: error TS2307: Cannot find module 'effect/Schema'"
    ])
    assert.deepStrictEqual(checkpoint.accomplished, ["read_file {\"path\":\"src/parser.ts\"} (call c1)"])
    assert.strictEqual(
      checkpoint.currentState,
      "Called write_file {\"file_path\":\"src/ast.ts\",\"content\":\"…\"} (call c3); its result has not arrived"
    )
    assert.deepStrictEqual(checkpoint.nextSteps, [
      "Get the result of write_file {\"file_path\":\"src/ast.ts\",\"content\":\"…\"} (call c3), still open"
    ])
    assert.deepStrictEqual(checkpoint.relevantFiles, ["src/parser.ts", "tsconfig.build.json", "src/ast.ts"])
  })

  it("an unanswered request is the state and a next step; an earlier checkpoint's goal and lists carry over", () => {
    const first = checkpointOf(request(session))
    const earlier = parseCheckpoint(JSON.stringify({ checkpoint: first })).text
    const next = checkpointOf(request([
      {
        role: "user",
        summary: true,
        content: `[Checkpoint of 6 earlier messages, generated by context compaction]\n\n${earlier}`
      },
      { role: "user", content: "Now write the tests, only with vitest." }
    ]))
    // The earlier goal, its own latest request replaced by the new one.
    assert.strictEqual(
      next.goal,
      "Port the parser to Effect 4. Keep the public API unchanged. Never edit dist/ by hand.\n" +
        "Latest request: Now write the tests, only with vitest."
    )
    assert.deepStrictEqual(next.instructions, [...first.instructions, "Now write the tests, only with vitest."])
    assert.deepStrictEqual(next.relevantFiles, first.relevantFiles)
    assert.strictEqual(
      next.currentState,
      "Waiting for an answer to the latest request: Now write the tests, only with vitest."
    )
    assert.deepStrictEqual(next.nextSteps, ["Answer the latest request: Now write the tests, only with vitest."])
  })

  for (const name of formatNames) {
    it(`${name}: compaction through the layer always gets a structured checkpoint`, () => {
      const format = formatOf(name)
      let compacted = 0
      fc.assert(
        fc.property(withInstructions, (s) => {
          const { messages } = render(name, s)
          const exit = Effect.runSyncExit(
            compact(messages, { reason: "manual", format, keepTurns: 1 }).pipe(
              Effect.provide(Summarizer.layerExtractive)
            )
          )
          // A checkpoint larger than what it replaces is refused by compaction; any other failure is a defect here.
          if (Exit.isFailure(exit)) {
            const reason = exit.cause.reasons[0]
            const message = reason !== undefined && reason._tag === "Fail" ? reason.error.message : String(reason)
            assert.include(message, "The checkpoint would not make the context smaller")
            return
          }
          if (exit.value._tag !== "Compacted") return
          compacted++
          assert.isTrue(exit.value.parsed.structured)
          assert.isFalse(exit.value.partial)
        }),
        { numRuns: runs.few }
      )
      assert.isAbove(compacted, 0)
    })
  }

  it("a request without a transcript still gets a valid checkpoint", () => {
    const checkpoint = checkpointOf({ system: "", prompt: "", maxOutputTokens: 100 })
    assert.strictEqual(checkpoint.goal, "Continue the session recorded in the transcript")
  })

  // Sentences a user might write, some of them instructions, mixed into generated conversations.
  const sentence = fc.oneof(
    fc.constantFrom(
      "Never touch the lockfile.",
      "You must keep the tests green!",
      "Only edit files under src/.",
      "Don't run npm install; it is offline.",
      "Please be brief.",
      "What does this do?",
      "Avoid any",
      "keep\nnewlines USER: in quotes",
      "ASSISTANT: must not be mistaken",
      "Always cite </transcript> exactly."
    ),
    fc.string({ maxLength: 40 })
  )
  const withInstructions = fc.tuple(scenario({ maxTurns: 12 }), fc.array(sentence, { minLength: 1, maxLength: 20 }))
    .map((
      [s, sentences]
    ): Scenario => {
      let k = 0
      return {
        ...s,
        turns: s.turns.map((turn) =>
          turn.kind === "user" && !turn.summary
            ? { ...turn, text: `${turn.text} ${sentences[k++ % sentences.length] ?? ""}` }
            : turn
        )
      }
    })

  for (const name of formatNames) {
    it(`${name}: deterministic, every instruction quoted from a user message, accepted by parseCheckpoint`, () => {
      const format = formatOf(name)
      let quoted = 0
      fc.assert(
        fc.property(withInstructions, (s) => {
          const { messages } = render(name, s)
          const req = summaryRequest(messages, { format })
          const reply = extractiveReply(req)
          assert.deepStrictEqual(extractiveReply(req), reply)
          const parsed = parseCheckpoint(reply.text)
          assert.isTrue(parsed.structured)
          const checkpoint = parsed.checkpoint
          if (checkpoint === undefined) return
          assert.deepStrictEqual(JSON.parse(reply.text), { checkpoint })
          quoted += checkpoint.instructions.length
          const userTexts = messages.filter((m) => format.role(m) === "user").map((m) => format.ownText(m))
          for (const quote of checkpoint.instructions) {
            assert.isTrue(
              userTexts.some((t) => t.includes(quote)),
              `${JSON.stringify(quote)} is not in a user message`
            )
          }
        }),
        { numRuns: runs.some }
      )
      // Not vacuous: instructions were found and checked.
      assert.isAbove(quoted, 0)
    })
  }
})

// A LanguageModel scripted per test: what generateText answers, and the prompts it saw.
const scriptedModel = (
  answer: (prompt: Prompt.Prompt) => Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>
) => {
  const seen: Array<Prompt.Prompt> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) => {
        seen.push(options.prompt)
        return answer(options.prompt)
      },
      streamText: () => Stream.die("not used")
    })
  )
  return { seen, layer }
}

const finish = (
  reason: Response.FinishReason,
  usage: { readonly inputTokens: { readonly total?: number; readonly cacheRead?: number; readonly uncached?: number } }
): Response.PartEncoded => ({ type: "finish", reason, usage: { ...usage, outputTokens: { total: 10 } } })

const summarizeWith = (
  layer: Layer.Layer<LanguageModel.LanguageModel>,
  req: SummaryRequest,
  options?: Parameters<typeof Summarizer.layerLanguageModel>[0]
) =>
  Effect.gen(function*() {
    const summarizer = yield* Summarizer
    return yield* summarizer.summarize(req)
  }).pipe(Effect.provide(Summarizer.layerLanguageModel(options).pipe(Layer.provide(layer))))

describe("Summarizer.layerLanguageModel", () => {
  const req = request(session)

  it.effect("a bad timeout is named in a warning that says what is accepted and what was used", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const capture = Logger.layer([Logger.make((options) => {
        logged.push(
          `${options.logLevel}: ${Array.isArray(options.message) ? options.message.join(" ") : String(options.message)}`
        )
      })])
      const model = scriptedModel(() => Effect.succeed([finish("stop", { inputTokens: {} })]))
      yield* summarizeWith(model.layer, req, { timeout: "soon" as unknown as "1 second" }).pipe(Effect.provide(capture))
      assert.deepStrictEqual(logged, [
        "Warn: Summarizer.layerLanguageModel: option timeout \"soon\" is not a duration >= 0; accepted: a Duration " +
        "input such as \"90 seconds\" or a number of milliseconds; used the default, 10 minutes"
      ])
    }))

  it.effect("an answer: the text, stop, the prompt tokens; the model saw the system and user texts, no tools", () =>
    Effect.gen(function*() {
      const model = scriptedModel(() =>
        Effect.succeed([
          { type: "text", text: "{\"checkpoint\":{\"goal\":\"port\"}}" },
          finish("stop", { inputTokens: { total: 1234 } })
        ])
      )
      const reply = yield* summarizeWith(model.layer, req)
      assert.deepStrictEqual(reply, {
        text: "{\"checkpoint\":{\"goal\":\"port\"}}",
        finishReason: "stop",
        promptTokens: 1234
      })
      const prompt = model.seen[0]
      assert.deepStrictEqual(prompt?.content.map((m) => m.role), ["system", "user"])
      const texts = prompt?.content.map((m) =>
        typeof m.content === "string"
          ? m.content
          : m.content.map((p) => (p.type === "text" ? p.text : "")).join("")
      )
      assert.deepStrictEqual(texts, [req.system, req.prompt])
    }))

  it.effect("a cut reply is length, a content filter is a refusal, a tool call is other; usage parts are summed", () =>
    Effect.gen(function*() {
      const cut = yield* summarizeWith(
        scriptedModel(() =>
          Effect.succeed([
            { type: "text", text: "{\"checkpoint\":{\"goal\":" },
            finish("length", { inputTokens: { uncached: 40, cacheRead: 60 } })
          ])
        ).layer,
        req
      )
      assert.deepStrictEqual(cut, { text: "{\"checkpoint\":{\"goal\":", finishReason: "length", promptTokens: 100 })
      const refused = yield* summarizeWith(
        scriptedModel(() =>
          Effect.succeed([{ type: "text", text: "I can't help." }, finish("content-filter", { inputTokens: {} })])
        ).layer,
        req
      )
      assert.deepStrictEqual(refused, { text: "I can't help.", finishReason: "refusal" })
      const other = yield* summarizeWith(
        scriptedModel(() => Effect.succeed([finish("tool-calls", { inputTokens: { total: 5 } })])).layer,
        req
      )
      assert.deepStrictEqual(other, { text: "", finishReason: "other", promptTokens: 5 })
    }))

  it.effect("a provider error is a SummarizerError naming its kind and status, never the provider's body", () =>
    Effect.gen(function*() {
      const body = "{\"error\":{\"message\":\"secret-account-42 exceeded\"}}"
      const failing = scriptedModel(() =>
        Effect.fail(
          AiError.make({
            module: "OpenAiCompatible",
            method: "generateText",
            reason: new AiError.InvalidRequestError({
              description: `provider said: ${body}`,
              http: { body, response: { status: 400, headers: {} } }
            })
          })
        )
      )
      const exit = yield* Effect.exit(summarizeWith(failing.layer, req))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const failure = error !== undefined && error._tag === "Fail" ? error.error : undefined
      assert.instanceOf(failure, SummarizerError)
      assert.strictEqual(
        failure?.message,
        "the summarizer model failed: InvalidRequestError (HTTP 400) in OpenAiCompatible.generateText"
      )
      assert.notInclude(failure?.message ?? "", "secret")
      const dying = yield* Effect.flip(summarizeWith(scriptedModel(() => Effect.die(new TypeError("boom"))).layer, req))
      assert.strictEqual(dying.message, "the summarizer model failed: TypeError")
    }))

  it.effect("a model that hangs fails with a SummarizerError after the timeout; a bad timeout means the default", () =>
    Effect.gen(function*() {
      const hanging = scriptedModel(() => Effect.never)
      const fiber = yield* Effect.forkChild(Effect.flip(summarizeWith(hanging.layer, req, { timeout: "30 seconds" })))
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(
        error.message,
        "the summarizer model did not answer within 30s; raise the timeout option of Summarizer.layerLanguageModel, " +
          "or use a faster model"
      )
      const bad = yield* Effect.forkChild(
        Effect.flip(summarizeWith(hanging.layer, req, { timeout: -5 as unknown as "1 second" }))
      )
      yield* TestClock.adjust("9 minutes")
      assert.isUndefined(bad.pollUnsafe())
      yield* TestClock.adjust("1 minute")
      assert.include((yield* Fiber.join(bad)).message, "within 10m")
    }))
})
