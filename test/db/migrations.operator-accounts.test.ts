import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

test('upgrading: the operator token’s earlier entries join the platform-wide log, members’ do not', async () => {
  const { db } = t
  await migrate(db, '2026-11-26-0016-dashboard-accounts')
  const org = '0193a000-0000-7000-8000-000000000001'
  const account = '0193a000-0000-7000-8000-0000000000a1'
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  const entry = (id: string, actorAccount: string | null, actor: string, action: string) => sql`
    insert into audit_log (id, organization_id, actor_account_id, actor, action, subject, details, address, created_at)
    values (${id}, ${org}, ${actorAccount}, ${actor}, ${action}, 'x@example.com', '{}', null, now())`
  await entry('0193a000-0000-7000-8000-0000000000e1', null, 'operator', 'member.invited').execute(db)
  await entry('0193a000-0000-7000-8000-0000000000e2', account, 'x@example.com', 'member.joined').execute(db)

  await migrate(db, 'latest')
  const rows = await sql<{ id: string; actor: string; by_operator: boolean }>`
    select id, actor, by_operator from audit_log order by id`.execute(db)
  assert.deepEqual(
    rows.rows.map((r) => [r.actor, r.by_operator]),
    [
      ['operator token', true],
      ['x@example.com', false],
    ],
  )
  // Platform entries have no organization; new tables exist.
  await sql`
    insert into audit_log (id, organization_id, actor_account_id, actor, action, subject, details, address, created_at, by_operator)
    values (gen_random_uuid(), null, null, 'operator token', 'operator.invited', 'o@example.com', '{}', null, now(), true)`.execute(
    db,
  )
  const counts = await sql<{ operators: number; invitations: number }>`
    select (select count(*)::int from operators) as operators,
           (select count(*)::int from operator_invitations) as invitations`.execute(db)
  assert.deepEqual(counts.rows[0], { operators: 0, invitations: 0 })
})
