import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { PLAN_EACH_TIME } from '../../src/db/database.ts'
import { useTestDatabase } from '../helpers/app.ts'

/** Repeated statements are prepared once per connection, except those planned for their values each time. */
describe('prepared statements', () => {
  const t = useTestDatabase({ migrated: false })
  // The pool's one connection on the embedded database; on PostgreSQL, the transaction's.
  const prepared = async (marker: string) =>
    t.db.transaction().execute(async (trx) => {
      const one = Math.floor(Math.random() * 1000)
      await sql`select ${one}::int as n, ${sql.lit(marker)} as marker`.execute(trx)
      await sql`select ${one}::int as n ${sql.raw(PLAN_EACH_TIME)}, ${sql.lit(`${marker}-each-time`)} as marker`.execute(
        trx,
      )
      const rows = await sql<{ statement: string }>`select statement from pg_prepared_statements
        where statement like ${`%${marker}%`}`.execute(trx)
      return rows.rows.map((r) => r.statement.includes(PLAN_EACH_TIME))
    })

  test('a statement is prepared; one marked to be planned each time is not', async () => {
    assert.deepEqual(await prepared(`marker-${Date.now()}`), [false])
  })
})
