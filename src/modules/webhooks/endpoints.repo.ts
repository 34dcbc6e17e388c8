import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB, Environment, WebhookEndpointRow } from '../../db/schema.ts'

export interface EndpointScope {
  organizationId: string
  environment: Environment
}

/** An endpoint of the organization and environment (any, without a scope: the operator), or undefined. */
export async function findEndpoint(
  db: Database,
  scope: EndpointScope | undefined,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id)
  if (scope) {
    query = query
      .where('organization_id', '=', scope.organizationId)
      .where('environment', '=', scope.environment)
  }
  return query.executeTakeFirst()
}

export async function isEndpointActive(db: Database, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(['is_active'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return row.is_active
}

export async function listEndpoints(
  db: Database,
  scope: EndpointScope,
  limit: number,
): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * Locks the organization's row, which serializes endpoint creation per
 * organization, then counts its active endpoints in the environment.
 */
export async function lockAndCountActive(trx: Transaction<DB>, scope: EndpointScope): Promise<number> {
  await trx
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', scope.organizationId)
    .forUpdate()
    .execute()
  const { count } = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .where('is_active', '=', true)
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function insertEndpoint(trx: Transaction<DB>, row: WebhookEndpointRow): Promise<void> {
  await trx.insertInto('webhook_endpoints').values(row).execute()
}

/** Deleted by its owner: inactive for good, without a disabled reason. */
export async function deactivateEndpoint(trx: Transaction<DB>, id: string, at: Date): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ is_active: false, disabled_reason: null, disabled_at: at })
    .where('id', '=', id)
    .execute()
}

/** Disabled by the worker after too many consecutive failures (those still active). */
export async function disableEndpoints(
  trx: Transaction<DB>,
  ids: readonly string[],
  at: Date,
): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ is_active: false, disabled_reason: 'too_many_failures', disabled_at: at })
    .where('id', 'in', ids)
    .where('is_active', '=', true)
    .execute()
}
