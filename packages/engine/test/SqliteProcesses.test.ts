/**
 * The SQLite store across processes: two engines on one file, the crash test (L16: SIGKILL at random points
 * during compactions, the file reopened each time), and the files another process makes unusable (read-only,
 * locked).
 */
import { formats, type Message } from "@ctxkit/core"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runs } from "../../../tests/runs.ts"
import { ContextEngine, SessionStore, Summarizer } from "../src/index.ts"
import type { SessionState } from "../src/SessionStore.ts"
import { bundleChild, run, start } from "./SqliteChildren.ts"
import { crashTurn, digest } from "./SqliteEngineChild.ts"

let child: Awaited<ReturnType<typeof bundleChild>>
const folders: Array<string> = []

const folder = (): string => {
  const path = mkdtempSync(join(tmpdir(), "ctxkit-sqlite-"))
  // Readable by every user: the read-only test runs its child as another one.
  chmodSync(path, 0o755)
  folders.push(path)
  return path
}

beforeAll(async () => {
  child = await bundleChild()
}, 300_000)

afterAll(() => {
  child?.remove()
  for (const path of folders) rmSync(path, { recursive: true, force: true })
})

/** The session as a fresh process would see it: the file opened again, read, closed. */
const reopen = (filename: string, session: string): Promise<SessionState | undefined> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* SessionStore
      return Option.getOrUndefined(yield* store.load(session))
    }).pipe(Effect.provide(SessionStore.layerSqlite({ filename })))
  )

const contents = (state: SessionState | undefined): ReadonlyArray<string> =>
  (state?.transcript ?? []).map((entry) => String((entry.message as Message).content))

describe("two engine processes on one file", () => {
  it("one session: every append once, each process's in its order, no lost update", async () => {
    const file = join(folder(), "shared.db")
    const first: ReadonlyArray<Message> = [{ role: "system", content: "sys" }, { role: "user", content: "start" }]
    await Effect.runPromise(
      Effect.gen(function*() {
        const engine = yield* ContextEngine
        yield* engine.prepare<Message>({ session: "s", append: first })
      }).pipe(Effect.provide(
        ContextEngine.layer({ format: formats.canonical, window: 8192, maxTokens: 256 }).pipe(
          Layer.provide([SessionStore.layerSqlite({ filename: file }), Summarizer.layerExtractive])
        )
      ))
    )
    const turns = 25
    const outputs = await Promise.all([
      run(child.script, ["drive", file, "s", String(turns), "a"]),
      run(child.script, ["drive", file, "s", String(turns), "b"])
    ])
    assert.deepStrictEqual(outputs, [["done"], ["done"]])
    const state = await reopen(file, "s")
    const all = contents(state)
    const expected = (tag: string) => Array.from({ length: turns }, (_, i) => `${tag}:${i}`)
    assert.deepStrictEqual(all.slice(0, 2), ["sys", "start"])
    assert.deepStrictEqual(all.filter((text) => text.startsWith("a:")), expected("a"))
    assert.deepStrictEqual(all.filter((text) => text.startsWith("b:")), expected("b"))
    assert.strictEqual(all.length, 2 + 2 * turns)
    // One revision per call and one turn per prepare: a lost update would leave fewer.
    assert.strictEqual(state?.revision, 1 + 2 * 2 * turns)
    assert.strictEqual(state?.meta.turn, 1 + 2 * turns)
    // The active history is the transcript in its order (nothing was compacted in a window this large).
    assert.deepStrictEqual(state?.active.map((entry) => entry.origin), all.map((_, i) => i))
  }, 300_000)

  it("two sessions: each sees only its own messages", async () => {
    const file = join(folder(), "sessions.db")
    const turns = 20
    await Promise.all([
      run(child.script, ["drive", file, "x", String(turns), "x"]),
      run(child.script, ["drive", file, "y", String(turns), "y"])
    ])
    for (const session of ["x", "y"]) {
      const state = await reopen(file, session)
      assert.deepStrictEqual(contents(state), Array.from({ length: turns }, (_, i) => `${session}:${i}`))
      assert.strictEqual(state?.revision, 2 * turns)
    }
  }, 300_000)
})

/** A small seeded generator: the kill delays are random but a failure can be replayed from its seed. */
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

interface LaneFigures {
  readonly kills: number
  /** Kills that landed while a write was under way (after its intent, before its commit was reported). */
  readonly duringWrite: number
  /** Of those: the file held the state before the write, or after it. */
  readonly before: number
  readonly after: number
  /** Of the writes under way, the ones that were compactions. */
  readonly duringCompaction: number
  /** Writes committed in all, and compactions among them. */
  readonly commits: number
  readonly compactions: number
}

/** One file, one session, `kills` children each killed at a random moment; every reopen checked. */
const crashLane = async (file: string, kills: number, seed: number): Promise<LaneFigures> => {
  const next = random(seed)
  let stored = digest(undefined)
  let figures = { kills, duringWrite: 0, before: 0, after: 0, duringCompaction: 0, commits: 0, compactions: 0 }
  for (let k = 0; k < kills; k++) {
    const running = start(child.script, ["crash", file, "s"])
    const ready = await running.waitFor("ready ")
    // The child reads what the last reopen read.
    assert.strictEqual(ready.split(" ")[2], stored, `seed ${seed}, kill ${k}: the child started from another state`)
    // Half the kills at a random moment of the run; half a few milliseconds into a compaction's write.
    if (k % 2 === 1) await running.waitFor("intent ", (line) => line.endsWith(" true"))
    await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * (k % 2 === 1 ? 4 : 600))))
    running.process.kill("SIGKILL")
    const end = await running.exited
    assert.strictEqual(end.code, null, `seed ${seed}, kill ${k}: the child ended by itself: ${end.stderr}`)

    let committed = stored
    let pending: { readonly revision: number; readonly after: string; readonly compacts: boolean } | undefined
    for (const line of running.lines.slice(1)) {
      const [kind, revision, a, b, compacts] = line.split(" ")
      if (kind === "intent") {
        assert.strictEqual(a, committed, `seed ${seed}, kill ${k}: a write started from a state not stored`)
        pending = { revision: Number(revision), after: b ?? "", compacts: compacts === "true" }
      } else if (kind === "commit") {
        // What the store returned is what the patch rules say.
        assert.strictEqual(a, pending?.after, `seed ${seed}, kill ${k}: revision ${revision} is not its patch`)
        assert.strictEqual(Number(revision), pending?.revision)
        figures = {
          ...figures,
          commits: figures.commits + 1,
          compactions: figures.compactions + (pending?.compacts === true ? 1 : 0)
        }
        committed = a ?? ""
        pending = undefined
      }
    }

    const state = await reopen(file, "s")
    const found = digest(state)
    if (pending === undefined) {
      assert.strictEqual(found, committed, `seed ${seed}, kill ${k}: the file is not the last committed state`)
    } else {
      assert.include(
        [committed, pending.after],
        found,
        `seed ${seed}, kill ${k}: killed during a write, the file is neither before nor after it`
      )
      const after = found === pending.after
      figures = {
        ...figures,
        duringWrite: figures.duringWrite + 1,
        before: figures.before + (after ? 0 : 1),
        after: figures.after + (after ? 1 : 0),
        duringCompaction: figures.duringCompaction + (pending.compacts ? 1 : 0)
      }
    }
    // Nothing appended is lost: the transcript is every scripted turn's messages, in order.
    const turns = state?.meta.turn ?? 0
    const script = Array.from({ length: turns }, (_, t) => crashTurn(t + 1)).flat().map((m) => String(m.content))
    assert.deepStrictEqual(contents(state), script, `seed ${seed}, kill ${k}: the transcript is not the script`)
    stored = found
  }
  return figures
}

/** Kills in all (L16 asks for at least 200; a deep run, `CTXKIT_PROPERTY_RUNS=1000`, kills more), on four files. */
const KILLS = Math.max(200, runs.more - (runs.more % 4))
const LANES = 4

describe("the crash test (L16)", () => {
  it(
    `${KILLS} SIGKILLs at random moments during compactions: each reopen finds the state before or after the step`,
    async () => {
      const began = Date.now()
      const seed = began >>> 0
      const base = folder()
      const lanes = await Promise.all(
        Array.from({ length: LANES }, (_, i) => crashLane(join(base, `crash-${i}.db`), KILLS / LANES, seed + i))
      )
      const sum = (key: keyof LaneFigures) => lanes.reduce((total, lane) => total + lane[key], 0)
      assert.strictEqual(sum("kills"), KILLS)
      assert.strictEqual(sum("before") + sum("after"), sum("duringWrite"))
      if (process.env["CTXKIT_CRASH_FIGURES"] !== undefined) {
        writeFileSync(
          process.env["CTXKIT_CRASH_FIGURES"],
          JSON.stringify({ seed, lanes, seconds: (Date.now() - began) / 1000 })
        )
      }
      // Every other kill waited for a compaction's write: that compaction was either committed or under way.
      assert.isAtLeast(sum("compactions") + sum("duringCompaction"), KILLS / 2, `seed ${seed}`)
      assert.isAbove(sum("duringWrite"), 0, `seed ${seed}`)
    },
    1_800_000
  )
})

// As root, permissions do not stop a write, so the read-only case runs its child as `nobody`. That needs `nobody` to
// be able to run this Node binary: not so when the checkout sits in a private folder (e.g. a `mktemp -d` clone).
const NOBODY = 65_534
const asRoot = process.getuid?.() === 0
const nobodyRunsNode = !asRoot ||
  spawnSync(process.execPath, ["-e", "0"], { uid: NOBODY, gid: NOBODY, stdio: "ignore" }).status === 0

describe("files another process makes unusable", () => {
  const seeded = async (file: string) => {
    await run(child.script, ["drive", file, "s", "2", "kept"])
    return reopen(file, "s")
  }

  // Skipped (and named so) where running as root and `nobody` cannot execute the Node binary of this checkout.
  it.skipIf(!nobodyRunsNode)(
    "a read-only file: SessionStoreUnavailable (AuthorizationError) that says to make it writable; untouched",
    async () => {
      const dir = folder()
      const file = join(dir, "readonly.db")
      const before = await seeded(file)
      chmodSync(file, 0o444)
      chmodSync(dir, 0o555)
      const bytes = readFileSync(file)
      // As root, permissions do not stop a write: the child runs as `nobody`, for whom the file is read-only.
      const uid = asRoot ? NOBODY : undefined
      const [line] = await run(child.script, ["probe", file, "s"], { uid })
      chmodSync(dir, 0o755)
      assert.deepStrictEqual(JSON.parse(line ?? "{}"), {
        open: {
          tag: "SessionStoreUnavailable",
          reason: "AuthorizationError",
          message:
            `SessionStore.layerSqlite cannot use ${file}: ${file} is read-only (file or folder permissions, a read-only mount, or opened with readonly): make it writable, or use another file. Nothing was read or written.`
        }
      })
      assert.isTrue(readFileSync(file).equals(bytes))
      chmodSync(file, 0o644)
      assert.strictEqual(digest(await reopen(file, "s")), digest(before))
    },
    300_000
  )

  it("a file another process keeps locked: typed errors after busyTimeout, then the session as it was", async () => {
    const file = join(folder(), "locked.db")
    const before = await seeded(file)
    const message =
      `${file} is locked: another connection held its write lock for more than 300 ms; retry, raise busyTimeout, or stop the other writer`
    let holder: ReturnType<typeof start> | undefined
    const during = await Effect.runPromise(
      Effect.gen(function*() {
        // A store opened before the lock is taken.
        const store = yield* SessionStore
        holder = start(child.script, ["hold", file, "s"])
        const locked = holder
        yield* Effect.promise(() => locked.waitFor("locked"))
        // A store opened now cannot even open: the schema check is a transaction, so it needs the write lock.
        const [line] = yield* Effect.promise(() => run(child.script, ["probe", file, "s"]))
        // Reads go on (WAL); a write is a SessionStoreError that says what to do.
        const loaded = Option.getOrThrow(yield* store.load("s"))
        const error = yield* Effect.flip(store.apply("s", { revision: loaded.revision, meta: { quotes: ["lost?"] } }))
        return { line, loaded, error }
      }).pipe(Effect.provide(SessionStore.layerSqlite({ filename: file, busyTimeout: 300 })))
    ).finally(() => holder?.process.kill("SIGKILL"))
    await holder?.exited
    assert.deepStrictEqual(JSON.parse(during.line ?? "{}"), {
      open: {
        tag: "SessionStoreUnavailable",
        reason: "LockTimeoutError",
        message: `SessionStore.layerSqlite cannot use ${file}: ${message}. Nothing was read or written.`
      }
    })
    assert.strictEqual(digest(during.loaded), digest(before))
    assert.strictEqual(during.error._tag, "SessionStoreError")
    assert.strictEqual(
      during.error.message,
      `The session store failed to apply session "s" (${message}). The session is as it was before this call: retry the same call once the store is reachable.`
    )
    assert.strictEqual(digest(await reopen(file, "s")), digest(before))
  }, 300_000)
})
