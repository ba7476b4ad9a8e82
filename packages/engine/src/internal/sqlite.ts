/**
 * A small `effect/sql` `SqlClient` over Node's built-in `node:sqlite` (no SQLite driver for Effect 4.1 is
 * published), and versioned migrations on top of it. One connection per client, shared through a semaphore;
 * WAL; transactions start with `BEGIN IMMEDIATE` so that two processes on one file queue for the write lock
 * instead of failing half-way. Errors are `SqlError`s whose reason is typed (`LockTimeoutError`,
 * `AuthorizationError`, `ConnectionError`, ...) and whose message says what to do.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import { Reactivity } from "effect/reactivity"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import * as Stream from "effect/Stream"
import { resolve } from "node:path"
import { DatabaseSync, type SQLInputValue } from "node:sqlite"

/** Where the database is and how to open it. */
export interface SqliteOptions {
  /** The database file (created when missing, unless `readonly`); `":memory:"` for a private in-memory one. */
  readonly filename: string
  /** Open for reading only: every write fails with a typed error. Default `false`. */
  readonly readonly?: boolean | undefined
  /** How long a statement waits for another connection's write lock, in milliseconds. Default 5,000. */
  readonly busyTimeout?: number | undefined
}

/** The default wait for another connection's write lock: 5 seconds. */
export const SQLITE_BUSY_TIMEOUT = 5_000

// SQLite's primary result codes (the low byte of an extended code).
const SQLITE_BUSY = 5
const SQLITE_LOCKED = 6
const SQLITE_READONLY = 8
const SQLITE_CORRUPT = 11
const SQLITE_FULL = 13
const SQLITE_CANTOPEN = 14
const SQLITE_NOTADB = 26

const resultCode = (cause: unknown): number | undefined =>
  Predicate.hasProperty(cause, "errcode") && Predicate.isNumber(cause.errcode) ? cause.errcode & 0xff : undefined

const causeText = (cause: unknown): string =>
  Predicate.hasProperty(cause, "message") && Predicate.isString(cause.message) ? cause.message : String(cause)

/** Thrown inside `Effect.try` only, and turned into a `SqlSyntaxError` there. */
class SeveralStatements extends Error {}

/** A `SqlError` whose reason is typed by SQLite's result code and whose message names the file and the fix. */
export const sqliteError = (
  cause: unknown,
  context: { readonly filename: string; readonly operation: string; readonly busyTimeout: number }
): SqlError.SqlError => {
  const { busyTimeout, filename, operation } = context
  const props = { cause, operation }
  const reason = (() => {
    if (cause instanceof SeveralStatements) {
      return new SqlError.SqlSyntaxError({
        ...props,
        message:
          `several statements in one string (SQLite would run only the first): run each with its own statement: ${cause.message}`
      })
    }
    switch (resultCode(cause)) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return new SqlError.LockTimeoutError({
          ...props,
          message:
            `${filename} is locked: another connection held its write lock for more than ${busyTimeout} ms; retry, raise busyTimeout, or stop the other writer`
        })
      case SQLITE_READONLY:
        return new SqlError.AuthorizationError({
          ...props,
          message:
            `${filename} is read-only (file or folder permissions, a read-only mount, or opened with readonly): make it writable, or use another file`
        })
      case SQLITE_NOTADB:
        return new SqlError.ConnectionError({
          ...props,
          message:
            `${filename} is not a SQLite database: point filename at a database file (or a new path), or move this file away`
        })
      case SQLITE_CANTOPEN:
        return new SqlError.ConnectionError({
          ...props,
          message: `cannot open ${filename}: check that its folder exists and is writable`
        })
      case SQLITE_CORRUPT:
        return new SqlError.UnknownError({
          ...props,
          message: `${filename} is damaged (${causeText(cause)}): restore it from a backup, or move it away`
        })
      case SQLITE_FULL:
        return new SqlError.UnknownError({ ...props, message: `the disk holding ${filename} is full: free some space` })
      default:
        return SqlError.classifySqliteError(cause, { message: `${filename}: ${causeText(cause)}`, operation })
    }
  })()
  return new SqlError.SqlError({ reason })
}

/** A value as `node:sqlite` binds it: booleans as 0/1, `undefined` as NULL, dates as ISO text. */
const bindable = (value: unknown): SQLInputValue => {
  if (value === undefined || value === null) return null
  if (Predicate.isBoolean(value)) return value ? 1 : 0
  if (Predicate.isDate(value)) return value.toISOString()
  if (Predicate.isNumber(value) || Predicate.isBigInt(value) || Predicate.isString(value)) return value
  if (value instanceof Uint8Array) return value
  return JSON.stringify(value)
}

// `node:sqlite` is synchronous: a second connection in this process waiting for the write lock would block
// the event loop in SQLite's busy handler while the first connection's transaction waits for the event loop
// to finish. So every client of one file in a process shares one semaphore, and they queue as fibers; only
// other processes wait in the busy handler. The map holds one small semaphore per file ever opened.
const fileLocks = new Map<string, Semaphore.Semaphore>()

const fileLock = (filename: string): Effect.Effect<Semaphore.Semaphore> =>
  Effect.sync(() => {
    if (filename === ":memory:" || filename === "") return Semaphore.makeUnsafe(1)
    const key = resolve(filename)
    const existing = fileLocks.get(key)
    if (existing !== undefined) return existing
    const created = Semaphore.makeUnsafe(1)
    fileLocks.set(key, created)
    return created
  })

/** A `SqlClient` over one `node:sqlite` connection, closed with the scope. */
export const makeSqlite = (
  options: SqliteOptions
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const filename = options.filename
    const readonly = options.readonly === true
    const busyTimeout = Predicate.isNumber(options.busyTimeout) && options.busyTimeout >= 0 ?
      options.busyTimeout :
      SQLITE_BUSY_TIMEOUT
    const context = { filename, busyTimeout }
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new DatabaseSync(filename, { readOnly: readonly, timeout: busyTimeout }),
        catch: (cause) => sqliteError(cause, { ...context, operation: "open" })
      }),
      (db) => Effect.sync(() => db.isOpen && db.close())
    )
    // The first statement reads the header: a file that is not a database fails here, at open, not later.
    yield* Effect.try({
      try: () => {
        db.prepare("SELECT count(*) FROM sqlite_master").get()
        if (!readonly) db.exec("PRAGMA journal_mode = WAL")
        // In WAL mode, NORMAL syncs at checkpoints, not at every commit: a killed process loses no committed
        // transaction (the WAL is in the OS's cache); an OS crash or power loss may drop the last ones, never
        // leaving a half one. FULL would add a disk flush to every commit.
        db.exec("PRAGMA synchronous = NORMAL")
        db.exec("PRAGMA foreign_keys = ON")
      },
      catch: (cause) => sqliteError(cause, { ...context, operation: "open" })
    })

    const prepare = (sql: string) => {
      const statement = db.prepare(sql)
      // SQLite prepares the first statement of a string and ignores the rest, silently: refuse instead.
      const first = statement.sourceSQL
      const at = sql.indexOf(first)
      const rest = at === -1 ? "" : sql.slice(at + first.length).replace(/--[^\n]*|\/\*[\s\S]*?\*\/|[\s;]/g, "")
      if (rest !== "") throw new SeveralStatements(sql)
      return statement
    }

    const run = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean) =>
      Effect.try({
        try: (): ReadonlyArray<unknown> => {
          const statement = prepare(sql)
          const values = params.map(bindable)
          if (statement.columns().length === 0) {
            statement.run(...values)
            return []
          }
          statement.setReturnArrays(arrays)
          return statement.all(...values)
        },
        catch: (cause) => sqliteError(cause, { ...context, operation: "execute" })
      })

    const rows = (
      sql: string,
      params: ReadonlyArray<unknown>,
      transform: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
    ) =>
      Effect.map(run(sql, params, false), (all) => {
        const objects = all as ReadonlyArray<object>
        return transform === undefined ? objects : transform(objects)
      })
    const values = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.map(run(sql, params, true), (all) => all as ReadonlyArray<ReadonlyArray<unknown>>)

    const connection: SqlConnection.Connection = {
      execute: rows,
      executeUnprepared: rows,
      executeValues: values,
      executeValuesUnprepared: values,
      executeRaw: (sql, params) =>
        Effect.try({
          try: () => prepare(sql).run(...params.map(bindable)),
          catch: (cause) => sqliteError(cause, { ...context, operation: "execute" })
        }),
      executeStream: (sql, params, transform) => Stream.fromIterableEffect(rows(sql, params, transform))
    }
    const semaphore = yield* fileLock(filename)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: () => db.isTransaction
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node:sqlite",
      spanAttributes: [["db.system.name", "sqlite"], ["db.namespace", filename]],
      // Taking the write lock up front: a deferred transaction that reads and then writes fails with
      // SQLITE_BUSY when another process wrote in between, with no wait and half its work done.
      beginTransaction: readonly ? "BEGIN" : "BEGIN IMMEDIATE"
    })
  })

/** The `SqlClient` layer over `node:sqlite`; the connection closes with the layer. */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, makeSqlite(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * The database was written by a newer ctxkit: its schema version is above every migration this one knows, so
 * reading it could misread data.
 */
export class SchemaTooNew extends Schema.TaggedError<SchemaTooNew>()("SchemaTooNew", {
  table: Schema.String,
  found: Schema.Number,
  known: Schema.Number
}) {
  override get message(): string {
    return `the database's schema is version ${this.found} (table ${this.table}), newer than the ${this.known} this ctxkit knows: upgrade ctxkit, or use another file`
  }
}

/** One schema step: applied once, in `version` order, inside the migration transaction. */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly up: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError.SqlError>
}

/** What `migrate` did: the version before and after, and the versions it applied. */
export interface Migrated {
  readonly from: number
  readonly to: number
  readonly applied: ReadonlyArray<number>
}

/**
 * Brings the database to the newest of `migrations`, in one transaction: the versions already applied are
 * read from `table`, the missing ones run in order and are recorded. Two processes migrating one file queue
 * on the write lock; the second finds nothing to do. A database newer than every migration is `SchemaTooNew`.
 */
export const migrate = (
  migrations: ReadonlyArray<Migration>,
  options: { readonly table?: string } = {}
): Effect.Effect<Migrated, SqlError.SqlError | SchemaTooNew, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = options.table ?? "ctxkit_schema"
    const ordered = [...migrations].sort((a, b) => a.version - b.version)
    const known = ordered.at(-1)?.version ?? 0
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`CREATE TABLE IF NOT EXISTS ${
        sql(table)
      } (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`
      const rows = yield* sql<{ readonly version: number | null }>`SELECT max(version) AS version FROM ${sql(table)}`
      const from = rows[0]?.version ?? 0
      if (from > known) return yield* new SchemaTooNew({ table, found: from, known })
      const pending = ordered.filter((migration) => migration.version > from)
      for (const migration of pending) {
        yield* migration.up(sql)
        yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ version: migration.version, name: migration.name })}`
      }
      return { from, to: Math.max(from, known), applied: pending.map((migration) => migration.version) }
    }))
  })
