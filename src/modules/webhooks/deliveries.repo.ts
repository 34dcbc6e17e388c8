import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, WebhookDeliveryRow } from '../../db/schema.ts'

export const WAKE_CHANNEL = 'svc_webhook_deliveries'

/** NOTIFY is transactional: idle workers wake when the transaction commits, not before. */
export async function wakeWorkers(trx: Database): Promise<void> {
  await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(trx)
}

/**
 * Claims due attempts: FOR UPDATE SKIP LOCKED lets any number of workers on one
 * database take disjoint rows, and the attempt counter is bumped in the same
 * statement. The lease (locked_until) hands an attempt whose worker died back
 * to the others once it runs out.
 */
export async function claimDue(
  db: Database,
  input: { limit: number; now: Date; leaseMs: number; workerId: string },
): Promise<WebhookDeliveryRow[]> {
  if (input.limit <= 0) return []
  return db
    .updateTable('webhook_deliveries')
    .set({
      attempts: sql`attempts + 1`,
      last_attempt_at: input.now,
      locked_until: new Date(input.now.getTime() + input.leaseMs),
      locked_by: input.workerId,
    })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', input.now)
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', input.now)]))
        .orderBy('next_attempt_at')
        .limit(input.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute()
}

/** When the next pending attempt falls due (to sleep exactly until then). */
export async function nextDueAt(db: Database): Promise<Date | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return (row?.next as Date | null) ?? undefined
}

/** Gives claims back untouched (shutdown): the attempt did not happen. */
export async function releaseClaims(db: Database, ids: string[], workerId: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('webhook_deliveries')
    .set({ attempts: sql`greatest(attempts - 1, 0)`, locked_until: null, locked_by: null })
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'pending')
    .execute()
}

/** Pending deliveries of an endpoint that was disabled or deleted fail for good. */
export async function failPendingForEndpoint(trx: Database, endpointId: string): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', error_code: 'endpoint_disabled', next_attempt_at: null, locked_until: null })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute()
}

export async function listDeliveries(
  db: Database,
  filter: { organizationId?: string; environment?: Environment; endpointId?: string; limit: number },
): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll()
  if (filter.organizationId) query = query.where('organization_id', '=', filter.organizationId)
  if (filter.environment) query = query.where('environment', '=', filter.environment)
  if (filter.endpointId) query = query.where('endpoint_id', '=', filter.endpointId)
  return query.orderBy('id', 'desc').limit(filter.limit).execute()
}
