import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { orderBody, TEST_DATABASE_URL } from '../../../helpers/app.ts'
import { createPgDatabase, seededDataDir } from '../../../helpers/databases.ts'
import { type Receiver, startReceiver } from '../../../helpers/https-receiver.ts'
import { callService, type ServiceProcess, startServiceProcess } from '../../../helpers/service-process.ts'
import { waitUntil } from '../../../helpers/wait.ts'

/**
 * The real entry point (src/main.ts) in child processes: kill -9 while
 * deliveries are in flight, restart on the same database, and every event
 * arrives; and an API-only instance (WEBHOOK_WORKER=off) next to a worker.
 * On PostgreSQL when TEST_DATABASE_URL is set, otherwise on PGlite in DATA_DIR;
 * a fresh database per test.
 */

const OPERATOR_TOKEN = 'op_crash_test_operator_token_0123456789abcdef'
const TIMEOUT_MS = 3000
/** The claim lease (WEBHOOK_LEASE_MS): the default of timeout + 30 s would make this file slow. */
const LEASE_MS = 4000

type Service = ServiceProcess

const call = (service: Service, method: string, path: string, auth: string, body?: unknown) =>
  callService(service.port, auth, method, path, body)

function startService(env: Record<string, string>): Promise<Service> {
  return startServiceProcess({
    OPERATOR_TOKEN,
    WEBHOOK_RETRY_DELAYS: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_LEASE_MS: String(LEASE_MS),
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    ...env,
  })
}

/** A fresh, migrated database for one test: a PostgreSQL database, or a PGlite data directory. */
async function freshStore(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = await seededDataDir('svc-crash-')
  if (!TEST_DATABASE_URL) {
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    }
  }
  const database = await createPgDatabase(TEST_DATABASE_URL)
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: database.url },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

/** An organization with a live key, and an endpoint at the receiver. */
async function tenantWithEndpoint(service: Service, receiver: Receiver) {
  const org = await call(service, 'POST', '/admin/v1/organizations', OPERATOR_TOKEN, { name: 'Crash Org' })
  assert.equal(org.status, 201)
  const orgId = org.body.data.organization.id as string
  const key = await call(service, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, OPERATOR_TOKEN, {
    environment: 'live',
    scopes: ['orders:write', 'webhooks:manage'],
  })
  assert.equal(key.status, 201)
  const liveKey = key.body.data.key as string
  // The certificate names 127.0.0.1; the child trusts it through NODE_EXTRA_CA_CERTS.
  const endpoint = await call(service, 'POST', '/v1/webhook-endpoints', liveKey, {
    url: `https://127.0.0.1:${receiver.port}/hook`,
  })
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body))
  return { orgId, liveKey, endpointId: endpoint.body.data.endpoint.id as string }
}

async function createOrders(service: Service, liveKey: string, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await call(service, 'POST', '/v1/orders', liveKey, orderBody())
    assert.equal(res.status, 201)
  }
}

interface DeliveryEntry {
  event_id: string
  status: string
  attempts: number
  error_code: string | null
}

async function deliveries(service: Service, orgId: string): Promise<DeliveryEntry[]> {
  const res = await call(
    service,
    'GET',
    `/admin/v1/webhook-deliveries?organization_id=${orgId}&limit=100`,
    OPERATOR_TOKEN,
  )
  assert.equal(res.status, 200)
  return res.body.data
}

const receivedEventIds = (receiver: Receiver) =>
  new Set(receiver.received.map((r) => String(r.headers['x-service-event-id'])))

describe('webhook delivery across process crashes and run modes', () => {
  let receiver: Receiver
  let caDir: string
  let caFile: string
  const running: Service[] = []
  before(async () => {
    receiver = await startReceiver()
    caDir = mkdtempSync(join(tmpdir(), 'svc-ca-'))
    caFile = join(caDir, 'receiver-ca.pem')
    writeFileSync(caFile, receiver.ca)
  })
  after(async () => {
    for (const service of running) service.child.kill('SIGKILL')
    await receiver.close()
    rmSync(caDir, { recursive: true, force: true })
  })

  async function start(env: Record<string, string>) {
    const service = await startService({ NODE_EXTRA_CA_CERTS: caFile, ...env })
    running.push(service)
    return service
  }

  test('kill -9 with deliveries in flight, restart on the same database: every event arrives at least once', async (ctx) => {
    const store = await freshStore()
    ctx.after(() => store.drop())
    receiver.received.length = 0
    // Answers come late: the attempts are in flight when the process dies.
    receiver.setHandler(() => ({ status: 200, delayMs: 2500 }))

    const first = await start(store.env)
    const { orgId, liveKey } = await tenantWithEndpoint(first, receiver)
    const N = 8
    await createOrders(first, liveKey, N)
    await receiver.waitFor(3, 15_000)
    first.child.kill('SIGKILL')
    assert.equal(await first.exited, null, 'killed, not exited')
    const killedAt = Date.now()
    const inFlightAtCrash = receivedEventIds(receiver)
    assert.ok(inFlightAtCrash.size >= 3)

    receiver.setHandler(() => ({ status: 200 }))
    const second = await start(store.env)
    const events = await deliveries(second, orgId)
    assert.equal(events.length, N, 'one delivery per event, all written before the crash')
    const expected = new Set(events.map((d) => d.event_id))
    await waitUntil(
      async () => (await deliveries(second, orgId)).every((d) => d.status === 'succeeded'),
      'every delivery to succeed after the restart',
      LEASE_MS + 20_000,
    )
    const received = receivedEventIds(receiver)
    for (const id of expected) assert.ok(received.has(id), `event ${id} arrived`)
    // Those in flight at the crash were never answered, so they came again.
    for (const id of inFlightAtCrash) {
      assert.ok(
        receiver.received.some((r) => r.at > killedAt && r.headers['x-service-event-id'] === id),
        `event ${id}, in flight at the crash, was sent again`,
      )
    }
    const final = await deliveries(second, orgId)
    assert.ok(
      final.some((d) => d.attempts >= 2),
      'an interrupted attempt counts',
    )
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0, second.output())
  })

  test('WEBHOOK_WORKER=off writes events and deliveries but sends nothing; an instance with the worker delivers them', async (ctx) => {
    const store = await freshStore()
    ctx.after(() => store.drop())
    receiver.received.length = 0
    receiver.setHandler(() => ({ status: 200 }))

    const apiOnly = await start({ ...store.env, WEBHOOK_WORKER: 'off' })
    assert.match(apiOnly.output(), /"webhook_worker":"off"/)
    const { orgId, liveKey } = await tenantWithEndpoint(apiOnly, receiver)
    await createOrders(apiOnly, liveKey, 3)
    const queued = await deliveries(apiOnly, orgId)
    assert.deepEqual(
      queued.map((d) => [d.status, d.attempts]),
      [
        ['pending', 0],
        ['pending', 0],
        ['pending', 0],
      ],
    )
    await sleep(1000)
    assert.equal(receiver.received.length, 0, 'an API-only instance sends nothing')

    if (!TEST_DATABASE_URL) {
      // One process at a time on an embedded data directory.
      apiOnly.child.kill('SIGTERM')
      assert.equal(await apiOnly.exited, 0, apiOnly.output())
    }
    const worker = await start(store.env)
    assert.match(worker.output(), /"webhook_worker":"on"/)
    await waitUntil(() => receivedEventIds(receiver).size === 3, 'the worker to deliver the backlog', 15_000)
    assert.deepEqual(new Set(queued.map((d) => d.event_id)), receivedEventIds(receiver))
    await waitUntil(
      async () => (await deliveries(worker, orgId)).every((d) => d.status === 'succeeded'),
      'the deliveries to be recorded',
      5000,
    )

    if (TEST_DATABASE_URL) {
      // The worker's bookkeeping has a connection of its own; the API-only instance has none.
      const admin = new pg.Client({ connectionString: store.env.DATABASE_URL })
      await admin.connect()
      const { rows } = await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and application_name = 'svc-webhook-worker'`,
      )
      await admin.end()
      assert.equal(rows[0]!.n, 1)
      // Side by side on PostgreSQL: the API-only instance writes, the worker delivers.
      const started = Date.now()
      await createOrders(apiOnly, liveKey, 1)
      await waitUntil(
        () => receivedEventIds(receiver).size === 4,
        'a new event through the other instance',
        5000,
      )
      assert.ok(Date.now() - started < 3000, 'delivered promptly by the other process')
      apiOnly.child.kill('SIGTERM')
      assert.equal(await apiOnly.exited, 0, apiOnly.output())
    }
    worker.child.kill('SIGTERM')
    assert.equal(await worker.exited, 0, worker.output())
  })
})
