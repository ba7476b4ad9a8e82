/**
 * The session store contract, run against both layers (memory and SQLite), and what only the SQLite layer
 * has: the file reopened, the engine continued from it, bad options, and bad files in this process (a file that
 * is not a database, a newer schema). The files other processes make unusable: `SqliteProcesses.test.ts`.
 */
import { makeUsageLedger, uncalibrated } from "@ctxkit/budget"
import { Summarizer } from "@ctxkit/compaction"
import { formats, type Message } from "@ctxkit/core"
import { OverflowDetector } from "@ctxkit/overflow"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import fc from "fast-check"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { runs } from "../../../tests/runs.ts"
import { ContextEngine, SessionStore } from "../src/index.ts"
import type { SessionMeta, SessionPatch, SessionState } from "../src/SessionStore.ts"
import { digest, reference } from "./SqliteEngineChild.ts"
import { sqliteStore, storeLayers } from "./storeLayers.ts"

const meta: SessionMeta = {
  turn: 0,
  detector: OverflowDetector.initial({ counter: { id: "approximate-chars-v1", approximate: true } }),
  ledger: makeUsageLedger(),
  calibration: uncalibrated,
  charsAfterLastAutoCompaction: 0,
  quotes: [],
  elided: []
}

const user = (content: string): Message => ({ role: "user", content })

const inFolder = <A>(f: (folder: string) => Promise<A>): Promise<A> => {
  const folder = mkdtempSync(join(tmpdir(), "ctxkit-store-"))
  return f(folder).finally(() => rmSync(folder, { recursive: true, force: true }))
}

const withStore = <A, E>(store: Layer.Layer<SessionStore, unknown>, program: Effect.Effect<A, E, SessionStore>) =>
  Effect.runPromise(program.pipe(Effect.provide(store)))

const load = (session: string) =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    return Option.getOrUndefined(yield* store.load(session))
  })

/**
 * A random valid patch for `state`, from `pick` (a source of numbers in [0, 1)): appends, an active tail
 * replaced from a random index with entries naming stored (or new) origins, a checkpoint, compaction marks and
 * changed meta fields.
 */
const randomPatch = (state: SessionState | undefined, pick: () => number, step: number): SessionPatch => {
  const int = (n: number) => Math.floor(pick() * n)
  const append = Array.from({ length: int(4) }, (_, i) => user(`m${step}.${i} ${"x".repeat(int(40))}`))
  const transcript = (state?.transcript.length ?? 0) + append.length
  const checkpoints = pick() < 0.3
    ? [{
      message: { ...user(`summary ${step}`), summary: true },
      replaces: [0],
      reason: "auto" as const,
      structured: true
    }]
    : []
  const checkpointCount = (state?.checkpoints.length ?? 0) + checkpoints.length
  const messageOf = (origin: number): unknown =>
    origin >= 0
      ? (origin < (state?.transcript.length ?? 0)
        ? state?.transcript[origin]?.message
        : append[origin - (state?.transcript.length ?? 0)])
      : (-origin - 1 < (state?.checkpoints.length ?? 0)
        ? state?.checkpoints[-origin - 1]?.message
        : checkpoints[0]?.message)
  const from = int((state?.active.length ?? 0) + 1)
  const entries = Array.from({ length: int(4) }, () => {
    const origin = checkpointCount > 0 && pick() < 0.2 ? -(int(checkpointCount) + 1) : int(Math.max(1, transcript))
    // The message itself (stored once), or a rewritten copy (a cleared or reduced version).
    const message = pick() < 0.7 ? messageOf(origin) : { ...user(`rewritten ${origin}`), note: [step, null] }
    return { message, origin }
  }).filter((entry) => entry.origin < transcript)
  const compacted = checkpointCount > 0 && transcript > 0 && pick() < 0.4
    ? [{ entry: int(transcript), checkpoint: int(checkpointCount) }]
    : []
  const changes: Partial<SessionMeta> = {
    turn: step,
    ...(pick() < 0.5 ? { quotes: [`quote ${step}`] } : {}),
    ...(pick() < 0.3 ? { lastChanceTurn: pick() < 0.5 ? undefined : step } : {}),
    ...(pick() < 0.3 ? { learnedWindow: { tokens: 1000 + step, source: "test" } } : {})
  }
  return {
    revision: state?.revision ?? 0,
    format: "canonical",
    append,
    active: { from, entries },
    checkpoints,
    compacted,
    meta: state === undefined ? { ...meta, ...changes } : changes
  }
}

const pickFrom = (numbers: ReadonlyArray<number>) => {
  let i = 0
  return () => numbers[i++ % numbers.length] ?? 0
}

describe.each(storeLayers)("the SessionStore contract: $name", ({ store }) => {
  it("a new session: revision 1, each part of the patch, and load gives it back", async () => {
    const first = user("hello")
    const out = await withStore(
      store,
      Effect.gen(function*() {
        const s = yield* SessionStore
        const none = yield* s.load("s")
        const applied = yield* s.apply("s", {
          revision: 0,
          format: "canonical",
          append: [first],
          active: { from: 0, entries: [{ message: first, origin: 0 }] },
          meta
        })
        return { none, applied, loaded: yield* load("s") }
      })
    )
    assert.isTrue(Option.isNone(out.none))
    assert.strictEqual(out.applied.revision, 1)
    assert.strictEqual(out.applied.format, "canonical")
    assert.deepStrictEqual(out.applied.transcript, [{ message: first }])
    assert.strictEqual(digest(out.loaded), digest(out.applied))
    assert.strictEqual(out.loaded?.meta.turn, 0)
  })

  it("a stale revision is SessionConflict, and nothing changes", async () => {
    const out = await withStore(
      store,
      Effect.gen(function*() {
        const s = yield* SessionStore
        yield* s.apply("s", { revision: 0, append: [user("a")], meta })
        const before = yield* load("s")
        const stale = yield* Effect.flip(s.apply("s", { revision: 0, append: [user("b")], meta }))
        const ahead = yield* Effect.flip(s.apply("s", { revision: 5, append: [user("c")] }))
        return { before, stale, ahead, after: yield* load("s") }
      })
    )
    assert.deepStrictEqual([out.stale._tag, out.ahead._tag], ["SessionConflict", "SessionConflict"])
    assert.include(out.stale.message, "revision 0 expected, 1 found")
    assert.strictEqual(digest(out.after), digest(out.before))
  })

  it("a patch that names nothing stored is SessionStoreError, and nothing changes", async () => {
    const bad: ReadonlyArray<[SessionPatch, string]> = [
      [{ revision: 1, active: { from: 5, entries: [] } }, "active.from 5 is outside 0–1"],
      [{ revision: 1, active: { from: 0, entries: [{ message: user("x"), origin: 3 }] } }, "active origin 3"],
      [{ revision: 1, active: { from: 0, entries: [{ message: user("x"), origin: -1 }] } }, "active origin -1"],
      [{ revision: 1, compacted: [{ entry: 0, checkpoint: 0 }] }, "compacted mark 0 → 0"]
    ]
    const out = await withStore(
      store,
      Effect.gen(function*() {
        const s = yield* SessionStore
        const firstMessage = user("a")
        yield* s.apply("s", {
          revision: 0,
          append: [firstMessage],
          active: { from: 0, entries: [{ message: firstMessage, origin: 0 }] },
          meta
        })
        const before = yield* load("s")
        const errors = []
        for (const [patch] of bad) errors.push(yield* Effect.flip(s.apply("s", patch)))
        const noMeta = yield* Effect.flip(s.apply("t", { revision: 0, append: [user("a")] }))
        return { before, errors, noMeta, after: yield* load("s"), t: yield* load("t") }
      })
    )
    out.errors.forEach((error, i) => {
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.include(error.message, bad[i]?.[1] ?? "")
    })
    assert.include(out.noMeta.message, "a new session needs its meta")
    assert.strictEqual(digest(out.after), digest(out.before))
    assert.isUndefined(out.t)
  })

  it("sessions never see each other's data; delete removes one, its rows and nothing else", async () => {
    const out = await withStore(
      store,
      Effect.gen(function*() {
        const s = yield* SessionStore
        yield* s.apply("a", { revision: 0, append: [user("for a")], meta: { ...meta, quotes: ["a's"] } })
        yield* s.apply("b", { revision: 0, append: [user("for b")], meta })
        yield* s.apply("a", { revision: 1, append: [user("more for a")] })
        const b = yield* load("b")
        yield* s.delete("a")
        const again = yield* s.apply("a", { revision: 0, append: [user("new a")], meta })
        return { b, again, bAfter: yield* load("b"), gone: yield* load("nobody") }
      })
    )
    assert.deepStrictEqual(out.b?.transcript.map((e) => (e.message as Message).content), ["for b"])
    assert.deepStrictEqual(out.b?.meta.quotes, [])
    assert.strictEqual(digest(out.bAfter), digest(out.b))
    assert.deepStrictEqual(out.again.transcript.map((e) => (e.message as Message).content), ["new a"])
    assert.deepStrictEqual(out.again.meta.quotes, [])
    assert.strictEqual(out.again.revision, 1)
    assert.isUndefined(out.gone)
  })

  it("property: any sequence of valid patches gives the state the patch rules say, loaded back the same", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 20 }), async (numbers) => {
        const pick = pickFrom(numbers)
        await withStore(
          store,
          Effect.gen(function*() {
            const s = yield* SessionStore
            let expected: SessionState | undefined
            for (let step = 1; step <= 6; step++) {
              const patch = randomPatch(expected, pick, step)
              const got = yield* s.apply("s", patch)
              expected = reference("s", expected, patch)
              assert.strictEqual(digest(got), digest(expected))
              assert.strictEqual(digest(yield* load("s")), digest(expected))
            }
          })
        )
      }),
      { numRuns: runs.few }
    )
  })
})

describe("the SQLite file", () => {
  it("property: a fresh open of the file reads every session as the writer left it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 20 }), async (numbers) => {
        const pick = pickFrom(numbers)
        let file = ""
        const written = await withStore(
          sqliteStore((f) => (file = f)),
          Effect.gen(function*() {
            const s = yield* SessionStore
            let state: SessionState | undefined
            for (let step = 1; step <= 5; step++) state = yield* s.apply("s", randomPatch(state, pick, step))
            // The layer is still open (and holds its folder): reopen with a second layer on the same file.
            const reread = yield* Effect.provide(load("s"), SessionStore.layerSqlite({ filename: file }))
            return { state, reread }
          })
        )
        assert.strictEqual(digest(written.reread), digest(written.state))
        // An active entry that is its origin's message is that message after the reopen too (stored once).
        written.state?.active.forEach((entry, i) => {
          const source = entry.origin >= 0
            ? written.state?.transcript[entry.origin]?.message
            : written.state?.checkpoints[-entry.origin - 1]?.message
          const reread = written.reread?.active[i]
          const rereadSource = reread === undefined
            ? undefined
            : reread.origin >= 0
            ? written.reread?.transcript[reread.origin]?.message
            : written.reread?.checkpoints[-reread.origin - 1]?.message
          assert.strictEqual(entry.message === source, reread?.message === rereadSource)
        })
      }),
      { numRuns: runs.few }
    )
  })

  it("the engine continued on a reopened file answers as one that never stopped", async () => {
    const summarizer = Layer.succeed(
      Summarizer,
      Summarizer.of({
        summarize: () => Effect.succeed({ text: "{\"checkpoint\":{\"goal\":\"g\"}}", finishReason: "stop" })
      })
    )
    const turn = (i: number): ReadonlyArray<Message> => [
      { role: "assistant", content: `Reading ${i}.`, toolCalls: [{ id: `c${i}`, name: "read", arguments: "{}" }] },
      { role: "tool", toolCallId: `c${i}`, content: `line ${i}\n`.repeat(250) },
      user(`Next ${i}. Never use semicolons.`)
    ]
    const turns = (store: Layer.Layer<SessionStore, unknown>, from: number, to: number) => {
      const engine = ContextEngine.layer({ format: formats.canonical, window: 4096, maxTokens: 512 }).pipe(
        Layer.provide([store, summarizer])
      )
      return Effect.runPromise(
        Effect.gen(function*() {
          const e = yield* ContextEngine
          const out: Array<unknown> = []
          for (let i = from; i < to; i++) {
            const append = i === 0 ? [{ role: "system", content: "sys" } as Message, user("go")] : turn(i)
            const prepared = yield* e.prepare<Message>({ session: "s", append })
            yield* e.observe({ session: "s", usage: { prompt_tokens: prepared.tokens } })
            out.push(JSON.parse(JSON.stringify(prepared.messages)))
          }
          const state = Option.getOrThrow(yield* (yield* SessionStore).load("s"))
          return { out, checkpoints: state.checkpoints.length, state }
        }).pipe(Effect.provide(Layer.merge(engine, store)))
      )
    }
    const memory = await turns(SessionStore.layerMemory, 0, 14)
    const resumed = await inFolder(async (folder) => {
      const filename = join(folder, "s.db")
      const first = await turns(SessionStore.layerSqlite({ filename }), 0, 7)
      const second = await turns(SessionStore.layerSqlite({ filename }), 7, 14)
      // The whole session, its last audit with the request it sent included, read back as it was written.
      const reread = await withStore(SessionStore.layerSqlite({ filename }), load("s"))
      assert.strictEqual(digest(reread), digest(second.state))
      assert.isAbove(reread?.meta.lastAudit?.messages.length ?? 0, 10)
      return { out: [...first.out, ...second.out], checkpoints: second.checkpoints }
    })
    assert.deepStrictEqual(resumed, { out: memory.out, checkpoints: memory.checkpoints })
    // The run compacted.
    assert.isAtLeast(memory.checkpoints, 1)
  })
})

describe("bad options and bad files: SessionStoreUnavailable, with the fix, and the file untouched", () => {
  const openError = (options: unknown) =>
    Effect.runPromise(
      Effect.flip(Layer.build(SessionStore.layerSqlite(options as { filename: string }))).pipe(Effect.scoped)
    )

  it("bad options are refused before any file is touched", async () => {
    const cases: ReadonlyArray<[unknown, string]> = [
      [{}, "filename"],
      [{ filename: "" }, "filename"],
      [{ filename: 42 }, "filename"],
      [null, "options"],
      [{ filename: "x.db", busyTimeout: -1 }, "busyTimeout"],
      [{ filename: "x.db", busyTimeout: 1.5 }, "busyTimeout"],
      [{ filename: "x.db", busyTimeout: Number.NaN }, "busyTimeout"],
      [{ filename: "x.db", busyTimeout: "5000" }, "busyTimeout"]
    ]
    for (const [options, names] of cases) {
      const error = await openError(options)
      assert.strictEqual(error._tag, "SessionStoreUnavailable")
      assert.strictEqual(error.reason, "InvalidOptions")
      assert.include(error.message, names === "options" ? "bad options" : names)
      assert.include(error.message, "pass { filename: \"<path of the database file>\" }")
    }
    assert.throws(() => readFileSync("x.db"))
  })

  it("a file that is not a database: ConnectionError, says to move it away, and its bytes are kept", async () => {
    await inFolder(async (folder) => {
      const file = join(folder, "notes.db")
      writeFileSync(file, "These are my notes, not a database. ".repeat(40))
      const bytes = readFileSync(file)
      const error = await openError({ filename: file })
      assert.strictEqual(error.reason, "ConnectionError")
      assert.strictEqual(
        error.message,
        `SessionStore.layerSqlite cannot use ${file}: ${file} is not a SQLite database: point filename at a database file (or a new path), or move this file away. Nothing was read or written.`
      )
      assert.isTrue(readFileSync(file).equals(bytes))
    })
  })

  it("a database of a newer schema: SchemaTooNew, says to upgrade, and its sessions are kept as they are", async () => {
    await inFolder(async (folder) => {
      const filename = join(folder, "newer.db")
      await withStore(
        SessionStore.layerSqlite({ filename }),
        Effect.gen(function*() {
          const s = yield* SessionStore
          yield* s.apply("s", { revision: 0, append: [user("kept")], meta })
        })
      )
      const db = new DatabaseSync(filename)
      db.exec("INSERT INTO ctxkit_schema (version, name) VALUES (2, 'from a newer ctxkit')")
      const rows = () => JSON.stringify(db.prepare("SELECT * FROM ctxkit_transcript").all())
      const before = rows()
      const error = await openError({ filename })
      assert.strictEqual(error.reason, "SchemaTooNew")
      assert.strictEqual(
        error.message,
        `SessionStore.layerSqlite cannot use ${filename}: the database's schema is version 2 (table ctxkit_schema), newer than the 1 this ctxkit knows: upgrade ctxkit, or use another file. Nothing was read or written.`
      )
      assert.strictEqual(rows(), before)
      assert.deepStrictEqual(
        db.prepare("SELECT version FROM ctxkit_schema ORDER BY version").all().map((r) => r["version"]),
        [1, 2]
      )
      db.close()
    })
  })

  it("a message JSON cannot hold: SessionStoreError naming it, and the session as it was", async () => {
    const out = await withStore(
      sqliteStore(),
      Effect.gen(function*() {
        const s = yield* SessionStore
        yield* s.apply("s", { revision: 0, append: [user("fine")], meta })
        const before = yield* load("s")
        const error = yield* Effect.flip(s.apply("s", { revision: 1, append: [user("ok"), { content: 1n }] }))
        return { before, error, after: yield* load("s") }
      })
    )
    assert.strictEqual(out.error._tag, "SessionStoreError")
    assert.include(out.error.message, "append[1] cannot be stored as JSON")
    assert.strictEqual(digest(out.after), digest(out.before))
  })
})
