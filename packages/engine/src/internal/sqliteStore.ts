/**
 * `SessionStore.layerSqlite`: the sessions in one SQLite file, through the `SqlClient` of `./sqlite.ts`.
 *
 * Tables (migration 1): `ctxkit_sessions` (id, revision, format), `ctxkit_transcript` (one row per appended
 * message, with the checkpoint that compacted it), `ctxkit_active` (the active history; a NULL message means
 * "the message of its origin", so an untouched message is stored once), `ctxkit_checkpoints`, and `ctxkit_meta`
 * (one row per bookkeeping field). Every row is keyed by its session: no query reads another session's rows.
 *
 * Each `apply` is one `BEGIN IMMEDIATE` transaction: the revision is checked under the write lock, then only
 * what the patch changes is written (the appended rows, the active rows from `active.from`, the new
 * checkpoints, the marks, the changed fields). A killed process leaves the last committed revision.
 *
 * The layer keeps the sessions it read or wrote in memory, by revision: `load` costs one indexed read when no
 * other writer moved the session, and the whole session only when one did.
 *
 * @internal
 */
import { Calibration, UsageLedger } from "@ctxkit/budget"
import { OverflowDetectorState } from "@ctxkit/overflow"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { Reactivity } from "effect/reactivity"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { SqlClient, SqlError } from "effect/sql"
import { SessionConflict, SessionStoreError } from "../Errors.ts"
import { PromptContextAudit } from "../PromptContextAudit.ts"
import type {
  ActiveEntry,
  CheckpointRecord,
  SessionMeta,
  SessionPatch,
  SessionState,
  TranscriptEntry
} from "../SessionStore.ts"
import { applied, patchProblem } from "./sessionPatch.ts"
import { makeSqlite, migrate, type Migration, SchemaTooNew, SQLITE_BUSY_TIMEOUT } from "./sqlite.ts"

const OptionsSchema = Schema.Struct({
  filename: Schema.String.check(Schema.isMinLength(1)),
  busyTimeout: Schema.optional(Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)))
})

const checkOptions = Schema.decodeUnknownExit(OptionsSchema)

/** Why the store could not open its file (or was given bad options), and what to do. */
export interface OpenProblem {
  readonly filename: string
  readonly reason: string
  readonly problem: string
}

/** The schema version this ctxkit writes (the highest migration). */
export const SESSION_SCHEMA_VERSION = 1

const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "sessions",
    up: (sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE ctxkit_sessions (
          id TEXT PRIMARY KEY,
          revision INTEGER NOT NULL,
          format TEXT NOT NULL
        )`
        yield* sql`CREATE TABLE ctxkit_transcript (
          session TEXT NOT NULL REFERENCES ctxkit_sessions (id) ON DELETE CASCADE,
          idx INTEGER NOT NULL,
          message TEXT NOT NULL,
          compacted_by INTEGER,
          PRIMARY KEY (session, idx)
        )`
        yield* sql`CREATE TABLE ctxkit_active (
          session TEXT NOT NULL REFERENCES ctxkit_sessions (id) ON DELETE CASCADE,
          idx INTEGER NOT NULL,
          origin INTEGER NOT NULL,
          message TEXT,
          PRIMARY KEY (session, idx)
        )`
        yield* sql`CREATE TABLE ctxkit_checkpoints (
          session TEXT NOT NULL REFERENCES ctxkit_sessions (id) ON DELETE CASCADE,
          idx INTEGER NOT NULL,
          message TEXT NOT NULL,
          replaces TEXT NOT NULL,
          reason TEXT NOT NULL,
          structured INTEGER NOT NULL,
          PRIMARY KEY (session, idx)
        )`
        yield* sql`CREATE TABLE ctxkit_meta (
          session TEXT NOT NULL REFERENCES ctxkit_sessions (id) ON DELETE CASCADE,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (session, key)
        )`
      })
  }
]

// The fields stored as instances of a schema class are decoded back into them; the rest are plain JSON.
const metaDecoders: Readonly<Record<string, (value: unknown) => unknown>> = {
  detector: Schema.decodeUnknownSync(OverflowDetectorState),
  ledger: Schema.decodeUnknownSync(UsageLedger),
  calibration: Schema.decodeUnknownSync(Calibration),
  lastAudit: Schema.decodeUnknownSync(PromptContextAudit)
}

/**
 * The last audit as stored: its `messages` (the request sent, mostly the active history's own objects) as runs
 * of active indices `[from, count]`, and `{ message }` for the others (the invariants block, a rewritten
 * message). A turn then writes a few numbers for the request, not the whole request again.
 */
interface StoredAudit {
  readonly audit: Readonly<Record<string, unknown>>
  readonly parts: ReadonlyArray<readonly [number, number] | { readonly message: unknown }>
}

/**
 * Where each active message object sits, by identity; kept per session across writes (only the rewritten tail
 * is added), and checked against the active history on use, so a stale place is never trusted.
 */
type Places = WeakMap<object, number>

const placeOf = (places: Places, active: ReadonlyArray<ActiveEntry>, message: unknown): number | undefined => {
  if (!Predicate.isObject(message)) return undefined
  const at = places.get(message)
  return at !== undefined && active[at]?.message === message ? at : undefined
}

const auditToStored = (audit: unknown, active: ReadonlyArray<ActiveEntry>, places: Places): StoredAudit => {
  const fields = audit as Readonly<Record<string, unknown>>
  const messages = Array.isArray(fields["messages"]) ? fields["messages"] as ReadonlyArray<unknown> : []
  const parts: Array<readonly [number, number] | { readonly message: unknown }> = []
  for (const message of messages) {
    const at = placeOf(places, active, message)
    const last = parts.at(-1)
    if (at === undefined) parts.push({ message })
    else if (Array.isArray(last) && last[0] + last[1] === at) parts[parts.length - 1] = [last[0], last[1] + 1]
    else parts.push([at, 1])
  }
  return { audit: { ...fields, messages: [] }, parts }
}

const auditFromStored = (stored: unknown, active: ReadonlyArray<ActiveEntry>): unknown => {
  const { audit, parts } = stored as StoredAudit
  const messages = parts.flatMap((part) =>
    Array.isArray(part)
      ? active.slice(part[0], part[0] + part[1]).map((entry) => entry.message)
      : [(part as { readonly message: unknown }).message]
  )
  return { ...audit, messages }
}

/** Thrown inside `Effect.try` only: a value that JSON cannot hold. */
class NotJson extends Error {}

const toJson = (value: unknown, where: string): string => {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    throw new NotJson(`${where} cannot be stored as JSON (${error instanceof Error ? error.message : String(error)})`)
  }
  if (text === undefined) throw new NotJson(`${where} cannot be stored as JSON (it is ${typeof value})`)
  return text
}

// A multi-row INSERT binds every value of its rows: chunks stay far below SQLite's 32,766 variables.
const CHUNK = 200

const chunks = <A>(rows: ReadonlyArray<A>): ReadonlyArray<readonly [A, ...Array<A>]> => {
  const out: Array<readonly [A, ...Array<A>]> = []
  for (let i = 0; i < rows.length; i += CHUNK) {
    out.push(rows.slice(i, i + CHUNK) as unknown as readonly [A, ...Array<A>])
  }
  return out
}

/** The message an active entry's origin names, in `state`. */
const originMessage = (state: SessionState, origin: number): unknown =>
  origin >= 0 ? state.transcript[origin]?.message : state.checkpoints[-origin - 1]?.message

interface SessionRow {
  readonly revision: number
  readonly format: string
}

/**
 * One row of the whole-session read: `kind` 0 the session (revision in `idx`, format in `a`), 1 a transcript
 * row, 2 a checkpoint, 3 an active row, 4 a meta field; the other columns by kind.
 */
interface SessionReadRow {
  readonly kind: number
  readonly idx: number | null
  readonly a: string | null
  readonly b: string | number | null
  readonly c: string | number | null
  readonly d: number | null
}

/** The store over an open file; fails with the problem and its fix when the file cannot be used. */
export const makeSqliteStore = (
  options: unknown
): Effect.Effect<
  {
    readonly load: (session: string) => Effect.Effect<Option.Option<SessionState>, SessionStoreError>
    readonly apply: (
      session: string,
      patch: SessionPatch
    ) => Effect.Effect<SessionState, SessionStoreError | SessionConflict>
    readonly delete: (session: string) => Effect.Effect<void, SessionStoreError>
  },
  OpenProblem,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const checked = checkOptions(options)
    const given = Predicate.hasProperty(options, "filename") && Predicate.isString(options.filename)
      ? options.filename
      : String(Predicate.hasProperty(options, "filename") ? options.filename : undefined)
    if (Exit.isFailure(checked)) {
      const issue = checked.cause.reasons[0]
      const text = issue !== undefined && issue._tag === "Fail" ? issue.error.message : "unreadable options"
      return yield* Effect.fail<OpenProblem>({
        filename: given,
        reason: "InvalidOptions",
        problem:
          `bad options (${text}): pass { filename: "<path of the database file>" } and, optionally, busyTimeout in milliseconds (an integer ≥ 0)`
      })
    }
    const filename = checked.value.filename
    const busyTimeout = checked.value.busyTimeout ?? SQLITE_BUSY_TIMEOUT
    const openProblem = (error: SqlError.SqlError | SchemaTooNew): OpenProblem =>
      SqlError.isSqlError(error)
        ? { filename, reason: error.reason._tag, problem: error.message }
        : { filename, reason: "SchemaTooNew", problem: error.message }
    const sql = yield* makeSqlite({ filename, busyTimeout }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError(openProblem)
    )
    yield* migrate(migrations).pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.mapError(openProblem)
    )

    // Sessions as last read or written here, by revision: reused while the stored revision is the same.
    const known = new Map<string, SessionState>()

    const places = new Map<string, Places>()
    /** The session's places after `patch`: the new active entries added, or all of them the first time. */
    const placesFor = (session: string, patch: SessionPatch, next: SessionState): Places => {
      let known = places.get(session)
      const from = known === undefined ? 0 : patch.active?.from ?? next.active.length
      if (known === undefined) {
        known = new WeakMap()
        places.set(session, known)
      }
      for (let i = from; i < next.active.length; i++) {
        const message = next.active[i]?.message
        if (Predicate.isObject(message)) known.set(message, i)
      }
      return known
    }

    const storeError = (session: string, operation: string) => (error: unknown): SessionStoreError =>
      new SessionStoreError({
        session,
        operation,
        error: error instanceof NotJson ? error.message : SqlError.isSqlError(error) ? error.message : String(error)
      })

    const revisionOf = (session: string) =>
      Effect.map(
        sql<SessionRow>`SELECT revision, format FROM ctxkit_sessions WHERE id = ${session}`,
        (rows) => rows[0]
      )

    /**
     * The whole session, or undefined. One statement, so one snapshot: in WAL mode it neither waits for a
     * writer nor sees half of another process's commit, and it takes no lock.
     */
    const readState = (session: string) =>
      Effect.gen(function*() {
        const rows = yield* sql<SessionReadRow>`
          SELECT 0 AS kind, revision AS idx, format AS a, NULL AS b, NULL AS c, NULL AS d
            FROM ctxkit_sessions WHERE id = ${session}
          UNION ALL SELECT 1, idx, message, compacted_by, NULL, NULL FROM ctxkit_transcript WHERE session = ${session}
          UNION ALL SELECT 2, idx, message, replaces, reason, structured FROM ctxkit_checkpoints WHERE session = ${session}
          UNION ALL SELECT 3, idx, message, origin, NULL, NULL FROM ctxkit_active WHERE session = ${session}
          UNION ALL SELECT 4, NULL, key, value, NULL, NULL FROM ctxkit_meta WHERE session = ${session}
          ORDER BY kind, idx`
        return yield* Effect.try({
          try: (): SessionState | undefined => {
            const head = rows[0]
            if (head === undefined || head.kind !== 0) return undefined
            const transcript: Array<TranscriptEntry> = []
            const checkpoints: Array<CheckpointRecord> = []
            const activeRows: Array<SessionReadRow> = []
            const metaRows: Array<SessionReadRow> = []
            const meta: Record<string, unknown> = {}
            const text = (value: unknown, what: string): string => {
              if (!Predicate.isString(value)) throw new TypeError(`${what} is not text`)
              return value
            }
            for (const row of rows.slice(1)) {
              if (row.kind === 1) {
                if (row.idx !== transcript.length) throw new Error(`transcript row ${transcript.length} is missing`)
                const message: unknown = JSON.parse(text(row.a, "a transcript message"))
                transcript.push(row.b === null ? { message } : { message, compactedBy: Number(row.b) })
              } else if (row.kind === 2) {
                if (row.idx !== checkpoints.length) throw new Error(`checkpoint row ${checkpoints.length} is missing`)
                checkpoints.push({
                  message: JSON.parse(text(row.a, "a checkpoint message")),
                  replaces: JSON.parse(text(row.b, "a checkpoint's replaces")) as ReadonlyArray<number>,
                  reason: text(row.c, "a checkpoint's reason") as CheckpointRecord["reason"],
                  structured: row.d === 1
                })
              } else if (row.kind === 3) {
                if (row.idx !== activeRows.length) throw new Error(`active row ${activeRows.length} is missing`)
                activeRows.push(row)
              } else {
                metaRows.push(row)
              }
            }
            const partial = { transcript, checkpoints } as unknown as SessionState
            const active = activeRows.map((row): ActiveEntry => {
              const origin = Number(row.b)
              return { message: row.a === null ? originMessage(partial, origin) : JSON.parse(row.a), origin }
            })
            for (const row of metaRows) {
              const key = text(row.a, "a meta key")
              const stored: unknown = JSON.parse(text(row.b, `meta.${key}`))
              const value = key === "lastAudit" ? auditFromStored(stored, active) : stored
              const decode = metaDecoders[key]
              meta[key] = decode === undefined ? value : decode(value)
            }
            return {
              id: session,
              revision: Number(head.idx),
              format: text(head.a, "the format"),
              transcript,
              active,
              checkpoints,
              meta: meta as unknown as SessionMeta
            }
          },
          catch: (error) =>
            new SessionStoreError({
              session,
              operation: "load",
              error: `${filename} holds a damaged session (${
                error instanceof Error ? error.message : String(error)
              }): restore the file from a backup, or delete this session`
            })
        })
      })

    const load = (session: string): Effect.Effect<Option.Option<SessionState>, SessionStoreError> =>
      Effect.gen(function*() {
        const row = yield* revisionOf(session)
        if (row === undefined) {
          known.delete(session)
          return Option.none()
        }
        const cached = known.get(session)
        if (cached !== undefined && cached.revision === row.revision) return Option.some(cached)
        // Another writer moved it: read it whole.
        const state = yield* readState(session)
        if (state === undefined) {
          known.delete(session)
          return Option.none()
        }
        known.set(session, state)
        return Option.some(state)
      }).pipe(
        Effect.catchIf(SqlError.isSqlError, (error) => Effect.fail(storeError(session, "load")(error)))
      )

    const write = (session: string, current: SessionState | undefined, patch: SessionPatch, next: SessionState) =>
      Effect.gen(function*() {
        const encoded = yield* Effect.try({
          try: () => {
            const first = current?.transcript.length ?? 0
            const append = (patch.append ?? []).map((message, i) => ({
              session,
              idx: first + i,
              message: toJson(message, `append[${i}]`)
            }))
            const from = patch.active?.from ?? 0
            const active = (patch.active?.entries ?? []).map((entry, i) => ({
              session,
              idx: from + i,
              origin: entry.origin,
              message: entry.message === originMessage(next, entry.origin)
                ? null
                : toJson(entry.message, `active.entries[${i}]`)
            }))
            const firstCheckpoint = current?.checkpoints.length ?? 0
            const checkpoints = (patch.checkpoints ?? []).map((checkpoint, i) => ({
              session,
              idx: firstCheckpoint + i,
              message: toJson(checkpoint.message, `checkpoints[${i}].message`),
              replaces: toJson(checkpoint.replaces, `checkpoints[${i}].replaces`),
              reason: checkpoint.reason,
              structured: checkpoint.structured === true ? 1 : 0
            }))
            const set: Array<{ session: string; key: string; value: string }> = []
            const unset: Array<string> = []
            const before = current?.meta as Readonly<Record<string, unknown>> | undefined
            const changes: Record<string, unknown> = { ...patch.meta }
            // The stored audit names its messages by their place in the active history: re-encode it when that moves.
            if (patch.active !== undefined && next.meta.lastAudit !== undefined) {
              changes["lastAudit"] = next.meta.lastAudit
            }
            for (const [key, value] of Object.entries(changes)) {
              // A field the patch repeats unchanged (the same value) is not written again.
              if (before !== undefined && key in before && before[key] === value && key !== "lastAudit") continue
              if (
                before !== undefined && key === "lastAudit" && before[key] === value && patch.active === undefined
              ) continue
              if (value === undefined) unset.push(key)
              else {
                const stored = key === "lastAudit"
                  ? auditToStored(value, next.active, placesFor(session, patch, next))
                  : value
                set.push({ session, key, value: toJson(stored, `meta.${key}`) })
              }
            }
            return { append, active, checkpoints, set, unset }
          },
          catch: (error) => error instanceof NotJson ? error : new NotJson(String(error))
        })
        if (current === undefined) {
          yield* sql`INSERT INTO ctxkit_sessions ${
            sql.insert({ id: session, revision: next.revision, format: next.format })
          }`
        } else {
          yield* sql`UPDATE ctxkit_sessions SET revision = ${next.revision} WHERE id = ${session}`
        }
        for (const rows of chunks(encoded.append)) yield* sql`INSERT INTO ctxkit_transcript ${sql.insert(rows)}`
        for (const mark of patch.compacted ?? []) {
          yield* sql`UPDATE ctxkit_transcript SET compacted_by = ${mark.checkpoint}
            WHERE session = ${session} AND idx = ${mark.entry}`
        }
        if (patch.active !== undefined) {
          yield* sql`DELETE FROM ctxkit_active WHERE session = ${session} AND idx >= ${patch.active.from}`
          for (const rows of chunks(encoded.active)) yield* sql`INSERT INTO ctxkit_active ${sql.insert(rows)}`
        }
        for (const rows of chunks(encoded.checkpoints)) yield* sql`INSERT INTO ctxkit_checkpoints ${sql.insert(rows)}`
        for (const key of encoded.unset) {
          yield* sql`DELETE FROM ctxkit_meta WHERE session = ${session} AND key = ${key}`
        }
        for (const rows of chunks(encoded.set)) {
          yield* sql`INSERT INTO ctxkit_meta ${sql.insert(rows)}
            ON CONFLICT (session, key) DO UPDATE SET value = excluded.value`
        }
      })

    const apply = (
      session: string,
      patch: SessionPatch
    ): Effect.Effect<SessionState, SessionStoreError | SessionConflict> =>
      sql.withTransaction(Effect.gen(function*() {
        // Under the write lock: nobody can move the session between this check and the commit.
        const row = yield* revisionOf(session)
        const revision = row?.revision ?? 0
        if (!Predicate.isObject(patch) || patch.revision !== revision) {
          return yield* new SessionConflict({
            session,
            expected: Predicate.isObject(patch) && Predicate.isNumber(patch.revision) ? patch.revision : -1,
            found: revision
          })
        }
        const cached = known.get(session)
        const current = row === undefined
          ? undefined
          : cached !== undefined && cached.revision === revision
          ? cached
          : yield* readState(session)
        const problem = patchProblem(current, patch)
        if (problem !== undefined) {
          return yield* new SessionStoreError({ session, operation: "apply", error: problem })
        }
        const next = applied(session, current, patch)
        yield* write(session, current, patch, next)
        return next
      })).pipe(
        Effect.tap((next) => Effect.sync(() => void known.set(session, next))),
        Effect.catchIf(
          (error): error is SqlError.SqlError | NotJson => SqlError.isSqlError(error) || error instanceof NotJson,
          (error) => Effect.fail(storeError(session, "apply")(error))
        ),
        // A failed transaction may have been rolled back after the cache was read: drop it, to read it again.
        Effect.tapError(() => Effect.sync(() => void known.delete(session)))
      )

    const remove = (session: string): Effect.Effect<void, SessionStoreError> =>
      sql.withTransaction(sql`DELETE FROM ctxkit_sessions WHERE id = ${session}`).pipe(
        Effect.tap(() =>
          Effect.sync(() => {
            known.delete(session)
            places.delete(session)
          })
        ),
        Effect.asVoid,
        Effect.mapError(storeError(session, "delete"))
      )

    return { load, apply, delete: remove }
  })
