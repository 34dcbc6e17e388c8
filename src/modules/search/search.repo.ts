import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The order with this id in one environment of the organization (the primary key). */
export function findOrderById(
  db: Database,
  scope: { organizationId: string; environment: 'live' | 'test' },
  id: string,
) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .execute()
}

/** Endpoints whose URL contains the text (any case): an organization has a handful. */
export function findEndpointsByUrl(db: Database, organizationId: string, text: string, limit: number) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'environment', 'description'])
    .where('organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['url']), 'like', `%${escapeLike(text.toLowerCase())}%`))
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
}

/** Keys whose visible prefix starts with the text. */
export function findKeysByPrefix(db: Database, organizationId: string, text: string, limit: number) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'key_prefix', 'environment', 'name', 'revoked_at'])
    .where('organization_id', '=', organizationId)
    .where('key_prefix', 'like', `${escapeLike(text)}%`)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
}

/** An order of any organization by its id. */
export function findAnyOrderById(db: Database, id: string) {
  return db
    .selectFrom('orders')
    .innerJoin('organizations', 'organizations.id', 'orders.organization_id')
    .select([
      'orders.id',
      'orders.organization_id',
      'organizations.name as organization_name',
      'orders.external_order_id',
      'orders.environment',
      'orders.status',
      'orders.customer_name',
      'orders.customer_email',
      'orders.created_at',
    ])
    .where('orders.id', '=', id)
    .execute()
}

/**
 * Orders of every organization whose external id, customer email or name
 * starts with the text (any case), newest first: for each organization and
 * environment, the newest few read through that organization's prefix
 * indexes (migration 0017), so the cost follows the number of
 * organizations, never the orders.
 */
export async function findOrdersEverywhere(db: Database, text: string, limit: number) {
  const pattern = `${escapeLike(text.toLowerCase())}%`
  const result = await sql<{
    id: string
    organization_id: string
    organization_name: string
    external_order_id: string
    environment: 'live' | 'test'
    status: string
    customer_name: string
    customer_email: string | null
    created_at: Date
  }>`
    select x.*, o.name as organization_name
    from organizations o
    cross join (values ('live'), ('test')) e(environment)
    cross join lateral (
      select id, organization_id, external_order_id, environment, status, customer_name, customer_email, created_at
      from orders
      where organization_id = o.id and environment = e.environment
        and (lower(external_order_id) like ${pattern} or lower(customer_email) like ${pattern}
             or lower(customer_name) like ${pattern})
      order by created_at desc, id desc
      limit ${limit}::int
    ) x
    order by x.created_at desc, x.id desc
    limit ${limit}::int`.execute(db)
  return result.rows
}

/** A production order of any organization by its id, with its order. */
export function findProductionOrderById(db: Database, id: string) {
  return db
    .selectFrom('production_orders')
    .innerJoin('orders', 'orders.id', 'production_orders.order_id')
    .innerJoin('organizations', 'organizations.id', 'orders.organization_id')
    .select([
      'production_orders.id',
      'production_orders.status',
      'orders.external_order_id',
      'organizations.name as organization_name',
    ])
    .where('production_orders.id', '=', id)
    .execute()
}

/** Organizations whose name contains the text (any case): the platform has a few hundred. */
export function findOrganizationsByName(db: Database, text: string, limit: number) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name'])
    .where((eb) => eb(eb.fn('lower', ['name']), 'like', `%${escapeLike(text.toLowerCase())}%`))
    .orderBy('name')
    .limit(limit)
    .execute()
}

/** Endpoints of any organization whose URL contains the text (any case), with their organization. */
export function findEndpointsEverywhere(db: Database, text: string, limit: number) {
  return db
    .selectFrom('webhook_endpoints')
    .innerJoin('organizations', 'organizations.id', 'webhook_endpoints.organization_id')
    .select([
      'webhook_endpoints.id',
      'webhook_endpoints.url',
      'webhook_endpoints.environment',
      'webhook_endpoints.organization_id',
      'organizations.name as organization_name',
    ])
    .where((eb) =>
      eb(eb.fn('lower', ['webhook_endpoints.url']), 'like', `%${escapeLike(text.toLowerCase())}%`),
    )
    .orderBy('webhook_endpoints.created_at', 'desc')
    .limit(limit)
    .execute()
}

/** Keys of any organization whose visible prefix starts with the text, with their organization. */
export function findKeysEverywhere(db: Database, text: string, limit: number) {
  return db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
    .select([
      'api_keys.id',
      'api_keys.key_prefix',
      'api_keys.environment',
      'api_keys.revoked_at',
      'api_keys.organization_id',
      'organizations.name as organization_name',
    ])
    .where('api_keys.key_prefix', 'like', `${escapeLike(text)}%`)
    .orderBy('api_keys.created_at', 'desc')
    .limit(limit)
    .execute()
}
