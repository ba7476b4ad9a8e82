/**
 * `ctxkit govern <file> --mode shadow|on`: which tool results the governor replaces with stubs (or would), the
 * tokens saved, and the request to send.
 *
 * @internal
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { loadConversation } from "../internal/conversation.ts"
import { file, format, json, loadCounter, tokenizer, TOOL_KINDS, tools } from "../internal/options.ts"
import { n, printJson, printLines, progressFor } from "../internal/output.ts"

/** The `govern` subcommand. */
export const governCommand = Command.make("govern", {
  file,
  json,
  format,
  tokenizer,
  tools,
  mode: Flag.Literals("mode", ["shadow", "on"] as const).pipe(
    Flag.withDescription("shadow (the history unchanged, with what would be elided) or on (redundant results stubbed)")
  )
}, (flags) =>
  Effect.gen(function*() {
    const { govern } = yield* Effect.promise(() => import("@ctxkit/governor"))
    const counter = yield* loadCounter(flags.tokenizer)
    const toolKinds = yield* Effect.promise(() => TOOL_KINDS[flags.tools]())
    const conversation = yield* loadConversation(flags.file, flags.format)
    const progress = yield* progressFor(conversation.bytes)
    yield* progress.step(`governing ${n(conversation.messages.length)} messages`)
    const { format, messages } = conversation
    const result = govern(messages, { mode: flags.mode, format, counter, toolKinds })
    // The governor's own estimates; in shadow, `tokensAfter` is what the request would cost with the elisions.
    const tokensBefore = result.event?.tokensBefore ?? 0
    const tokensAfter = result.event?.tokensAfter ?? tokensBefore
    yield* progress.done
    if (flags.json) {
      yield* printJson({ elisions: result.elisions, tokensBefore, tokensAfter, messages: result.messages })
      return
    }
    const byReason = new Map<string, { count: number; saved: number }>()
    for (const e of result.elisions) {
      const seen = byReason.get(e.reason) ?? { count: 0, saved: 0 }
      byReason.set(e.reason, { count: seen.count + 1, saved: seen.saved + e.tokensSaved })
    }
    yield* printLines([
      `${conversation.source}: ${n(messages.length)} messages, ${conversation.formatName}${
        conversation.detected ? " (detected)" : ""
      }, counted with ${counter.id}${counter.approximate === false ? "" : " (approximate)"}`,
      `governor ${flags.mode}: ${n(result.elisions.length)} tool results ${
        flags.mode === "on" ? "elided" : "would be elided"
      }; ${n(tokensBefore)} → ${n(tokensAfter)} tokens (${n(tokensBefore - tokensAfter)} saved)`,
      ...[...byReason].map(([reason, { count, saved }]) => `  ${reason}: ${n(count)}, ${n(saved)} tokens`),
      ...result.elisions.slice(0, 10).map((e) => `  #${e.index} ${e.tool} ${e.callId} → ${e.stub}`),
      ...(result.elisions.length > 10
        ? [`  … and ${n(result.elisions.length - 10)} more (--json lists them all)`]
        : []),
      ...result.diagnostics.map((d) => `note: ${d.message}`)
    ])
  })).pipe(
    Command.withDescription("Elide tool results that later results made redundant (in the request only)"),
    Command.withExamples([{ command: "ctxkit govern chat.json --mode shadow --tools claude-code" }])
  )
