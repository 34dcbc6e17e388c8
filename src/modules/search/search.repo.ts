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
