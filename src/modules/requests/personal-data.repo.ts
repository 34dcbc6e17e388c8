import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { ApiRequestRow, Environment } from '../../db/schema.ts'

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The organization's lines whose bodies hold any of the texts (lower case):
 * refused requests, which created no order, and whatever else carried them.
 */
function bodiesHolding(db: Database, organizationId: string, texts: string[]) {
  const patterns = texts.map(likePattern)
  return db
    .selectFrom('api_requests')
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        eb(sql`lower(request_body)`, 'like', sql`any(${patterns}::text[])`),
        eb(sql`lower(response_body)`, 'like', sql`any(${patterns}::text[])`),
      ]),
    )
}

/** The lines of the orders (created or answered again) that still keep a body. */
function bodiesOfOrders(db: Database, organizationId: string, orderIds: string[]) {
  return db
    .selectFrom('api_requests')
    .where('organization_id', '=', organizationId)
    .where('order_id', 'in', orderIds)
    .where((eb) => eb.or([eb('request_body', 'is not', null), eb('response_body', 'is not', null)]))
}

/** Lines with a body that an erasure of the orders and the texts would drop. */
export async function countBodiesToErase(
  db: Database,
  organizationId: string,
  orderIds: string[],
  texts: string[],
): Promise<number> {
  if (orderIds.length === 0 && texts.length === 0) return 0
  const row = await db
    .selectFrom('api_requests')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        ...(orderIds.length > 0
          ? [eb('id', 'in', bodiesOfOrders(db, organizationId, orderIds).select('id'))]
          : []),
        ...(texts.length > 0 ? [eb('id', 'in', bodiesHolding(db, organizationId, texts).select('id'))] : []),
      ]),
    )
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Request-log lines of the orders: their bodies go, the line (method, path, status, time) stays. */
export async function dropBodiesOfOrders(trx: Database, organizationId: string, orderIds: string[]) {
  if (orderIds.length === 0) return 0
  const result = await trx
    .updateTable('api_requests')
    .set({ request_body: null, response_body: null })
    .where('id', 'in', bodiesOfOrders(trx, organizationId, orderIds).select('id'))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

export async function dropBodiesHolding(
  db: Database,
  organizationId: string,
  texts: string[],
): Promise<number> {
  if (texts.length === 0) return 0
  const result = await db
    .updateTable('api_requests')
    .set({ request_body: null, response_body: null })
    .where('id', 'in', bodiesHolding(db, organizationId, texts).select('id'))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** The lines of the orders, and those whose bodies hold the texts, oldest first (an export). */
export async function requestLinesOf(
  db: Database,
  organizationId: string,
  orderIds: string[],
  texts: string[],
): Promise<ApiRequestRow[]> {
  if (orderIds.length === 0 && texts.length === 0) return []
  return db
    .selectFrom('api_requests')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        ...(orderIds.length > 0 ? [eb('order_id', 'in', orderIds)] : []),
        ...(texts.length > 0 ? [eb('id', 'in', bodiesHolding(db, organizationId, texts).select('id'))] : []),
      ]),
    )
    .orderBy('created_at')
    .execute()
}

/** Bodies dropped from one batch of lines older than `olderThan` (the organization's retention). */
export async function pruneBodies(
  db: Database,
  scope: { organizationId: string; environment: Environment },
  olderThan: Date,
  batch: number,
): Promise<number> {
  const result = await db
    .updateTable('api_requests')
    .set({ request_body: null, response_body: null })
    .where(
      'id',
      'in',
      db
        .selectFrom('api_requests')
        .select('id')
        .where('organization_id', '=', scope.organizationId)
        .where('environment', '=', scope.environment)
        .where('created_at', '<', olderThan)
        .where((eb) => eb.or([eb('request_body', 'is not', null), eb('response_body', 'is not', null)]))
        .limit(batch),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
