// The load scenario: POST /v1/orders on the service against the ceiling, a bare
// route (bench/ceiling-server.ts) inserting the same rows on the same database,
// in the same run; then GET /v1/orders under load on the orders just written.
// `start` registers each ceiling process with the caller, which stops it if a
// step fails.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { addDiagnostics, diagnosticRows } from './diagnose.ts'
import {
  getScenario,
  type LoadResult,
  measure,
  postScenario,
  type Scenario,
  type Target,
  target,
} from './load.ts'
import { opts } from './options.ts'
import { against, checks, notes, rows } from './report.ts'
import { type Proc, startCeiling, type Tenant } from './service.ts'

type Start = (proc: Promise<Proc>) => Promise<Proc>

async function sqlOn(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** GET pages of the service and of the bare page, alternating; and whether one page is the same from both. */
async function measureGets(
  svc: Target,
  bare: Target,
  keys: string[],
  window: { from: number; to: number },
): Promise<{ ceiling?: LoadResult | undefined; service?: LoadResult | undefined; same?: string }> {
  const since = new Date(window.from + (window.to - window.from) / 3).toISOString()
  const path = `/v1/orders?limit=100&updated_since=${encodeURIComponent(since)}`
  const [mine, theirs] = await Promise.all([
    fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${keys[0]}` } }).then((r) => r.text()),
    fetch(`${bare.url}${path}`).then((r) => r.text()),
  ])
  const same =
    mine === theirs
      ? `byte-identical (${mine.length} bytes)`
      : `different (${mine.length} vs ${theirs.length} bytes)`
  const results = await measure({
    ceiling: getScenario(bare, keys, window),
    service: getScenario(svc, keys, window),
  })
  return { ceiling: results.ceiling, service: results.service, same }
}

export async function intakePostgres(
  svc: Target,
  tenant: Tenant,
  databaseUrl: string,
  dbPids: () => Promise<number[]>,
  start: Start,
): Promise<void> {
  const ceiling = await start(
    startCeiling('ceiling-pg', {
      CEILING_DB: 'pg',
      DATABASE_URL: databaseUrl,
      ORG_IDS: tenant.orgIds.join(','),
    }),
  )
  const scenarios: Record<string, Scenario> = {
    ceiling: {
      ...postScenario(target(ceiling, dbPids), tenant.keys, `ceil-${randomBytes(3).toString('hex')}`),
      waitsOn: databaseUrl,
    },
    service: {
      ...postScenario(svc, tenant.keys, `svc-${randomBytes(3).toString('hex')}`),
      waitsOn: databaseUrl,
    },
  }
  if (opts.diagnose) await addDiagnostics(scenarios, svc)
  const from = Date.now()
  const results = await measure(scenarios)
  const to = Date.now()
  // The tables grew from nothing within seconds; autovacuum would analyze them within
  // a minute, as a long-running service has.
  await sqlOn(databaseUrl, 'analyze')
  const gets: Awaited<ReturnType<typeof measureGets>> = opts.skipGet
    ? {}
    : await measureGets(svc, target(ceiling, dbPids), tenant.keys, { from, to })
  await ceiling.stop()
  const get = gets.service
  const c = results.ceiling!
  const s = results.service!
  rows.push({ database: 'PostgreSQL', scenario: 'bare route POST (one prepared CTE statement)', ...c })
  rows.push({
    database: 'PostgreSQL',
    scenario: 'service POST /v1/orders (3 items)',
    ...s,
    ...against(s, c),
  })
  diagnosticRows('PostgreSQL', results, c)
  if (gets.ceiling && get) {
    rows.push({ database: 'PostgreSQL', scenario: 'bare page GET (one prepared statement)', ...gets.ceiling })
    rows.push({
      database: 'PostgreSQL',
      scenario: 'service GET /v1/orders?limit=100',
      ...get,
      ...against(get, gets.ceiling),
    })
    checks.push({
      target: 'PostgreSQL: service GET page / bare page >= 0.7',
      measured: `${(get.rps / gets.ceiling.rps).toFixed(2)} (${get.rps.toFixed(0)} / ${gets.ceiling.rps.toFixed(0)} pages/s; CPU ratio ${against(get, gets.ceiling).cpuRatio.toFixed(2)})`,
      pass: get.rps / gets.ceiling.rps >= 0.7,
    })
    if (gets.same !== undefined)
      notes.push(`PostgreSQL, a page of 100 from the service and from the bare page: ${gets.same}`)
  }
  const waits = (r: typeof s) =>
    Object.entries(r.waits ?? {})
      .map(([wait, n]) => `${wait} ${n.toFixed(2)}`)
      .join(', ')
  notes.push(
    `PostgreSQL, backends per wait event under POST load (of ${opts.connections} connections, sampled every 100 ms): ` +
      `service: ${waits(s)}; bare route: ${waits(c)}`,
  )
  const locks = (s.waits?.['Lock/object'] ?? 0) + (s.waits?.['Lock/transactionid'] ?? 0)
  checks.push({
    target: 'PostgreSQL: no lock waits on the order path (Lock/object + Lock/transactionid < 0.05)',
    measured: locks.toFixed(2),
    pass: locks < 0.05,
  })
  checks.push({
    target: 'PostgreSQL: service POST / bare route >= 0.6',
    measured: `${(s.rps / c.rps).toFixed(2)} (${s.rps.toFixed(0)} / ${c.rps.toFixed(0)} req/s; CPU ratio ${against(s, c).cpuRatio.toFixed(2)})`,
    pass: s.rps / c.rps >= 0.6,
  })
}

/**
 * The embedded database belongs to one process: the service's pages are
 * measured first, then the service stops and the bare page opens its DATA_DIR
 * and serves the same orders.
 */
async function pgliteGets(
  svc: Target,
  service: Proc,
  tenant: Tenant,
  window: { from: number; to: number },
  start: Start,
): Promise<{ ceiling?: LoadResult | undefined; service?: LoadResult | undefined; same?: string }> {
  const since = new Date(window.from + (window.to - window.from) / 3).toISOString()
  const path = `/v1/orders?limit=100&updated_since=${encodeURIComponent(since)}`
  const mine = await fetch(`${svc.url}${path}`, {
    headers: { authorization: `Bearer ${tenant.keys[0]}` },
  }).then((r) => r.text())
  const served = await measure({ service: getScenario(svc, tenant.keys, window) })
  await service.stop()
  const bare = await start(
    startCeiling('ceiling-pglite-page', {
      CEILING_DB: 'pglite-pg',
      DATA_DIR: service.dataDir!,
      ORG_IDS: tenant.orgIds.join(','),
    }),
  )
  const theirs = await fetch(`${bare.url}${path}`).then((r) => r.text())
  const bared = await measure({ ceiling: getScenario(target(bare), tenant.keys, window) })
  await bare.stop()
  const same =
    mine === theirs
      ? `byte-identical (${mine.length} bytes)`
      : `different (${mine.length} vs ${theirs.length} bytes)`
  return { ceiling: bared.ceiling, service: served.service, same }
}

/** POST against the two bare PGlite routes, then GET pages; stops the service (its DATA_DIR is read by the bare page). */
export async function intakePglite(svc: Target, service: Proc, tenant: Tenant, start: Start): Promise<void> {
  const ceiling = await start(startCeiling('ceiling-pglite', { CEILING_DB: 'pglite' }))
  const ceilingPg = await start(startCeiling('ceiling-pglite-pg', { CEILING_DB: 'pglite-pg' }))
  const scenarios: Record<string, Scenario> = {
    ceiling: postScenario(target(ceiling), tenant.keys, `ceil-${randomBytes(3).toString('hex')}`),
    ceilingPg: postScenario(target(ceilingPg), tenant.keys, `ceilp-${randomBytes(3).toString('hex')}`),
  }
  scenarios.service = postScenario(svc, tenant.keys, `svc-${randomBytes(3).toString('hex')}`)
  if (opts.diagnose) await addDiagnostics(scenarios, svc)
  const from = Date.now()
  const results = await measure(scenarios)
  const to = Date.now()
  await ceiling.stop()
  await ceilingPg.stop()
  const gets = opts.skipGet ? {} : await pgliteGets(svc, service, tenant, { from, to }, start)
  // The ceiling is the faster of the two bare routes: PGlite's own query(), or
  // node-postgres with named prepared statements (the driver the service uses).
  const own = results.ceiling!
  const viaPg = results.ceilingPg!
  const c = viaPg.rps >= own.rps ? viaPg : own
  const s = results.service!
  rows.push({
    database: 'PGlite',
    scenario: 'bare route POST, PGlite query()',
    ...own,
    ...against(own, c),
  })
  rows.push({
    database: 'PGlite',
    scenario: 'bare route POST, node-postgres + prepared',
    ...viaPg,
    ...against(viaPg, c),
  })
  rows.push({ database: 'PGlite', scenario: 'service POST /v1/orders (3 items)', ...s, ...against(s, c) })
  diagnosticRows('PGlite', results, c)
  const get = gets.service
  if (gets.ceiling && get) {
    rows.push({ database: 'PGlite', scenario: 'bare page GET (node-postgres, prepared)', ...gets.ceiling })
    rows.push({
      database: 'PGlite',
      scenario: 'service GET /v1/orders?limit=100',
      ...get,
      ...against(get, gets.ceiling),
    })
    checks.push({
      target: 'PGlite: service GET page / bare page >= 0.5',
      measured: `${(get.rps / gets.ceiling.rps).toFixed(2)} (${get.rps.toFixed(0)} / ${gets.ceiling.rps.toFixed(0)} pages/s; CPU ratio ${against(get, gets.ceiling).cpuRatio.toFixed(2)})`,
      pass: get.rps / gets.ceiling.rps >= 0.5,
    })
    if (gets.same !== undefined)
      notes.push(`PGlite, a page of 100 from the service and from the bare page: ${gets.same}`)
  }
  checks.push({
    target: 'PGlite: service POST / faster bare PGlite route >= 0.5',
    measured: `${(s.rps / c.rps).toFixed(2)} (${s.rps.toFixed(0)} / ${c.rps.toFixed(0)} req/s; CPU ratio ${against(s, c).cpuRatio.toFixed(2)})`,
    pass: s.rps / c.rps >= 0.5,
  })
}
