/**
 * A child process driving the engine over a SQLite store, for the multi-process and crash tests. Run with
 * `node --conditions=@ctxkit/source SqliteEngineChild.ts <mode> <file> <session> [count] [tag]`.
 *
 * - `drive`: `count` turns of `prepare` (appending `<tag>:<i>`) then `observe`, on `session`; prints `done`.
 * - `crash`: compaction-heavy turns on `session` until killed, continuing from whatever the file holds. Before
 *   each store write it prints `intent <revision> <digest before> <digest after> <compacts>` (the state the patch
 *   must lead to, by the reference rules below), and after it `commit <revision> <digest>`; the parent kills it
 *   at a random moment and checks the reopened file against the last two lines.
 * - `probe`: opens the store with a 300 ms busy timeout, loads `session` and writes one meta field to it;
 *   prints what each step gave as one JSON line (`{ open, load, apply }`, each `ok…` or the error's tag and message).
 * - `hold`: takes the file's write lock (`BEGIN IMMEDIATE`), prints `locked`, and keeps it until killed.
 */
import { formats, type Message } from "@ctxkit/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { writeSync } from "node:fs"
import { DatabaseSync } from "node:sqlite"
import { ContextEngine } from "../src/ContextEngine.ts"
import { type SessionPatch, type SessionState, SessionStore } from "../src/SessionStore.ts"
import { Summarizer } from "../src/Summarizer.ts"

/** A value as stored (JSON), with object keys sorted: equal digests mean equal sessions. */
export const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map((item) => canonical(item === undefined ? null : item))
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key]
      if (item !== undefined) out[key] = canonical(item)
    }
    return out
  }
  return value
}

export const digest = (state: SessionState | undefined): string =>
  state === undefined
    ? "none"
    : createHash("sha256").update(JSON.stringify(canonical(JSON.parse(JSON.stringify(state))))).digest("hex")

/** The state after `patch`, by the rules `SessionPatch` documents (written here apart from the stores). */
export const reference = (session: string, before: SessionState | undefined, patch: SessionPatch): SessionState => {
  const transcript = [...(before?.transcript ?? []), ...(patch.append ?? []).map((message) => ({ message }))]
  for (const mark of patch.compacted ?? []) {
    transcript[mark.entry] = { message: transcript[mark.entry]?.message, compactedBy: mark.checkpoint }
  }
  const active = patch.active === undefined
    ? before?.active ?? []
    : [...(before?.active ?? []).slice(0, patch.active.from), ...patch.active.entries]
  return {
    id: session,
    revision: (before?.revision ?? 0) + 1,
    format: before?.format ?? patch.format ?? "auto",
    transcript,
    active,
    checkpoints: [...(before?.checkpoints ?? []), ...(patch.checkpoints ?? [])],
    meta: { ...before?.meta, ...patch.meta } as SessionState["meta"]
  }
}

/** The messages turn `t` (1-based) of the crash script appends: the transcript is their concatenation. */
export const crashTurn = (t: number): ReadonlyArray<Message> =>
  t === 1
    ? [{ role: "system", content: "You fix builds." }, {
      role: "user",
      content: "Fix the build. Never use semicolons."
    }]
    : [
      {
        role: "assistant",
        content: `Reading file ${t}.`,
        toolCalls: [{ id: `c${t}`, name: "read_file", arguments: `{"path":"src/f${t}.ts"}` }]
      },
      { role: "tool", toolCallId: `c${t}`, content: `export const line${t} = ${t}\n`.repeat(90) },
      { role: "user", content: `Step ${t}: go on.` }
    ]

const line = (text: string) => writeSync(1, `${text}\n`)

/** The store, reporting each write's expected outcome before it and the outcome after it. */
const reporting = (inner: SessionStore["Service"]): SessionStore["Service"] => {
  const seen = new Map<string, SessionState>()
  return SessionStore.of({
    load: (session) =>
      Effect.tap(inner.load(session), (state) =>
        Effect.sync(() => {
          if (Option.isSome(state)) seen.set(session, state.value)
        })),
    apply: (session, patch) =>
      Effect.gen(function*() {
        const before = seen.get(session)
        const after = reference(session, before, patch)
        line(`intent ${after.revision} ${digest(before)} ${digest(after)} ${(patch.checkpoints?.length ?? 0) > 0}`)
        const next = yield* inner.apply(session, patch)
        seen.set(session, next)
        line(`commit ${next.revision} ${digest(next)}`)
        return next
      }),
    delete: inner.delete
  })
}

const engineLayer = (filename: string, report: boolean, window: number) => {
  const sqlite = SessionStore.layerSqlite({ filename, busyTimeout: 20_000 })
  const store = report
    ? Layer.effect(SessionStore, Effect.map(SessionStore, reporting)).pipe(Layer.provide(sqlite))
    : sqlite
  return Layer.merge(
    ContextEngine.layer({ format: formats.canonical, window, maxTokens: 256 }).pipe(
      Layer.provide([store, Summarizer.layerExtractive])
    ),
    store
  )
}

const drive = (session: string, count: number, tag: string) =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    for (let i = 0; i < count; i++) {
      yield* engine.prepare<Message>({ session, append: [{ role: "user", content: `${tag}:${i}` }] })
      // No usage: with two processes on one session, the last prepare may be the other process's, and a report
      // paired with another request's estimate would read as a truncation. The observe still writes its audit.
      yield* engine.observe({ session, finishReason: "stop" })
    }
  })

const crash = (session: string) =>
  Effect.gen(function*() {
    const engine = yield* ContextEngine
    const store = yield* SessionStore
    const start = yield* store.load(session)
    line(`ready ${Option.isSome(start) ? start.value.revision : 0} ${digest(Option.getOrUndefined(start))}`)
    for (let turn = Option.isSome(start) ? start.value.meta.turn + 1 : 1;; turn++) {
      const prepared = yield* engine.prepare<Message>({ session, append: crashTurn(turn) })
      yield* engine.observe({ session, usage: { prompt_tokens: prepared.tokens } })
    }
  })

const probe = (file: string, session: string) =>
  Effect.gen(function*() {
    const report: Record<string, unknown> = {}
    const open = yield* Effect.result(Layer.build(SessionStore.layerSqlite({ filename: file, busyTimeout: 300 })))
    if (open._tag === "Failure") {
      report["open"] = { tag: open.failure._tag, reason: open.failure.reason, message: open.failure.message }
      return report
    }
    report["open"] = "ok"
    const store = Context.get(open.success, SessionStore)
    const loaded = yield* Effect.result(store.load(session))
    report["load"] = loaded._tag === "Success"
      ? `ok ${Option.isSome(loaded.success) ? loaded.success.value.revision : "none"}`
      : { tag: loaded.failure._tag, message: loaded.failure.message }
    const revision = loaded._tag === "Success" && Option.isSome(loaded.success) ? loaded.success.value.revision : 0
    const applied = yield* Effect.result(store.apply(session, { revision, meta: { quotes: ["probe"] } }))
    report["apply"] = applied._tag === "Success"
      ? `ok ${applied.success.revision}`
      : { tag: applied.failure._tag, message: applied.failure.message }
    return report
  }).pipe(Effect.scoped)

const [mode, file, session, count, tag] = process.argv.slice(2)
if (file !== undefined && session !== undefined) {
  if (mode === "drive") {
    await Effect.runPromise(
      drive(session, Number(count), tag ?? session).pipe(Effect.provide(engineLayer(file, false, 8192)))
    )
    line("done")
  } else if (mode === "hold") {
    const db = new DatabaseSync(file)
    db.exec("BEGIN IMMEDIATE")
    line("locked")
    setInterval(() => db.isOpen, 60_000)
  } else if (mode === "probe") {
    line(JSON.stringify(await Effect.runPromise(probe(file, session))))
  } else if (mode === "crash") {
    await Effect.runPromise(crash(session).pipe(Effect.provide(engineLayer(file, true, 2048))))
  }
}
