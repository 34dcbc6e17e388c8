import type { Database } from '../../../db/database.ts'
import type { Environment } from '../../../db/schema.ts'

/** The deliveries of the orders' events: the receivers' answers are what they may hold of a customer. */
function deliveriesOf(db: Database, orderIds: string[]) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .where('e.order_id', 'in', orderIds)
}

export async function countAnswersOfOrders(db: Database, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0
  const row = await deliveriesOf(db, orderIds)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('d.response_snippet', 'is not', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The orders' events (kept by an erasure: they hold ids, numbers and statuses only), oldest first. */
export async function eventsOf(db: Database, orderIds: string[]) {
  if (orderIds.length === 0) return []
  return db
    .selectFrom('events')
    .select(['id', 'type', 'order_id', 'environment', 'created_at', 'data'])
    .where('order_id', 'in', orderIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export async function countEventsOf(db: Database, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('order_id', 'in', orderIds)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The deliveries of the orders' events with the receivers' answers (an export). */
export async function answersOf(db: Database, orderIds: string[]) {
  if (orderIds.length === 0) return []
  return deliveriesOf(db, orderIds)
    .select([
      'd.id',
      'd.event_id',
      'd.event_type',
      'd.endpoint_id',
      'd.status',
      'd.created_at',
      'd.response_status',
      'd.response_snippet',
    ])
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute()
}

/** Receivers' answers to the deliveries of the orders' events go, from the deliveries and their attempts. */
export async function dropAnswersOfOrders(trx: Database, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0
  const ids = (await deliveriesOf(trx, orderIds).select('d.id').execute()).map((d) => d.id)
  return dropAnswers(trx, ids)
}

async function dropAnswers(trx: Database, deliveryIds: string[]): Promise<number> {
  if (deliveryIds.length === 0) return 0
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ response_snippet: null })
    .where('id', 'in', deliveryIds)
    .where('response_snippet', 'is not', null)
    .executeTakeFirst()
  await trx
    .updateTable('webhook_attempts')
    .set({ response_snippet: null })
    .where('delivery_id', 'in', deliveryIds)
    .where('response_snippet', 'is not', null)
    .execute()
  return Number(result.numUpdatedRows)
}

/**
 * One batch of the retention of receivers' answers: the deliveries created
 * from `from` on and before `olderThan`, oldest first (a delivery settles
 * within its retries, hours after it was created). Answers how many had an
 * answer and how far it came.
 */
export async function pruneAnswers(
  trx: Database,
  scope: { organizationId: string; environment: Environment },
  from: Date | null,
  olderThan: Date,
  batch: number,
): Promise<{ dropped: number; through: Date | null; more: boolean }> {
  const rows = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'created_at', 'response_snippet'])
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .where('created_at', '<', olderThan)
    .$if(from !== null, (q) => q.where('created_at', '>=', from!))
    .orderBy('created_at')
    .orderBy('id')
    .limit(batch)
    .execute()
  const dropped = await dropAnswers(
    trx,
    rows.filter((r) => r.response_snippet !== null).map((r) => r.id),
  )
  const through = rows.at(-1)?.created_at ?? from
  // Deliveries of one event share their creation time: the next batch starts at it again.
  const moved = through !== null && (from === null || through.getTime() > from.getTime())
  return { dropped, through, more: rows.length === batch && moved }
}
