import type { OrderRow, OrderSource } from '../../../db/schema.ts'
import { newId } from '../../../lib/ids.ts'
import { NO_OUTCOME, type Outcome } from '../../automation/automation.evaluate.ts'
import { eventData } from '../../webhooks/outbox/outbox.service.ts'
import type { OrderAggregate } from '../orders.mappers.ts'
import type { ItemWithJob, OrderGraph, OrderScope } from '../orders.repo.ts'
import type { OrderRequest, Warning } from '../orders.schemas.ts'

/** Who creates an order: an API key's organization and environment, or the shop (operator). */
export interface OrderContext extends OrderScope {
  source: OrderSource
  /** An API key from memory, not yet checked against revocation (null: checked, or none). */
  uncheckedKeyId?: string | null
}

/**
 * The rows a new order writes, built from an accepted request: the order, its
 * items (each with a pending job when the order is live), the production order
 * of a live order and the order.received event of a live API order.
 */
export function buildOrderGraph(
  ctx: OrderContext,
  body: OrderRequest,
  meta: {
    contentHash: string
    orderedAt: Date | undefined
    now: Date
    /** Live orders: what the organization's rules did, and the version of the rules read. */
    automation?: { version: number; outcome: Outcome; unlinked: string[] | null }
  },
): { graph: OrderGraph; items: ItemWithJob[] } {
  const { now } = meta
  const outcome = meta.automation?.outcome ?? NO_OUTCOME
  const orderId = newId()
  const live = ctx.environment === 'live'
  const items: ItemWithJob[] = body.items.map((item, position) => ({
    id: newId(),
    order_id: orderId,
    position,
    sku: item.sku ?? null,
    name: item.name,
    quantity: item.quantity,
    price: item.price === undefined || item.price === null ? null : String(item.price),
    product_id: null,
    personalization: item.personalization ?? {},
    files: (item.files ?? []).map((f) => ({ upload_id: f.upload_id, role: f.role ?? null })),
    job_id: live ? newId() : null,
    job_status: live ? 'pending' : null,
  }))
  const graphItems: OrderGraph['items'] = items.map((i) => ({
    id: i.id,
    position: i.position,
    sku: i.sku,
    name: i.name,
    quantity: i.quantity,
    price: i.price,
    personalization: i.personalization,
    files: i.files,
    job_id: i.job_id,
  }))
  const itemsDocument = Buffer.from(JSON.stringify(graphItems))
  const row: OrderRow = {
    id: orderId,
    organization_id: ctx.organizationId,
    environment: ctx.environment,
    source: ctx.source,
    external_order_id: body.external_order_id,
    status: 'pending',
    currency: body.currency ?? null,
    total_amount:
      body.total_amount === undefined || body.total_amount === null ? null : String(body.total_amount),
    customer_name: body.customer.name,
    customer_email: body.customer.email ?? null,
    customer_phone: body.customer.phone ?? null,
    ordered_at: meta.orderedAt ?? now,
    created_at: now,
    updated_at: now,
    content_hash: meta.contentHash,
    content_bytes: itemsDocument.length,
    tags: outcome.tags,
    erased_at: null,
    personalization_erased_at: null,
    automation: outcome.matched.length === 0 ? null : outcome.matched,
  }
  const graph: OrderGraph = {
    order: row,
    itemsDocument,
    items: graphItems,
    production: live
      ? {
          id: newId(),
          partner: outcome.partner,
          priority: outcome.priority,
          hold: outcome.hold,
          awaiting: outcome.awaiting.length === 0 ? null : outcome.awaiting,
        }
      : null,
    rules: meta.automation ? { version: meta.automation.version, unlinked: meta.automation.unlinked } : null,
    // Only live orders that came through the API produce events.
    event:
      live && ctx.source === 'api'
        ? {
            id: newId(),
            input: {
              organizationId: ctx.organizationId,
              environment: ctx.environment,
              type: 'order.received',
              orderId,
              data: eventData.received({ order_id: orderId, external_order_id: body.external_order_id }),
              at: now,
            },
          }
        : null,
  }
  return { graph, items }
}

/** A new order's production order as answers show it (held since now when a rule held it); null for test orders. */
export function newProductionOrder(graph: OrderGraph, now: Date): OrderAggregate['productionOrder'] {
  const production = graph.production
  return production
    ? {
        id: production.id,
        status: 'pending',
        produced_by_partner: production.partner,
        priority: production.priority,
        held_at: production.hold === null ? null : now,
        hold: production.hold,
        awaiting_rules: production.awaiting,
        // The order fold dates it, off the order path.
        due_on: null,
      }
    : null
}

/** Links the items to the products the insert found, and warns of each item no product matched. */
export function linkProducts(items: ItemWithJob[], productIds: (string | null)[]): Warning[] {
  const warnings: Warning[] = []
  items.forEach((item, n) => {
    item.product_id = productIds[n] ?? null
    if (!item.sku) {
      warnings.push({
        code: 'item_missing_sku',
        field: `items[${n}].sku`,
        message: `Item ${n} has no sku; it can never be matched to a product automatically.`,
      })
    } else if (!item.product_id) {
      warnings.push({
        code: 'item_product_unmatched',
        field: `items[${n}].sku`,
        value: item.sku,
        message: `No product with sku "${item.sku}"; the item is accepted unlinked and links once the product exists.`,
      })
    }
  })
  return warnings
}
