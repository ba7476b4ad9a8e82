import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { SqlClient, SqlError } from "effect/sql"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { fileURLToPath } from "node:url"
import { layerSqlite, migrate, type Migration, SchemaTooNew } from "../src/internal/sqlite.ts"
import { increment } from "./SqliteWriter.ts"

/** A fresh folder for one test's database files, removed afterwards. */
const folder = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "ctxkit-sqlite-"))),
  (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
)

class Boom extends Schema.TaggedError<Boom>()("Boom", {}) {}

interface Row {
  readonly id: number
  readonly name: string
  readonly done: number
}

const names = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<Row>`SELECT id, name, done FROM runs ORDER BY id`, (rows) => rows.map((row) => row.name))

const reason = (error: unknown): { readonly tag: string; readonly message: string } =>
  SqlError.isSqlError(error) ?
    { tag: error.reason._tag, message: error.message } :
    { tag: "not a SqlError", message: String(error) }

describe("node:sqlite SqlClient", () => {
  it.effect("statements: insert, select with bound parameters, update, values", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "runs.db")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, done INTEGER NOT NULL)`
        yield* sql`INSERT INTO runs ${sql.insert([{ name: "first", done: false }, { name: "second", done: true }])}`
        const done = yield* sql<Row>`SELECT id, name, done FROM runs WHERE done = ${true}`
        assert.deepStrictEqual(done.map((row) => ({ ...row })), [{ id: 2, name: "second", done: 1 }])
        yield* sql`UPDATE runs SET ${sql.update({ name: "renamed" })} WHERE id = ${1}`
        assert.deepStrictEqual(yield* names(sql), ["renamed", "second"])
        assert.deepStrictEqual(yield* sql`SELECT count(*), max(id) FROM runs`.values, [[2, 2]])
      }).pipe(Effect.provide(layerSqlite({ filename: file })))
      // The data is in the file: a new connection reads it back.
      const again = yield* SqlClient.SqlClient.pipe(
        Effect.flatMap(names),
        Effect.provide(layerSqlite({ filename: file }))
      )
      assert.deepStrictEqual(again, ["renamed", "second"])
    })))

  it.effect("transactions: commit, rollback on failure, a nested savepoint rolled back alone", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "tx.db")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)`
        yield* sql.withTransaction(sql`INSERT INTO runs ${sql.insert({ name: "committed" })}`)
        const failed = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO runs ${sql.insert({ name: "rolled back" })}`
          assert.deepStrictEqual(yield* names(sql), ["committed", "rolled back"])
          return yield* new Boom()
        })).pipe(Effect.flip)
        assert.strictEqual(failed._tag, "Boom")
        assert.deepStrictEqual(yield* names(sql), ["committed"])
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO runs ${sql.insert({ name: "outer" })}`
          yield* sql.withTransaction(Effect.andThen(sql`INSERT INTO runs ${sql.insert({ name: "inner" })}`, new Boom()))
            .pipe(Effect.ignore)
        }))
        assert.deepStrictEqual(yield* names(sql), ["committed", "outer"])
      }).pipe(Effect.provide(layerSqlite({ filename: file })))
    })))

  it.effect("several statements in one string are refused, not half run", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "several.db")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const error = yield* sql.unsafe("CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER)").pipe(Effect.flip)
        assert.strictEqual(reason(error).tag, "SqlSyntaxError")
        assert.include(reason(error).message, "several statements in one string")
        // One statement with a trailing semicolon and a comment is one statement.
        yield* sql.unsafe("CREATE TABLE c (z INTEGER); -- the only one")
        const tables = yield* sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
        assert.deepStrictEqual(tables.map((row) => row.name), ["c"])
      }).pipe(Effect.provide(layerSqlite({ filename: file })))
    })))

  it.effect("WAL: the journal mode is wal, with its -wal file beside the database", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "wal.db")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (x INTEGER)`
        yield* sql`INSERT INTO t VALUES (1)`
        const mode = yield* sql<{ readonly journal_mode: string }>`PRAGMA journal_mode`
        assert.strictEqual(mode[0]?.journal_mode, "wal")
        assert.isTrue(existsSync(`${file}-wal`))
      }).pipe(Effect.provide(layerSqlite({ filename: file })))
    })))
})

const migrations: ReadonlyArray<Migration> = [
  { version: 1, name: "sessions", up: (sql) => sql`CREATE TABLE sessions (id TEXT PRIMARY KEY)`.pipe(Effect.asVoid) },
  {
    version: 2,
    name: "messages",
    up: (sql) => sql`CREATE TABLE messages (session TEXT NOT NULL, body TEXT NOT NULL)`.pipe(Effect.asVoid)
  }
]

describe("versioned migrations", () => {
  it.effect("applies what is missing, once, in order; a newer database is SchemaTooNew", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "migrate.db")
      const run = (list: ReadonlyArray<Migration>) =>
        migrate(list).pipe(Effect.provide(layerSqlite({ filename: file })), Effect.exit)
      assert.deepStrictEqual(
        yield* run([migrations[1], migrations[0]]),
        Exit.succeed({ from: 0, to: 2, applied: [1, 2] })
      )
      assert.deepStrictEqual(yield* run(migrations), Exit.succeed({ from: 2, to: 2, applied: [] }))
      const third: Migration = {
        version: 3,
        name: "checkpoints",
        up: (sql) => sql`CREATE TABLE checkpoints (session TEXT NOT NULL)`.pipe(Effect.asVoid)
      }
      assert.deepStrictEqual(yield* run([...migrations, third]), Exit.succeed({ from: 2, to: 3, applied: [3] }))
      const error = yield* migrate(migrations).pipe(Effect.provide(layerSqlite({ filename: file })), Effect.flip)
      assert.instanceOf(error, SchemaTooNew)
      assert.strictEqual(
        error.message,
        "the database's schema is version 3 (table ctxkit_schema), newer than the 2 this ctxkit knows: upgrade ctxkit, or use another file"
      )
    })))

  it.effect("a failing migration leaves the schema as it was: no table, no version", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "broken.db")
      const broken: Migration = {
        version: 2,
        name: "broken",
        up: (sql) =>
          sql`CREATE TABLE half (x INTEGER)`.pipe(Effect.andThen(sql`INSERT INTO nowhere VALUES (1)`), Effect.asVoid)
      }
      const failed = yield* migrate([migrations[0], broken]).pipe(
        Effect.provide(layerSqlite({ filename: file })),
        Effect.flip
      )
      assert.isTrue(SqlError.isSqlError(failed))
      const db = new DatabaseSync(file)
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
      db.close()
      assert.deepStrictEqual(tables.map((row) => row["name"]), [])
    })))
})

describe("bad files: typed errors that say what to do", () => {
  it.effect("a file that is not a database fails at open", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "notes.db")
      writeFileSync(file, "These are my notes, not a database. ".repeat(40))
      const error = yield* SqlClient.SqlClient.pipe(Effect.provide(layerSqlite({ filename: file })), Effect.flip)
      assert.deepStrictEqual(reason(error), {
        tag: "ConnectionError",
        message:
          `${file} is not a SQLite database: point filename at a database file (or a new path), or move this file away`
      })
    })))

  it.effect("a folder that does not exist", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "missing", "store.db")
      const error = yield* SqlClient.SqlClient.pipe(Effect.provide(layerSqlite({ filename: file })), Effect.flip)
      assert.deepStrictEqual(reason(error), {
        tag: "ConnectionError",
        message: `cannot open ${file}: check that its folder exists and is writable`
      })
    })))

  it.effect("a read-only database: reads work, a write is an AuthorizationError", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "readonly.db")
      const seed = new DatabaseSync(file)
      seed.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)")
      seed.close()
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* sql`SELECT x FROM t`.values, [[7]])
        const error = yield* sql`INSERT INTO t VALUES (8)`.pipe(Effect.flip)
        assert.deepStrictEqual(reason(error), {
          tag: "AuthorizationError",
          message:
            `${file} is read-only (file or folder permissions, a read-only mount, or opened with readonly): make it writable, or use another file`
        })
      }).pipe(Effect.provide(layerSqlite({ filename: file, readonly: true })))
    })))

  it.effect("a database locked by another writer: a LockTimeoutError after busyTimeout", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "locked.db")
      const other = new DatabaseSync(file)
      other.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
      const error = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql.withTransaction(sql`INSERT INTO t VALUES (2)`).pipe(Effect.flip)
      }).pipe(Effect.provide(layerSqlite({ filename: file, busyTimeout: 50 })))
      other.exec("ROLLBACK")
      other.close()
      assert.deepStrictEqual(reason(error), {
        tag: "LockTimeoutError",
        message:
          `${file} is locked: another connection held its write lock for more than 50 ms; retry, raise busyTimeout, or stop the other writer`
      })
    })))
})

const counterFile = (file: string): void => {
  const db = new DatabaseSync(file)
  db.exec(
    "PRAGMA journal_mode = WAL; CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)"
  )
  db.close()
}

const counter = (file: string): number => {
  const db = new DatabaseSync(file)
  const row = db.prepare("SELECT n FROM counter WHERE id = 1").get()
  db.close()
  return Number(row?.["n"])
}

describe("several writers on one file", () => {
  it.effect("two clients in one process: their transactions queue, none is lost, none times out", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "shared.db")
      counterFile(file)
      const writer = Effect.provide(increment(25), layerSqlite({ filename: file, busyTimeout: 200 }))
      yield* Effect.all([writer, writer], { concurrency: "unbounded" })
      assert.strictEqual(counter(file), 50)
    })))

  it.live("two processes: BEGIN IMMEDIATE and the busy wait serialize them, no increment is lost", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* folder, "processes.db")
      counterFile(file)
      const script = fileURLToPath(new URL("./SqliteWriter.ts", import.meta.url))
      const child = Effect.callback<string, Error>((resume) => {
        execFile(
          process.execPath,
          [script, file, "40"],
          (error, stdout) => resume(error === null ? Effect.succeed(stdout) : Effect.fail(error))
        )
      })
      const outputs = yield* Effect.all([child, child], { concurrency: "unbounded" })
      assert.deepStrictEqual(outputs, ["done\n", "done\n"])
      assert.strictEqual(counter(file), 80)
    })))
})
