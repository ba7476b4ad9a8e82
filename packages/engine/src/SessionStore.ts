/**
 * `SessionStore`: where the engine keeps each session — the transcript (every message ever appended, in order,
 * each active or compacted by a checkpoint), the active history the steps work on, the checkpoints, and the
 * bookkeeping between requests (detector, ledger, calibration, learned window, invariant quotes, last audit,
 * last-chance turn).
 *
 * The interface is transactional: `apply` takes one `SessionPatch` (`@ctxkit/engine/SessionStore`) — everything one `prepare` or `observe`
 * changes — and applies all of it or none of it, against the revision it was prepared from. A SQLite layer maps
 * a patch to one transaction (insert the appended rows, replace the active rows from `active.from`, mark the
 * compacted rows, upsert the bookkeeping), so a killed process leaves the session before or after the call.
 *
 * @since 0.1.0
 */
import type { Calibration, UsageLedger } from "@ctxkit/budget"
import type { OverflowDetectorState } from "@ctxkit/overflow"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SessionConflict, SessionStoreError } from "./Errors.ts"
import type { PromptContextAudit } from "./internal/hostImports.ts"
import { applied, patchProblem } from "./internal/sessionPatch.ts"
import { makeSqliteStore } from "./internal/sqliteStore.ts"

/**
 * One message of the transcript, as appended (the caller's own object), with the checkpoint that compacted it.
 *
 * @category models
 * @since 0.1.0
 */
export interface TranscriptEntry<M = unknown> {
  readonly message: M
  /** The index of the checkpoint (in `checkpoints`) that replaced it; absent while it is active. */
  readonly compactedBy?: number | undefined
}

/**
 * One message of the active history: what the steps work on and fitting sends from. `origin` is the transcript
 * index it comes from (the message may be a capped, cleared or reduced version of it), or `-(k + 1)` for
 * checkpoint `k`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ActiveEntry<M = unknown> {
  readonly message: M
  readonly origin: number
}

/**
 * A compaction checkpoint: the message that replaced part of the history, and what it replaced.
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckpointRecord<M = unknown> {
  /** The checkpoint message (a user message with `summary: true` in the session's format). */
  readonly message: M
  /** The origins of the active messages it replaced (transcript indices, or earlier checkpoints as `-(k + 1)`). */
  readonly replaces: ReadonlyArray<number>
  /** Why the compaction ran. */
  readonly reason: "manual" | "auto" | "budget"
  /** Whether the summarizer answered with a structured checkpoint. */
  readonly structured: boolean
}

/**
 * The request `prepare` handed back last, as `observe` needs it.
 *
 * @category models
 * @since 0.1.0
 */
export interface PreparedRequest {
  /** The estimate of the whole request (messages, instructions, tool catalog), by the session's counter. */
  readonly estimate: number
  /** Active messages when it was prepared (the ledger's `messagesAtRequest`). */
  readonly messages: number
  /** The ledger's epoch then. */
  readonly epoch: number
  /** The prompt was edited (cleared, compacted, reduced) since the request before: it may shrink honestly. */
  readonly edited?: "compaction" | "clearing" | "reduction" | undefined
  /** The window the request was fitted to, when known. */
  readonly window?: number | undefined
}

/**
 * The bookkeeping of a session between requests.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionMeta {
  /** `prepare` calls so far. */
  readonly turn: number
  /** The overflow detector's state. */
  readonly detector: OverflowDetectorState
  /** The usage ledger. */
  readonly ledger: UsageLedger
  /** The calibration of estimates against reported usage. */
  readonly calibration: Calibration
  /** The window the server revealed (an over-window error's `n_ctx`, or a truncation plateau). */
  readonly learnedWindow?: { readonly tokens: number; readonly source: string } | undefined
  /** The turn the last-chance compaction last ran in: it runs at most once per turn. */
  readonly lastChanceTurn?: number | undefined
  /** Instructions + transcript characters right after the last automatic compaction (the char rule's margin). */
  readonly charsAfterLastAutoCompaction: number
  /** The user instructions quoted verbatim in the invariants block, oldest first. */
  readonly quotes: ReadonlyArray<string>
  /** Call ids the governor elided in the last request. */
  readonly elided: ReadonlyArray<string>
  /** The last complete audit (a new one replaces it). */
  readonly lastAudit?: PromptContextAudit | undefined
  /** The last prepared request. */
  readonly lastRequest?: PreparedRequest | undefined
}

/**
 * A session as stored.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionState<M = unknown> {
  readonly id: string
  /** Increases by one with every applied patch. */
  readonly revision: number
  /** The wire format's name the session was started with. */
  readonly format: string
  readonly transcript: ReadonlyArray<TranscriptEntry<M>>
  readonly active: ReadonlyArray<ActiveEntry<M>>
  readonly checkpoints: ReadonlyArray<CheckpointRecord<M>>
  readonly meta: SessionMeta
}

/**
 * Everything one engine call changes in a session, applied all at once or not at all.
 *
 * Applied in this order: `append` to the transcript; `active` replaces the active history from index `from` on;
 * `checkpoints` are added after the existing ones; `compacted` marks transcript entries; `meta` fields replace
 * the stored ones (absent fields are kept; `meta` is required when the session is new).
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionPatch<M = unknown> {
  /** The revision the patch was prepared against: 0 for a new session. */
  readonly revision: number
  /** The wire format's name, for a new session. */
  readonly format?: string | undefined
  readonly append?: ReadonlyArray<M> | undefined
  readonly active?: { readonly from: number; readonly entries: ReadonlyArray<ActiveEntry<M>> } | undefined
  readonly checkpoints?: ReadonlyArray<CheckpointRecord<M>> | undefined
  readonly compacted?: ReadonlyArray<{ readonly entry: number; readonly checkpoint: number }> | undefined
  readonly meta?: Partial<SessionMeta> | undefined
}

/**
 * The options of `SessionStore.layerSqlite`.
 *
 * @example
 * ```ts
 * import type { SqliteStoreOptions } from "@ctxkit/engine/SessionStore"
 *
 * const options: SqliteStoreOptions = { filename: ".ctxkit/sessions.db", busyTimeout: 10_000 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SqliteStoreOptions {
  /** The database file; created (with the schema) when missing. Its folder must exist. */
  readonly filename: string
  /**
   * How long a write waits for another process's write lock before failing, in milliseconds (an integer ≥ 0).
   * Default 5,000.
   */
  readonly busyTimeout?: number | undefined
}

/**
 * `SessionStore.layerSqlite` could not use its file, or was given bad options: nothing was read or written.
 * `reason` is `InvalidOptions`, `SchemaTooNew`, or the SQLite error's kind (`ConnectionError` for a file that is
 * not a database or cannot be opened, `AuthorizationError` for a read-only one, `LockTimeoutError` for one another
 * process keeps locked); the message says what to do.
 *
 * @example
 * ```ts
 * import { SessionStoreUnavailable } from "@ctxkit/engine/SessionStore"
 *
 * new SessionStoreUnavailable({
 *   filename: "notes.txt",
 *   reason: "ConnectionError",
 *   problem: "notes.txt is not a SQLite database: point filename at a database file (or a new path), or move this file away"
 * }).message.includes("move this file away") // true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionStoreUnavailable extends Schema.TaggedError<SessionStoreUnavailable>()("SessionStoreUnavailable", {
  /** The database file, as given. */
  filename: Schema.String,
  /** The kind of problem. */
  reason: Schema.String,
  /** What is wrong and how to fix it. */
  problem: Schema.String
}) {
  override get message(): string {
    return `SessionStore.layerSqlite cannot use ${this.filename}: ${this.problem}. Nothing was read or written.`
  }
}

/**
 * The session store as a service. Layers: `SessionStore.layerMemory` (each build starts empty; sessions live as
 * long as the layer) and `SessionStore.layerSqlite({ filename })` (a SQLite file that outlives the process).
 * Write your own by implementing the three operations with the rules of `SessionPatch` (`@ctxkit/engine/SessionStore`):
 * `apply` must be atomic and must refuse a patch whose `revision` is not the stored one (`SessionConflict`).
 *
 * @example
 * ```ts
 * import { SessionStore } from "@ctxkit/engine"
 * import * as Effect from "effect/Effect"
 * import * as Option from "effect/Option"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* SessionStore
 *   return Option.isNone(yield* store.load("nobody"))
 * })
 *
 * Effect.runSync(program.pipe(Effect.provide(SessionStore.layerMemory))) // true
 * ```
 *
 * @category plugins
 * @since 0.1.0
 */
export class SessionStore extends Context.Service<SessionStore, {
  /** The session, or none. */
  readonly load: (session: string) => Effect.Effect<Option.Option<SessionState>, SessionStoreError>
  /** Applies `patch` in one transaction and returns the new state. */
  readonly apply: (
    session: string,
    patch: SessionPatch
  ) => Effect.Effect<SessionState, SessionStoreError | SessionConflict>
  /** Deletes the session, its checkpoints and its audit. */
  readonly delete: (session: string) => Effect.Effect<void, SessionStoreError>
}>()("@ctxkit/engine/SessionStore") {
  /** Sessions in memory: each build of the layer starts empty. */
  static readonly layerMemory: Layer.Layer<SessionStore> = Layer.effect(
    SessionStore,
    Effect.sync(() => makeMemoryStore())
  )

  /**
   * Sessions in a SQLite database file (Node's built-in `node:sqlite`, Node 22.13 or later), kept across
   * processes and crashes: the transcript one row per message, each patch one transaction checked against the
   * stored revision (another process's write in between is `SessionConflict`), so a killed process leaves every
   * session as it was before its last call or after it. Several processes may share one file; each session's
   * rows are its own. The schema is created or migrated when the layer is built; the connection closes with it.
   *
   * @example
   * ```ts
   * import { SessionStore } from "@ctxkit/engine"
   * import * as Effect from "effect/Effect"
   * import * as Option from "effect/Option"
   * import { mkdtempSync } from "node:fs"
   * import { tmpdir } from "node:os"
   * import { join } from "node:path"
   *
   * const filename = join(mkdtempSync(join(tmpdir(), "ctxkit-")), "sessions.db")
   * const program = Effect.gen(function*() {
   *   const store = yield* SessionStore
   *   return Option.isNone(yield* store.load("nobody"))
   * })
   *
   * Effect.runPromise(program.pipe(Effect.provide(SessionStore.layerSqlite({ filename })))) // Promise<true>
   * ```
   */
  static readonly layerSqlite = (options: SqliteStoreOptions): Layer.Layer<SessionStore, SessionStoreUnavailable> =>
    Layer.effect(
      SessionStore,
      Effect.map(
        Effect.mapError(makeSqliteStore(options), (problem) => new SessionStoreUnavailable(problem)),
        (service) => SessionStore.of(service)
      )
    )
}

const makeMemoryStore = (): SessionStore["Service"] => {
  const sessions = new Map<string, SessionState>()
  return SessionStore.of({
    load: (session) => Effect.sync(() => Option.fromNullishOr(sessions.get(session))),
    apply: (session, patch) =>
      Effect.suspend((): Effect.Effect<SessionState, SessionStoreError | SessionConflict> => {
        const current = sessions.get(session)
        const revision = current?.revision ?? 0
        if (patch?.revision !== revision) {
          return Effect.fail(new SessionConflict({ session, expected: patch?.revision ?? -1, found: revision }))
        }
        const problem = patchProblem(current, patch)
        if (problem !== undefined) {
          return Effect.fail(new SessionStoreError({ session, operation: "apply", error: problem }))
        }
        const next = applied(session, current, patch)
        sessions.set(session, next)
        return Effect.succeed(next)
      }),
    delete: (session) => Effect.sync(() => void sessions.delete(session))
  })
}
