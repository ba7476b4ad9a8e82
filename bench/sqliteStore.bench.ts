/**
 * The SQLite session store's cost per turn on a 10k-message session, against the memory store, in one run:
 *
 * - `apply`: the store alone — one patch appending one message, moving the active tail and changing a meta
 *   field, as a turn's `prepare` does (the SQLite layer: one `BEGIN IMMEDIATE` transaction on a real file in WAL
 *   mode, with the revision check);
 * - `prepare`: the whole engine turn — one `ContextEngine.prepare` appending a user message, with each store.
 *
 * The session is `generateConversation(10_000)` (canonical) with each text cut to 400 characters, in a
 * 2,000,000-token window, as in `engine.bench.ts`: nothing is cleared or compacted, every step runs. The stored
 * session is loaded once; a turn writes only what it changes, so its cost does not grow with the history.
 */
import { approximateCounter } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { ContextEngine, SessionStore, TokenCounter } from "@ctxkit/engine"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { benchSession, instantSummarizer } from "./engineSession.ts"
import { formatNs, formatRatio, type Harness, printTable } from "./harness.ts"

/** Name used for the results file and on the command line. */
export const name = "sqliteStore"

const SIZE = 10_000

/** An engine and its store, built in `scope` (the SQLite connection stays open until the scope closes). */
const build = (store: Layer.Layer<SessionStore, unknown>, scope: Scope.Scope) => {
  const engine = ContextEngine.layer({
    format: formats.canonical,
    window: 2_000_000,
    maxTokens: 8_192,
    hardLimit: { maxContextChars: 100_000_000 }
  }).pipe(Layer.provide([store, instantSummarizer, TokenCounter.layer(approximateCounter)]))
  const context = Effect.runSync(Layer.buildWithScope(Layer.merge(engine, store), scope))
  return { engine: Context.get(context, ContextEngine), store: Context.get(context, SessionStore) }
}

/** Runs the benchmark. */
export const run = (h: Harness): void => {
  const history = benchSession(SIZE)
  const folder = mkdtempSync(join(tmpdir(), "ctxkit-bench-"))
  const scope = Effect.runSync(Scope.make())
  try {
    const stores = [
      ["memory", SessionStore.layerMemory],
      ["sqlite", SessionStore.layerSqlite({ filename: join(folder, "sessions.db") })]
    ] as const
    const built = stores.map(([label, layer]) => ({ label, ...build(layer, scope) }))
    for (const { engine } of built) Effect.runSync(engine.prepare<Message>({ session: "s", append: history }))

    let turn = 0
    const prepareCase = (label: string, engine: ContextEngine["Service"]) => ({
      name: `prepare(${label})`,
      fn: () =>
        Effect.runSync(
          engine.prepare<Message>({
            session: "s",
            append: [{ role: "user", content: `Turn ${turn++}: run the failing test again and report the line.` }]
          })
        ).tokens
    })
    const applyCase = (label: string, store: SessionStore["Service"]) => ({
      name: `apply(${label})`,
      fn: () =>
        Effect.runSync(Effect.gen(function*() {
          const state = Option.getOrThrow(yield* store.load("a"))
          const message: Message = { role: "user", content: `Message ${state.transcript.length}: one more line.` }
          return yield* store.apply("a", {
            revision: state.revision,
            append: [message],
            active: { from: state.active.length, entries: [{ message, origin: state.transcript.length }] },
            meta: { turn: state.meta.turn + 1 }
          })
        })).revision
    })
    // The store alone: a session of SIZE messages, written in one patch.
    for (const { store } of built) {
      Effect.runSync(store.apply("a", {
        revision: 0,
        format: "canonical",
        append: history,
        active: { from: 0, entries: history.map((message, origin) => ({ message, origin })) },
        meta: { ...Option.getOrThrow(Effect.runSync(store.load("s"))).meta, lastAudit: undefined }
      }))
    }
    // The steady state: the JIT has compiled the per-turn path.
    for (const { engine, label, store } of built) {
      for (let i = 0; i < 30; i++) {
        prepareCase(label, engine).fn()
        applyCase(label, store).fn()
      }
    }
    const applied = h.compare({
      title: `${name} @ ${SIZE}: one store.apply appending a message`,
      size: SIZE,
      baseline: "apply(memory)",
      cases: built.map(({ label, store }) => applyCase(label, store))
    })
    const prepared = h.compare({
      title: `${name} @ ${SIZE}: one prepare appending a turn`,
      size: SIZE,
      baseline: "prepare(memory)",
      cases: built.map(({ engine, label }) => prepareCase(label, engine))
    })
    const rows = [["apply", applied], ["prepare", prepared]] as const
    printTable(
      `${name}: cost per turn on a ${SIZE.toLocaleString("en-US")}-message session`,
      [
        "operation",
        "memory",
        "sqlite",
        "sqlite / memory",
        "sqlite share of the prepare"
      ],
      rows.map(([operation, [memory, sqlite]]) => [
        operation,
        formatNs(memory?.medianNs ?? Number.NaN),
        formatNs(sqlite?.medianNs ?? Number.NaN),
        formatRatio((sqlite?.medianNs ?? Number.NaN) / (memory?.medianNs ?? Number.NaN)),
        operation === "prepare"
          ? `${
            (((sqlite?.medianNs ?? Number.NaN) - (memory?.medianNs ?? Number.NaN)) / (sqlite?.medianNs ?? Number.NaN) *
              100).toFixed(1)
          }%`
          : ""
      ])
    )
    const [memoryPrepare, sqlitePrepare] = prepared
    h.log(
      `sqlite prepare / memory prepare: ${
        formatRatio((sqlitePrepare?.medianNs ?? Number.NaN) / (memoryPrepare?.medianNs ?? Number.NaN))
      }`,
      true
    )
  } finally {
    Effect.runSync(Scope.close(scope, Exit.void))
    rmSync(folder, { recursive: true, force: true })
  }
}
