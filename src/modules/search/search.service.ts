import type { Database } from '../../db/database.ts'
import { isUuid } from '../../lib/ids.ts'
import { findNewestOrdersPage } from '../orders/orders-pages.repo.ts'
import { findEndpointsByUrl, findKeysByPrefix, findOrderById } from './search.repo.ts'

const PER_GROUP = 5

/**
 * The header's search: orders by external id, id (the order number), the
 * customer's email or name; webhook endpoints by URL; API keys by prefix.
 * Orders go through the Orders page's query and its prefix indexes (migration
 * 0017), five per environment, so the cost does not grow with the orders; an
 * organization has a handful of endpoints and keys, read by its own index.
 */
export function createSearchService(deps: { db: Database }) {
  const { db } = deps
  return {
    async search(organizationId: string, text: string) {
      const q = text.trim()
      const orders = await Promise.all(
        (['live', 'test'] as const).map(async (environment) => {
          const scope = { organizationId, environment }
          const byId = isUuid(q) ? await findOrderById(db, scope, q.toLowerCase()) : []
          const matched = await findNewestOrdersPage(db, {
            scope,
            status: undefined,
            from: undefined,
            until: undefined,
            search: q,
            before: undefined,
            limit: PER_GROUP - 1,
          })
          return [...byId, ...matched.filter((o) => !byId.some((b) => b.id === o.id))].slice(0, PER_GROUP)
        }),
      )
      const [endpoints, keys] = await Promise.all([
        findEndpointsByUrl(db, organizationId, q, PER_GROUP),
        findKeysByPrefix(db, organizationId, q, PER_GROUP),
      ])
      return {
        orders: orders.flat().map((o) => ({
          id: o.id,
          external_order_id: o.external_order_id,
          environment: o.environment,
          status: o.status,
          customer_name: o.customer_name,
          customer_email: o.customer_email,
        })),
        webhook_endpoints: endpoints.map((e) => ({
          id: e.id,
          url: e.url,
          environment: e.environment,
          description: e.description,
        })),
        api_keys: keys.map((k) => ({
          id: k.id,
          key_prefix: k.key_prefix,
          environment: k.environment,
          name: k.name,
          revoked: k.revoked_at !== null,
        })),
      }
    },
  }
}

export type SearchService = ReturnType<typeof createSearchService>
