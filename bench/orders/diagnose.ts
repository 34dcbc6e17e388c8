// Where the time goes: the statements one POST and one GET send on the real
// service (always), and with --diagnose one more load scenario: POSTs with test
// keys (no production rows, no event).
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { smallOrder } from './bodies.ts'
import { type LoadResult, postScenario, type Scenario, type Target } from './load.ts'
import { opts, workDir } from './options.ts'
import { against, notes, rows } from './report.ts'
import { call, createTenant, hook, startService } from './service.ts'

/** The statements one POST and one GET send, logged by a hook in a separate service process. */
export async function countStatements(
  database: 'PostgreSQL' | 'PGlite',
  env: Record<string, string>,
): Promise<void> {
  const logFile = join(workDir, 'statements.log')
  writeFileSync(logFile, '')
  const service = await startService('service-count', { ...env, STATEMENT_LOG: logFile }, [
    '--import',
    hook('log-statements.ts'),
  ])
  try {
    const tenant = await createTenant(service.url, 1)
    const during = async (fn: () => Promise<unknown>) => {
      const before = readFileSync(logFile, 'utf8').length
      await fn()
      return readFileSync(logFile, 'utf8').slice(before).split('\n').filter(Boolean)
    }
    const key = tenant.keys[0]!
    const post = await during(() => call(service.url, key, 'POST', '/v1/orders', smallOrder('count-1')))
    const get = await during(() => call(service.url, key, 'GET', '/v1/orders?limit=100'))
    notes.push(
      `${database}, statements per request on the real service (BEGIN/COMMIT included): ` +
        `POST /v1/orders (live key, 3 items) = ${post.length}, GET /v1/orders = ${get.length}; ` +
        'the bare route sends 1',
      ...post.map((s, i) => `  POST ${i + 1}: ${s.slice(0, 90)}`),
      ...get.map((s, i) => `  GET ${i + 1}: ${s.slice(0, 90)}`),
    )
  } finally {
    await service.stop()
  }
}

/** Test-key POSTs: no production rows, no event. */
export async function addDiagnostics(scenarios: Record<string, Scenario>, svc: Target): Promise<void> {
  const testTenant = await createTenant(svc.url, opts.keys, 'test')
  scenarios.serviceTest = postScenario(svc, testTenant.keys, `svct-${randomBytes(3).toString('hex')}`)
}

export function diagnosticRows(database: string, results: Record<string, LoadResult>, ceiling: LoadResult) {
  const t = results.serviceTest
  if (t) {
    rows.push({
      database,
      scenario: 'service POST, test key (no production/event)',
      ...t,
      ...against(t, ceiling),
    })
  }
}
