import type { OrderRow, ProductionOrderRow } from '../../db/schema.ts'
import { type Action, describeAction } from '../automation/automation.rules.ts'
import type { ItemWithJob } from './orders.repo.ts'
import type { OperatorOrder, Order } from './orders.schemas.ts'

/** An order with what its views need, loaded once and mapped by the functions below. */
export interface OrderAggregate {
  row: OrderRow
  items: ItemWithJob[]
  productionOrder: Pick<
    ProductionOrderRow,
    'id' | 'status' | 'produced_by_partner' | 'priority' | 'held_at' | 'hold' | 'awaiting_rules' | 'due_on'
  > | null
  /** Name, type and size of every referenced upload, by upload id. */
  files: Map<string, { filename: string; content_type: string | null; size_bytes: number | null }>
}

const num = (value: string | number | null): number | null => (value === null ? null : Number(value))

function publicFields(row: OrderRow) {
  return {
    id: row.id,
    external_order_id: row.external_order_id,
    order_number: row.external_order_id,
    status: row.status,
    is_test: row.environment === 'test',
    currency: row.currency,
    total_amount: num(row.total_amount),
    ordered_at: row.ordered_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    customer: { name: row.customer_name, email: row.customer_email, phone: row.customer_phone },
  }
}

function itemFields(item: ItemWithJob) {
  return {
    id: item.id,
    sku: item.sku,
    name: item.name,
    quantity: item.quantity,
    price: num(item.price),
    product_linked: item.product_id !== null,
    production_status: item.job_status,
    personalization: item.personalization,
  }
}

export function toPublicOrder({ row, items, files }: OrderAggregate): Order {
  return {
    ...publicFields(row),
    items: items.map((item) => ({
      ...itemFields(item),
      files: item.files.map((f) => ({ name: files.get(f.upload_id)?.filename ?? null, role: f.role })),
    })),
  }
}

type Matched = { rule_id: string; name: string; actions: Action[] }

/** What the automation rules did, as the operator's and the dashboard's views show it. */
function automationFields(row: OrderRow, productionOrder: OrderAggregate['productionOrder']) {
  return {
    tags: row.tags,
    priority: productionOrder?.priority ?? 'normal',
    held: productionOrder?.held_at != null,
    hold: productionOrder?.hold ?? null,
    awaiting_preflight: (productionOrder?.awaiting_rules ?? []).map((r) => r.name),
    due_on: productionOrder?.due_on ?? null,
    automation: ((row.automation ?? []) as Matched[]).map((m) => ({
      rule_id: m.rule_id,
      name: m.name,
      actions: m.actions.map((a) => ({ ...a, words: describeAction(a) })),
    })),
  }
}

export function toOperatorOrder({ row, items, productionOrder, files }: OrderAggregate): OperatorOrder {
  return {
    ...publicFields(row),
    organization_id: row.organization_id,
    source: row.source,
    production_order: productionOrder
      ? {
          id: productionOrder.id,
          status: productionOrder.status,
          produced_by_partner: productionOrder.produced_by_partner,
        }
      : null,
    ...automationFields(row, productionOrder),
    personal_data: {
      erased_at: row.erased_at?.toISOString() ?? null,
      personalization_erased_at: row.personalization_erased_at?.toISOString() ?? null,
    },
    items: items.map((item) => ({
      ...itemFields(item),
      production_job: item.job_id ? { id: item.job_id, status: item.job_status! } : null,
      files: item.files.map((f) => {
        const file = files.get(f.upload_id)
        return {
          upload_id: f.upload_id,
          name: file?.filename ?? null,
          role: f.role,
          content_type: file?.content_type ?? null,
          size_bytes: file?.size_bytes ?? null,
        }
      }),
    })),
  }
}
