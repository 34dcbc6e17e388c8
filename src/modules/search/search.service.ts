import type { Database } from '../../db/database.ts'
import { isUuid } from '../../lib/ids.ts'
import { findNewestOrdersPage } from '../orders/orders-pages.repo.ts'
import {
  findAnyOrderById,
  findEndpointsByUrl,
  findEndpointsEverywhere,
  findKeysByPrefix,
  findKeysEverywhere,
  findOrderById,
  findOrdersEverywhere,
  findOrganizationsByName,
  findProductionOrderById,
} from './search.repo.ts'

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

    /**
     * The console's search, across organizations: organizations by name;
     * orders by id, external id, customer email or name; a production order
     * by id; webhook endpoints by URL; API keys by prefix. Five of each.
     */
    async searchEverywhere(text: string) {
      const q = text.trim()
      const id = isUuid(q) ? q.toLowerCase() : undefined
      const [organizations, byId, orders, production, endpoints, keys] = await Promise.all([
        findOrganizationsByName(db, q, PER_GROUP),
        id ? findAnyOrderById(db, id) : [],
        findOrdersEverywhere(db, q, PER_GROUP),
        id ? findProductionOrderById(db, id) : [],
        findEndpointsEverywhere(db, q, PER_GROUP),
        findKeysEverywhere(db, q, PER_GROUP),
      ])
      return {
        organizations,
        orders: [...byId, ...orders.filter((o) => !byId.some((b) => b.id === o.id))]
          .slice(0, PER_GROUP)
          .map((o) => ({
            id: o.id,
            organization_id: o.organization_id,
            organization_name: o.organization_name,
            external_order_id: o.external_order_id,
            environment: o.environment,
            status: o.status,
            customer_name: o.customer_name,
            customer_email: o.customer_email,
          })),
        production_orders: production,
        webhook_endpoints: endpoints,
        api_keys: keys.map(({ revoked_at, ...k }) => ({ ...k, revoked: revoked_at !== null })),
      }
    },
  }
}

export type SearchService = ReturnType<typeof createSearchService>
