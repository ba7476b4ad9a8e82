/**
 * A child process for the two-process test: `node SqliteWriter.ts <file> <count>` adds 1 to the counter of
 * `<file>` `<count>` times, each in its own transaction that reads, yields, and writes.
 */
import * as Effect from "effect/Effect"
import { SqlClient } from "effect/sql"
import { layerSqlite } from "../src/internal/sqlite.ts"

export const increment = (times: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < times; i++) {
      yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ readonly n: number }>`SELECT n FROM counter WHERE id = 1`
        yield* Effect.yieldNow
        yield* sql`UPDATE counter SET n = ${(rows[0]?.n ?? 0) + 1} WHERE id = 1`
      }))
    }
  })

const [file, count] = process.argv.slice(2)
if (file !== undefined && count !== undefined) {
  await Effect.runPromise(increment(Number(count)).pipe(Effect.provide(layerSqlite({ filename: file }))))
  process.stdout.write("done\n")
}
