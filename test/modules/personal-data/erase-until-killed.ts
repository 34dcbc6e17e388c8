/**
 * A process that erases and dies of kill -9 half-way: in its second batch,
 * just after that batch changed its orders and before it commits. Run by
 * kill.process.test.ts with DATABASE_URL (PostgreSQL) or DATA_DIR (the
 * embedded database), BATCH, and either MODE=erase with ORGANIZATION_ID and
 * CUSTOMER_EMAIL, or MODE=prune with NOW (the retention's prune at that time).
 */
import type { KyselyPlugin, QueryId } from 'kysely'
import { openDatabase } from '../../../src/db/database.ts'
import { systemClock } from '../../../src/lib/clock.ts'
import { createPersonalDataService } from '../../../src/modules/personal-data/index.ts'

const env = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

const ordersUpdates = new Set<QueryId>()
let done = 0
const killHalfWay: KyselyPlugin = {
  transformQuery({ node, queryId }) {
    if (node.kind === 'UpdateQueryNode' && JSON.stringify(node.table).includes('"name":"orders"'))
      ordersUpdates.add(queryId)
    return node
  },
  async transformResult({ queryId, result }) {
    if (ordersUpdates.has(queryId) && ++done === 2) process.kill(process.pid, 'SIGKILL')
    return result
  },
}

const opened = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: env('DATA_DIR') },
)
const service = createPersonalDataService({
  db: opened.db.withPlugin(killHalfWay),
  clock: process.env.NOW ? { now: () => new Date(env('NOW')) } : systemClock,
  orderViews: async (rows) => rows,
  flushRequestLog: async () => {},
  batch: Number(env('BATCH')),
})
if (env('MODE') === 'prune') await service.prune()
else
  await service.erase(
    env('ORGANIZATION_ID'),
    { email: env('CUSTOMER_EMAIL') },
    { personalization: 'all' },
    { accountId: null, label: 'operator token', address: null, operator: true },
  )
console.log('finished without being killed')
await opened.db.destroy()
