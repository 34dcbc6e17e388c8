import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { orderBody } from './helpers/app.ts'
import { seededDataDir } from './helpers/databases.ts'
import { startOtlpReceiver } from './helpers/otlp-receiver.ts'
import { callService, type ServiceProcess, startServiceProcess } from './helpers/service-process.ts'
import { waitUntil } from './helpers/wait.ts'

type Service = ServiceProcess

function startService(dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  return startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ...env })
}

/**
 * One service on a DATA_DIR of its own for the enclosing describe's tests,
 * its traces sent to a collector in this process; killed and removed after them.
 */
function serviceForSuite(prefix: string): {
  dataDir: string
  service: Service
  collector: Awaited<ReturnType<typeof startOtlpReceiver>>
} {
  const suite = {} as ReturnType<typeof serviceForSuite>
  before(async () => {
    suite.dataDir = await seededDataDir(prefix)
    suite.collector = await startOtlpReceiver()
    suite.service = await startService(suite.dataDir, { OTEL_EXPORTER_OTLP_ENDPOINT: suite.collector.url })
  })
  after(async () => {
    suite.service?.child.kill('SIGKILL')
    await suite.collector?.close()
    if (suite.dataDir) rmSync(suite.dataDir, { recursive: true, force: true })
  })
  return suite
}

/** `npm run admin -- ...args` against the suite's service, with the operator token it finds in DATA_DIR. */
function adminCli({ dataDir, service }: { dataDir: string; service: Service }, args: string[]) {
  return spawnSync(process.execPath, ['scripts/admin.ts', ...args], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(service.port),
      PUBLIC_BASE_URL: '',
      OPERATOR_TOKEN: '',
    },
    encoding: 'utf8',
  })
}

/** One service (a start costs seconds of CPU) for what a user does first: the token, bootstrap, the first owner. */
describe('a service on a DATA_DIR of its own', () => {
  const suite = serviceForSuite('svc-main-')

  describe('the service process', () => {
    test('generates the operator token into DATA_DIR with mode 0600 and prints its path', () => {
      const { dataDir, service } = suite
      const path = join(dataDir, 'operator-token')
      assert.equal(statSync(path).mode & 0o777, 0o600)
      assert.match(readFileSync(path, 'utf8'), /^op_[0-9A-Za-z]{43}\n$/)
      assert.ok(service.output().includes(path))
    })

    test('npm run admin -- bootstrap creates an organization with working test and live keys; no secret is logged', async () => {
      const { dataDir, service } = suite
      const cli = adminCli(suite, ['bootstrap', '--name', 'CLI Org'])
      assert.equal(cli.status, 0, cli.stderr)
      const testKey = /Test key: +(svc_test_\w+)/.exec(cli.stdout)?.[1]
      const liveKey = /Live key: +(svc_live_\w+)/.exec(cli.stdout)?.[1]
      assert.ok(testKey && liveKey, cli.stdout)
      for (const [key, environment] of [
        [testKey, 'test'],
        [liveKey, 'live'],
      ] as const) {
        const res = await fetch(`http://127.0.0.1:${service.port}/v1/ping`, {
          headers: { authorization: `Bearer ${key}` },
        })
        assert.equal(res.status, 200)
        const body = (await res.json()) as { data: { environment: string; organization: { name: string } } }
        assert.equal(body.data.environment, environment)
        assert.equal(body.data.organization.name, 'CLI Org')
      }
      const token = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()
      const logs = service.output()
      assert.ok(logs.includes('/v1/ping'), 'requests are logged')
      assert.ok(!logs.includes(testKey), 'the test key is not logged')
      assert.ok(!logs.includes(liveKey), 'the live key is not logged')
      assert.ok(!logs.includes(token), 'the operator token is not logged')
      assert.match(logs, /"reqId":"[0-9a-f-]{36}"/, 'log lines carry request ids')
    })
  })

  describe('the dashboard of the service process', () => {
    test('npm run admin -- invitations create prints a link that makes the first owner; /dashboard serves the app', async () => {
      const { dataDir, service } = suite
      const token = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()
      const org = (
        await callService(service.port, token, 'POST', '/admin/v1/organizations', { name: 'Dash' })
      ).body.data.organization
      const cli = adminCli(suite, ['invitations', 'create', org.id, 'first@example.com'])
      assert.equal(cli.status, 0, cli.stderr)
      const link = /(http:\/\/localhost:\d+\/dashboard\/invitation#token=(\w+))/.exec(cli.stdout)
      assert.ok(link, cli.stdout)
      assert.match(cli.stdout, /first@example\.com \(owner\)/)

      const base = `http://127.0.0.1:${service.port}`
      const page = await fetch(`${base}/dashboard/invitation`)
      assert.equal(page.status, 200)
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self';/)
      const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1]
      assert.ok(script, 'the page loads the bundle')
      assert.equal((await fetch(`${base}${script}`)).status, 200)

      const session = await fetch(`${base}/dashboard/api/session`)
      const csrf = (await session.json()).data.csrf_token as string
      const cookie = session.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ')
      const accepted = await fetch(`${base}/dashboard/api/invitations/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base, cookie, 'x-csrf-token': csrf },
        body: JSON.stringify({ token: link[2], password: 'correct horse battery staple' }),
      })
      assert.equal(accepted.status, 200, await accepted.clone().text())
      const { member } = (await accepted.json()).data
      assert.deepEqual(
        [member.email, member.role, member.organization.name],
        ['first@example.com', 'owner', 'Dash'],
      )
      assert.ok(!service.output().includes(link[2]!), 'the invitation token is not logged')
    })

    test('with OTEL_EXPORTER_OTLP_ENDPOINT it sends a span per request with its statements, and logs their ids', async () => {
      const { service, collector } = suite
      // Sent in batches every 5 s: the requests of the tests above.
      const request = await collector.waitForSpan(
        (s) => s.name === 'POST /admin/v1/organizations' && s.attributes['http.response.status_code'] === 201,
        'the span of an organization created',
      )
      assert.equal(request.resource['service.name'], 'order-intake-service')
      await waitUntil(
        () =>
          collector.spans.some(
            (s) => s.traceId === request.traceId && s.scope.includes('instrumentation-pg'),
          ),
        'its statements',
      )
      assert.equal(
        collector.spans.some((s) => s.name.includes('healthz') || s.name.includes('readyz')),
        false,
        'probes are not traced',
      )
      assert.match(
        service.output(),
        new RegExp(`"trace_id":"${request.traceId}","span_id":"${request.spanId}"`),
      )
    })
  })
})

describe('SIGTERM', () => {
  test('drains an in-flight request, then exits 0', async () => {
    const dataDir = await seededDataDir('svc-term-')
    const service = await startService(dataDir, { OPERATOR_TOKEN: 'op_term_test_token' })
    try {
      const admin = async (path: string, body: unknown) =>
        (await callService(service.port, 'op_term_test_token', 'POST', `/admin/v1${path}`, body)).body
      const org = (await admin('/organizations', { name: 'Term' })).data.organization
      const key = (
        await admin(`/organizations/${org.id}/api-keys`, { environment: 'live', scopes: ['orders:write'] })
      ).data.key as string

      // Send the headers and half the body, then SIGTERM, then the rest.
      const payload = Buffer.from(JSON.stringify(orderBody()))
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: service.port,
            method: 'POST',
            path: '/v1/orders',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'content-length': payload.length,
            },
          },
          (res) => {
            let body = ''
            res.on('data', (d) => {
              body += d
            })
            res.on('end', () => resolve({ status: res.statusCode!, body }))
          },
        )
        req.on('error', reject)
        req.write(payload.subarray(0, 20))
        setTimeout(() => {
          service.child.kill('SIGTERM')
          setTimeout(() => req.end(payload.subarray(20)), 300)
        }, 200)
      })
      const { status, body } = await response
      assert.equal(status, 201, body)
      assert.equal(JSON.parse(body).data.order.status, 'pending')
      assert.equal(await service.exited, 0, service.output())
      assert.match(service.output(), /draining in-flight requests/)
    } finally {
      service.child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
