import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, Environment, WebhookEndpointRow } from '../../../db/schema.ts'

export interface EndpointScope {
  organizationId: string
  environment: Environment
}

/** The endpoint with this id, whoever it belongs to: the caller compares (so that a miss can say where it is). */
export async function findEndpoint(db: Database, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
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

/**
 * Sets the description and/or enabled_events of an endpoint that is still
 * active when the statement runs; undefined when it is not (deleted or
 * disabled meanwhile). Without changes, reads it under the same condition.
 */
export async function updateActiveEndpoint(
  db: Database,
  id: string,
  changes: { description?: string; enabled_events?: string[] },
): Promise<WebhookEndpointRow | undefined> {
  if (Object.keys(changes).length === 0) {
    return db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('is_active', '=', true)
      .executeTakeFirst()
  }
  return db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('id', '=', id)
    .where('is_active', '=', true)
    .returningAll()
    .executeTakeFirst()
}

/** Deleted by its owner: inactive for good, without a disabled reason. */
export async function deactivateEndpoint(trx: Transaction<DB>, id: string, at: Date): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ is_active: false, disabled_reason: null, disabled_at: at })
    .where('id', '=', id)
    .execute()
}

/** An endpoint of the scope, locked until the transaction ends (a rotation reads and replaces its secrets). */
export async function lockEndpoint(
  trx: Transaction<DB>,
  scope: EndpointScope,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .forUpdate()
    .executeTakeFirst()
}

/**
 * Replaces the signing secret; the previous one (or none) signs too until it
 * expires. secret_changed_at takes the database's time, the clock the worker
 * signs by (the dashboard compares the two: delivered-headers.ts).
 */
export async function replaceSecret(
  trx: Transaction<DB>,
  id: string,
  secrets: {
    secret_encrypted: string
    previous_secret_encrypted: string | null
    previous_secret_expires_at: Date | null
  },
): Promise<WebhookEndpointRow> {
  return trx
    .updateTable('webhook_endpoints')
    .set({ ...secrets, secret_changed_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** An endpoint by id, locked until the transaction ends: a claim taking its probe holds the same lock. */
export async function lockEndpointById(
  trx: Transaction<DB>,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/** The endpoint's next probe may start at `at` (Retry now); the caller holds its lock. */
export async function setNextProbe(trx: Transaction<DB>, id: string, at: Date): Promise<WebhookEndpointRow> {
  return trx
    .updateTable('webhook_endpoints')
    .set({ next_probe_at: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * Of these endpoints, the active ones whose last attempt failed, with when
 * each one's next probe may start (their deliveries wait for it).
 */
export async function nextProbes(db: Database, ids: readonly string[]): Promise<Map<string, Date>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'next_probe_at'])
    .where('id', 'in', [...ids])
    .where('is_active', '=', true)
    .where('next_probe_at', 'is not', null)
    .execute()
  return new Map(rows.map((r) => [r.id, r.next_probe_at!]))
}
