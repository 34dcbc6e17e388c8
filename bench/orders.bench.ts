// Performance benchmark for the service core (orders). Not part of npm test.
//
//   npm run bench:orders                 # PostgreSQL and PGlite, ~10 s per scenario
//   npm run bench:orders -- --quick      # short runs, 100 k instead of 1 M orders
//   npm run bench:orders -- --only=pg    # or --only=pglite
//
// Starts the real service (src/main.ts) as a child process with the rate limit
// raised, creates an organization and many live keys through the operator API,
// and drives it with autocannon. In the same run it measures the ceiling: a bare
// Fastify route (ceiling-server.ts) that inserts the same order and item rows in
// one transaction. Speed targets are judged as ratios against that baseline, never
// as absolute numbers: the machine is small and shared.
//
// Also measured: a 200-item order with 50 personalization fields per item (sequential
// p50) and GET /v1/orders at 10 k and 1 M stored orders (PostgreSQL, seeded in SQL).
//
// The parts are in bench/orders/: options.ts (this command line), service.ts (the
// child processes and the operator API), load.ts (autocannon runs), intake.ts (the
// POST scenario against the ceiling), bodies.ts, big-order.ts, get-scale.ts, diagnose.ts
// (statements per request, --diagnose) and report.ts (the table printed at the end).
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { bigOrders } from './orders/big-order.ts'
import { countStatements } from './orders/diagnose.ts'
import { scaling } from './orders/get-scale.ts'
import { intakePglite, intakePostgres } from './orders/intake.ts'
import { target } from './orders/load.ts'
import { log, opts } from './orders/options.ts'
import { printReport } from './orders/report.ts'
import { atExit, cleanup, createTenant, type Proc, startService } from './orders/service.ts'

// ---------------------------------------------------------------- PostgreSQL

/** A fresh database for this run, dropped at the end (also on Ctrl-C) unless --keep. */
async function createDatabase(
  admin: pg.Client,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  await admin.query(`create database ${name}`)
  const drop = async () => {
    const at = atExit.indexOf(drop)
    if (at < 0) return
    atExit.splice(at, 1)
    if (!opts.keep) await admin.query(`drop database if exists ${name} with (force)`)
  }
  atExit.unshift(drop)
  const url = new URL(opts.pgUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop }
}

async function runPostgres(): Promise<void> {
  const dbName = `bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: opts.pgUrl })
  await admin.connect()
  const main = await createDatabase(admin, dbName)
  const drops = [main.drop]
  const databaseUrl = main.url
  const dbPids = async () =>
    (
      await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName])
    ).rows.map((r) => r.pid)
  log(`PostgreSQL: database ${dbName}`)
  let service: Proc | undefined
  let ceiling: Proc | undefined
  let small: Proc | undefined
  try {
    await countStatements('PostgreSQL', { DATABASE_URL: databaseUrl })
    service = await startService('service-pg', { DATABASE_URL: databaseUrl })
    const tenant = await createTenant(service.url, opts.keys, 'live', opts.orgs)
    if (opts.whatIf) {
      log(`what-if: ${opts.whatIf}`)
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(opts.whatIf).finally(() => client.end())
    }
    if (opts.rules > 0) await seedRules(databaseUrl, opts.rules)
    const svc = target(service, dbPids)
    if (!opts.skipLoad) {
      await intakePostgres(svc, tenant, databaseUrl, dbPids, async (proc) => {
        ceiling = await proc
        return ceiling
      })
    }

    if (!opts.skipBig) await bigOrders('PostgreSQL', svc, tenant.keys[0]!)
    if (!opts.skipScale) {
      const smallDb = await createDatabase(admin, `${dbName}_small`)
      drops.push(smallDb.drop)
      small = await startService('service-pg-small', { DATABASE_URL: smallDb.url })
      await scaling({ url: service.url, databaseUrl }, { url: small.url, databaseUrl: smallDb.url })
      await small.stop()
      await smallDb.drop()
    }
  } finally {
    await ceiling?.stop()
    await small?.stop()
    await service?.stop()
    for (const drop of drops) await drop()
    await admin.end()
  }
}

/**
 * N rules per organization, each of 10 conditions: nine that hold for every
 * item of the bench's orders and a last one that never does, so every rule
 * reads every condition on every item and none matches (the orders stay as
 * without rules). Written as the dashboard stores them, with the version moved.
 */
async function seedRules(databaseUrl: string, n: number) {
  const holds = [
    { field: 'item.quantity', operator: 'gte', value: 1 },
    { field: 'item.quantity', operator: 'lt', value: 1000 },
    { field: 'item.files', operator: 'gte', value: 0 },
    { field: 'order.source', operator: 'equals', value: 'api' },
    { field: 'item.personalization', key: 'gift_note', operator: 'absent' },
    { field: 'item.personalization', key: 'gift_wrap', operator: 'absent' },
    { field: 'item.product', operator: 'not_linked' },
    { field: 'item.files', operator: 'lte', value: 10 },
    { field: 'item.quantity', operator: 'lte', value: 999 },
  ]
  const never = { field: 'item.quantity', operator: 'gt', value: 1_000_000 }
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(
      `insert into automation_rules (id, organization_id, position, name, enabled, conditions, actions, created_at, updated_at)
       select gen_random_uuid(), o.id, p, 'Rule ' || p, true, $1::jsonb, $2::jsonb, now(), now()
       from organizations o cross join generate_series(0, $3::int - 1) as p`,
      [
        JSON.stringify([...holds, never]),
        JSON.stringify([{ type: 'hold' }, { type: 'tag', value: 'bench' }]),
        n,
      ],
    )
    await client.query(
      `insert into automation_versions (organization_id, version) select id, 1 from organizations`,
    )
  } finally {
    await client.end()
  }
  log(`automation: ${n} rules of 10 conditions per organization`)
}

// ---------------------------------------------------------------- PGlite

async function runPglite(): Promise<void> {
  const procs: Proc[] = []
  const start = async (p: Promise<Proc>) => {
    const proc = await p
    procs.push(proc)
    return proc
  }
  try {
    if (opts.only === 'pglite') await countStatements('PGlite', {})
    const service = await start(startService('service-pglite', {}))
    const tenant = await createTenant(service.url, opts.keys)
    const svc = target(service)
    if (!opts.skipBig) await bigOrders('PGlite', svc, tenant.keys[0]!)
    if (!opts.skipLoad) await intakePglite(svc, service, tenant, start)
  } finally {
    for (const proc of procs) await proc.stop()
  }
}

// ---------------------------------------------------------------- run

process.once('SIGINT', () => {
  void cleanup().then(() => process.exit(130))
})

try {
  if (opts.only !== 'pglite') await runPostgres()
  if (opts.only !== 'pg') await runPglite()
  printReport()
} catch (err) {
  printReport()
  console.error(err)
  process.exitCode = 1
} finally {
  await cleanup()
}
