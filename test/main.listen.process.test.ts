import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { NEEDS_POSTGRESQL, orderBody, TEST_DATABASE_URL } from './helpers/app.ts'
import { createPgDatabase, type PgDatabase, seededDataDir } from './helpers/databases.ts'
import { accepts, callService, type ServiceProcess, startServiceProcess } from './helpers/service-process.ts'
import { openStream, type SseStream } from './helpers/sse.ts'

// Listen streams against real service processes: a restart, and two instances on one PostgreSQL.
const TOKEN = 'op_listen_process_test_token'
const running: ServiceProcess[] = []
const streams: SseStream[] = []
const dirs: string[] = []

async function dataDir(): Promise<string> {
  const dir = await seededDataDir('svc-listen-')
  dirs.push(dir)
  return dir
}

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startServiceProcess({ OPERATOR_TOKEN: TOKEN, WEBHOOK_WORKER: 'off', ...env })
  running.push(service)
  return service
}

async function stream(service: ServiceProcess, key: string, lastEventId?: string): Promise<SseStream> {
  const s = await openStream(`http://127.0.0.1:${service.port}`, key, lastEventId ? { lastEventId } : {})
  streams.push(s)
  assert.equal(s.status, 200, s.body)
  await s.next((f) => f.event === 'ready')
  return s
}

async function keys(service: ServiceProcess): Promise<{ live: string; test: string }> {
  const org = await callService(service.port, TOKEN, 'POST', '/admin/v1/organizations', { name: 'Listen' })
  const key = async (environment: string) =>
    (
      await callService(
        service.port,
        TOKEN,
        'POST',
        `/admin/v1/organizations/${org.body.data.organization.id}/api-keys`,
        { environment, scopes: ['orders:write', 'webhooks:manage'] },
      )
    ).body.data.key as string
  return { live: await key('live'), test: await key('test') }
}

async function order(service: ServiceProcess, key: string): Promise<string> {
  const res = await callService(service.port, key, 'POST', '/v1/orders', orderBody())
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body.data.order.id
}

async function stop(service: ServiceProcess): Promise<number> {
  const started = performance.now()
  service.child.kill('SIGTERM')
  assert.equal(await service.exited, 0, service.output())
  return performance.now() - started
}

after(async () => {
  for (const s of streams) s.close()
  for (const service of running) service.child.kill('SIGKILL')
  await Promise.all(running.map((s) => s.exited))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('listen streams of a service process', () => {
  test('SIGTERM ends an open stream cleanly and frees the port; Last-Event-ID resumes after the restart', async () => {
    const dir = await dataDir()
    const first = await start({ DATA_DIR: dir, DATABASE_URL: '' })
    const key = await keys(first)
    const s = await stream(first, key.live)
    await order(first, key.live)
    const seen = await s.next((f) => f.event === 'order.received')

    const tookMs = await stop(first)
    await s.ended
    assert.ok(tookMs < 5000, `stopped in ${Math.round(tookMs)} ms with a stream open`)
    assert.equal(await accepts(first.port), false, 'the port is free')

    const second = await start({ DATA_DIR: dir, DATABASE_URL: '' })
    const later = [await order(second, key.live), await order(second, key.live)]
    const resumed = await stream(second, key.live, seen.id!)
    await resumed.next((f) => f.event === 'order.received', { from: 2 })
    assert.deepEqual(
      resumed.frames.slice(1).map((f) => [f.event, JSON.parse(f.data).data.order_id]),
      later.map((id) => ['order.received', id]),
    )
    await stop(second)
    await resumed.ended
  })
})

describe('listen across instances on one PostgreSQL', {
  skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL,
}, () => {
  let database: PgDatabase
  let url: string
  before(async () => {
    database = await createPgDatabase(TEST_DATABASE_URL!)
    url = database.url
  })

  test('an event written on one instance and a sample triggered on it reach streams open on the other', async () => {
    const dir = await dataDir()
    const a = await start({ DATA_DIR: dir, DATABASE_URL: url })
    const b = await start({ DATA_DIR: dir, DATABASE_URL: url })
    const key = await keys(a)
    const live = await stream(b, key.live)
    const test = await stream(b, key.test)
    const orderId = await order(a, key.live)
    const received = await live.next((f) => f.event === 'order.received')
    assert.equal(JSON.parse(received.data).data.order_id, orderId)

    const triggered = await callService(a.port, key.test, 'POST', '/v1/webhook-events/trigger', {
      type: 'ping',
    })
    assert.deepEqual(triggered.body, { data: { type: 'ping', sessions: 1 } })
    const sample = await test.next((f) => f.event === 'ping')
    assert.equal(JSON.parse(sample.data).type, 'ping')
    assert.deepEqual(
      live.frames.map((f) => f.event),
      ['ready', 'order.received'],
    )
    await Promise.all([stop(a), stop(b)])
  })
})
