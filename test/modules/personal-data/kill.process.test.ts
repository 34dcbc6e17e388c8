import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { type Database, openDatabase } from '../../../src/db/database.ts'
import type { Clock } from '../../../src/lib/clock.ts'
import { createPersonalDataService } from '../../../src/modules/personal-data/index.ts'
import { createTestApp, TEST_DATABASE_URL, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { createPgDatabase, seededDataDir } from '../../helpers/databases.ts'
import {
  type Customer,
  customer,
  customerOrder,
  dumpDatabase,
  occurrences,
  textsOf,
} from '../../helpers/personal-data.ts'
import { collectOutput, SUITE_NODE_FLAGS } from '../../helpers/service-process.ts'

const BATCH = 2
const DAY = 86_400_000
const operator = { accountId: null, label: 'operator token', address: null, operator: true }

/**
 * An erasure and a retention prune killed with kill -9 half-way, each in a
 * process of its own, on the database the service runs on (a PostgreSQL
 * database, or the embedded database's data directory): the batches
 * committed stay erased, the one in progress leaves nothing, and run again
 * each finishes with the result of one run.
 */
describe('killed half-way', () => {
  const dataDirs: string[] = []
  after(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })

  /** A fresh database: the options for this process to open it, and what the child is told of it. */
  async function store(): Promise<{
    options: Parameters<typeof openDatabase>[0]
    env: Record<string, string>
  }> {
    if (TEST_DATABASE_URL) {
      const { url } = await createPgDatabase(TEST_DATABASE_URL)
      return { options: { url }, env: { DATABASE_URL: url } }
    }
    const dataDir = await seededDataDir('svc-erase-kill-')
    dataDirs.push(dataDir)
    return { options: { dataDir }, env: { DATA_DIR: dataDir } }
  }

  type Tenant = Awaited<ReturnType<TestApp['tenant']>>

  /**
   * Orders of the customers, made through the API; closed afterwards, as a
   * data directory takes one process at a time. Answers the organization and
   * the ids of the first customer's orders.
   */
  async function seed(
    options: Parameters<typeof openDatabase>[0],
    customers: Customer[],
    prepare: (t: TestApp, tenant: Tenant) => Promise<void> = async () => {},
  ) {
    const opened = await openDatabase(options)
    const t = await createTestApp({ db: opened.db })
    try {
      const tenant = await t.tenant('Killed Erasure')
      await prepare(t, tenant)
      const ids: string[] = []
      for (const c of customers) {
        const res = await t.api(tenant.testKey, 'POST', '/v1/orders', customerOrder(c))
        assert.equal(res.statusCode, 201, res.body)
        if (c === customers[0]) ids.push(res.json().data.order.id)
      }
      await t.services.requests.recorder.flush()
      return { orgId: tenant.orgId, ids }
    } finally {
      await t.close()
      await opened.db.destroy()
    }
  }

  /** erase-until-killed.ts in a child process, which must die of SIGKILL. */
  async function killedHalfWay(env: Record<string, string>) {
    const child = spawn(
      process.execPath,
      [...SUITE_NODE_FLAGS, join(import.meta.dirname, 'erase-until-killed.ts')],
      {
        env: { ...process.env, DATABASE_URL: '', ...env, BATCH: String(BATCH) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const output = collectOutput(child)
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    )
    assert.equal(signal, 'SIGKILL', `killed, not exited (${code}):\n${output()}`)
  }

  /** The first batch committed; the second, killed before its commit, left nothing. */
  async function assertHalfErased(db: Database, ids: string[], c: Customer) {
    const rows = await db
      .selectFrom('orders')
      .select(['id', 'customer_name', 'erased_at', 'personalization_erased_at'])
      .where('id', 'in', ids)
      .execute()
    const erased = rows.filter((o) => o.customer_name === 'erased')
    assert.equal(erased.length, BATCH, JSON.stringify(rows))
    assert.ok(erased.every((o) => o.erased_at !== null && o.personalization_erased_at !== null))
    assert.ok(rows.filter((o) => o.customer_name !== 'erased').every((o) => o.erased_at === null))
    assert.ok(
      occurrences(await dumpDatabase(db), textsOf(c)).length > 0,
      'the orders not reached keep theirs',
    )
  }

  const serviceOn = (db: Database, clock: Clock) =>
    createPersonalDataService({
      db,
      clock,
      orderViews: async (rows) => rows,
      flushRequestLog: async () => {},
      batch: BATCH,
    })

  /** Nothing of the erased customer in the dump; everything of the other one. */
  function assertOnlyOthersLeft(dump: string, erased: Customer, other: Customer) {
    assert.deepEqual(occurrences(dump, textsOf(erased)), [])
    // The orders carry no file, so no file name.
    for (const text of textsOf(other).slice(0, 4)) assert.ok(dump.includes(text), `${text} is still there`)
  }

  /** The dump without the audit log, which a run that finds nothing still writes to. */
  const withoutAudit = (dump: string) => dump.split('\n').filter((line) => !line.startsWith('audit_log: '))

  test('an erasure: kill -9 in its second batch, run again: one run’s result, the other customer untouched', async () => {
    const { options, env } = await store()
    const anna = customer('Anna')
    const otto = customer('Otto')
    const { orgId, ids } = await seed(options, [anna, anna, otto, anna, anna, anna])

    await killedHalfWay({ ...env, MODE: 'erase', ORGANIZATION_ID: orgId, CUSTOMER_EMAIL: anna.email })

    const { db } = await openDatabase(options)
    try {
      await assertHalfErased(db, ids, anna)
      const service = serviceOn(db, { now: () => new Date() })
      const again = await service.erase(orgId, { email: anna.email }, { personalization: 'all' }, operator)
      assert.equal(again.orders, ids.length - BATCH)
      const dump = await dumpDatabase(db)
      assertOnlyOthersLeft(dump, anna, otto)
      const third = await service.erase(orgId, { email: anna.email }, { personalization: 'all' }, operator)
      assert.equal(third.orders, 0)
      assert.deepEqual(withoutAudit(await dumpDatabase(db)), withoutAudit(dump))
    } finally {
      await db.destroy()
    }
  })

  test('the retention prune: kill -9 in its second batch, run again: one run’s result, another organization untouched', async () => {
    const { options, env } = await store()
    const hana = customer('Hana')
    const { ids } = await seed(options, [hana, hana, hana, hana, hana], async (t, tenant) => {
      const owner = await memberOf(t, tenant.orgId, 'owner')
      const set = await owner.client.call('PUT', '/retention', {
        request_body_retention_days: 30,
        webhook_answer_retention_days: 90,
        personal_data_retention_days: 1,
      })
      assert.equal(set.statusCode, 200, set.body)
    })
    // In another organization, which keeps personal data (the default).
    const other = customer('Nils')
    await seed(options, [other])
    const later = new Date(Date.now() + 2 * DAY)

    await killedHalfWay({ ...env, MODE: 'prune', NOW: later.toISOString() })

    const { db } = await openDatabase(options)
    try {
      await assertHalfErased(db, ids, hana)
      const service = serviceOn(db, { now: () => later })
      assert.equal((await service.prune()).orders, ids.length - BATCH)
      const dump = await dumpDatabase(db)
      assertOnlyOthersLeft(dump, hana, other)
      assert.equal((await service.prune()).orders, 0)
      assert.deepEqual(withoutAudit(await dumpDatabase(db)), withoutAudit(dump))
    } finally {
      await db.destroy()
    }
  })
})
