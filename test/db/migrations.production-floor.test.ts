import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { useTestDatabase } from '../helpers/app.ts'
import { migrate } from '../helpers/migrate.ts'

/** Migration 0039: batches and stations, and the rule that an order is in one open batch at a time. */
describe('batches and stations', () => {
  const t = useTestDatabase()
  const po = '0193a000-0000-7000-8000-0000000000a1'
  const batch = (id: string, name: string) =>
    sql`insert into batches (id, name, created_by, created_at, updated_at) values (${id}, ${name}, 'op', now(), now())`

  test('an order joins one open batch; a finished batch frees it; down and up again', async () => {
    const { db } = t
    await migrate(db, 'latest')
    const first = '0193a000-0000-7000-8000-0000000000b1'
    const second = '0193a000-0000-7000-8000-0000000000b2'
    await batch(first, 'First').execute(db)
    await batch(second, 'Second').execute(db)
    await sql`insert into batch_orders (batch_id, production_order_id, added_at) values (${first}, ${po}, now())`.execute(
      db,
    )
    await assert.rejects(
      sql`insert into batch_orders (batch_id, production_order_id, added_at) values (${second}, ${po}, now())`.execute(
        db,
      ),
      /batch_orders_open_idx/,
    )
    await sql`update batch_orders set open = false where batch_id = ${first}`.execute(db)
    await sql`insert into batch_orders (batch_id, production_order_id, added_at) values (${second}, ${po}, now())`.execute(
      db,
    )
    await assert.rejects(
      sql`insert into batches (id, name, status, created_by, created_at, updated_at)
        values (gen_random_uuid(), 'Odd', 'paused', 'op', now(), now())`.execute(db),
      /check/,
    )
    await sql`delete from batches where id = ${second}`.execute(db)
    const left = await sql<{ n: number }>`select count(*)::int as n from batch_orders`.execute(db)
    assert.equal(left.rows[0]!.n, 1)
    await sql`insert into stations (id, name, created_at, updated_at) values (gen_random_uuid(), 'Press 2', now(), now())`.execute(
      db,
    )
    await assert.rejects(
      sql`insert into stations (id, name, created_at, updated_at) values (gen_random_uuid(), 'press 2', now(), now())`.execute(
        db,
      ),
      /stations_name_idx/,
    )
    await migrate(db, '2026-12-03-0038-due-dates')
    const tables = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables
      where table_name in ('batches', 'batch_orders', 'stations') and table_schema = current_schema()`.execute(
      db,
    )
    assert.equal(tables.rows[0]!.n, 0)
    await migrate(db, 'latest')
  })
})
