// Automation rules changed while orders arrive on two instances (issue 43,
// items 1 and 2). Not part of npm test: the suite's own test of the same
// invariant is test/modules/automation/automation.test.ts.
//
//   npm run bench:automation-instances
//   npm run bench:automation-instances -- --seconds=30 --clients=16 --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// Two services (src/main.ts) on one fresh PostgreSQL database. A developer
// signed in on instance A changes one rule every 100 to 500 ms (--min-ms,
// --max-ms), each change tagging orders `v<n>`; --clients clients (16), half
// on A, half on B, send live orders for --seconds (30). Each order's tag says
// which version of the rules it was evaluated with.
// Reported: orders per instance, rule changes, stale evaluations (an order
// tagged with a version older than the newest change answered 200 before the
// order was sent) and 503s. Target: 0 stale, 0 × 503; exits 1 otherwise.
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { benchArgs } from './lib/args.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { type Service, startService, tenant, v1 } from './lib/service.ts'

const {
  seconds: SECONDS,
  clients: CLIENTS,
  'min-ms': MIN_MS,
  'max-ms': MAX_MS,
  flags,
} = benchArgs({ seconds: 30, clients: 16, 'min-ms': 100, 'max-ms': 500 }, { 'pg-url': PG_URL_OPTION })

const PASSWORD = 'correct horse battery staple'

/** A member's dashboard session on a service: cookie jar and CSRF token, as the browser keeps them. */
async function signedInMember(service: Service, orgId: string) {
  const email = `bench-${Date.now()}@example.com`
  const invited = await service.admin('POST', `/organizations/${orgId}/invitations`, {
    email,
    role: 'developer',
  })
  const token = new URL(invited.data.url).hash.replace(/^#token=/, '')
  const cookies = new Map<string, string>()
  let csrf = ''
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.base}/dashboard/api${path}`, {
      method,
      headers: {
        origin: service.base,
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const eq = pair!.indexOf('=')
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    return { status: res.status, json: await res.json() }
  }
  csrf = (await call('GET', '/session')).json.data.csrf_token
  const accepted = await call('POST', '/invitations/accept', { token, password: PASSWORD })
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.json)}`)
  csrf = (await call('GET', '/session')).json.data.csrf_token
  return call
}

const database = await freshDatabase(flags['pg-url'], 'bench_rules')
const services: Service[] = []
try {
  const start = async () => {
    const service = await startService({ DATABASE_URL: database.url, WEBHOOK_WORKER: 'false' })
    services.push(service)
    return service
  }
  const a = await start()
  const b = await start()
  const { orgId, key } = await tenant(a, 'Rapid Rules')
  const member = await signedInMember(a, orgId)
  const tagged = (n: number) => ({
    name: 'Version',
    enabled: true,
    conditions: [],
    actions: [{ type: 'tag', value: `v${n}` }],
  })
  const created = await member('POST', '/automation/rules', tagged(0))
  if (created.status !== 201) throw new Error(`rule: ${created.status} ${JSON.stringify(created.json)}`)
  const ruleId = created.json.data.rule.id as string

  let acknowledged = 0
  let changes = 0
  const until = Date.now() + SECONDS * 1000
  const changer = (async () => {
    while (Date.now() < until) {
      const n = changes + 1
      const res = await member('PUT', `/automation/rules/${ruleId}`, tagged(n))
      if (res.status !== 200) throw new Error(`change ${n}: ${res.status} ${JSON.stringify(res.json)}`)
      changes = n
      acknowledged = n
      await sleep(MIN_MS + Math.random() * (MAX_MS - MIN_MS))
    }
  })()
  type Sent = { id: string; before: number }
  const perInstance = new Map<Service, { sent: Sent[]; statuses: Map<number, number> }>([
    [a, { sent: [], statuses: new Map() }],
    [b, { sent: [], statuses: new Map() }],
  ])
  const client = async (service: Service) => {
    const mine = perInstance.get(service)!
    let n = 0
    while (Date.now() < until) {
      const before = acknowledged
      const res = await v1(service, key, 'POST', '/orders', {
        external_order_id: `R-${service.port}-${process.hrtime.bigint()}-${n++}`,
        customer: { name: 'Jo Doe' },
        items: [{ name: 'Mug', quantity: 1 }],
      })
      mine.statuses.set(res.status, (mine.statuses.get(res.status) ?? 0) + 1)
      if (res.status === 201) mine.sent.push({ id: res.json.data.order.id, before })
    }
  }
  await Promise.all([changer, ...Array.from({ length: CLIENTS }, (_, i) => client(i % 2 === 0 ? a : b))])

  const direct = new pg.Client({ connectionString: database.url })
  await direct.connect()
  const { rows } = await direct.query<{ id: string; tags: string[] }>(
    'select id, tags from orders where organization_id = $1',
    [orgId],
  )
  await direct.end()
  const tags = new Map(rows.map((r) => [r.id, r.tags[0] ?? 'none']))
  let failed = false
  console.log(
    `${changes} rule changes in ${SECONDS} s, one every ${MIN_MS}-${MAX_MS} ms, on A; ${CLIENTS} clients`,
  )
  for (const [name, service] of [
    ['A (changes the rules)', a],
    ['B', b],
  ] as const) {
    const { sent, statuses } = perInstance.get(service)!
    const stale = sent.filter((o) => !(Number(tags.get(o.id)!.slice(1)) >= o.before)).length
    const unavailable = statuses.get(503) ?? 0
    const others = [...statuses].filter(([status]) => status !== 201 && status !== 503)
    console.log(
      `${name}: ${sent.length} orders, ${stale} stale evaluations, ${unavailable} x 503` +
        (others.length ? `, other answers ${JSON.stringify(Object.fromEntries(others))}` : ''),
    )
    if (stale > 0 || unavailable > 0 || others.length > 0) failed = true
  }
  console.log(failed ? 'target missed' : 'target met: 0 stale, 0 x 503')
  process.exitCode = failed ? 1 : 0
} finally {
  for (const service of services) await service.stop()
  await database.drop()
}
