import type { Database } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import { findItemsWithJobs } from '../../orders/orders.repo.ts'
import type { ProductionCalendar } from '../calendar/calendar.service.ts'
import { productionOrderView } from '../production.views.ts'
import { type BatchRow, findBatchMembers } from './batches.repo.ts'

/** A batch as the console shows it: alone (the list) and with its orders and items (its page, its sheet). */

export const batchNotFound = () => new AppError('not_found', { message: 'No batch with this id.' })

export const batchView = (b: BatchRow & { orders?: number | null }) => ({
  id: b.id,
  name: b.name,
  status: b.status,
  created_by: b.created_by,
  orders: b.orders ?? 0,
  created_at: b.created_at.toISOString(),
  updated_at: b.updated_at.toISOString(),
  started_at: b.started_at?.toISOString() ?? null,
  finished_at: b.finished_at?.toISOString() ?? null,
})

/**
 * A batch with its production orders (soonest due first) and their items
 * grouped by product: quantities summed, each line with its order,
 * personalization, files and job.
 */
export async function batchDetail(
  db: Database,
  dueView: Awaited<ReturnType<ProductionCalendar['dueViews']>>['view'],
  row: BatchRow,
) {
  const members = await findBatchMembers(db, row.id)
  const items = await findItemsWithJobs(
    db,
    members.map((m) => m.order_id),
  )
  const byOrder = new Map(members.map((m) => [m.order_id, m]))
  const products = new Map<
    string,
    { sku: string | null; name: string; quantity: number; lines: ReturnType<typeof line>[] }
  >()
  function line(i: (typeof items)[number]) {
    const m = byOrder.get(i.order_id)!
    return {
      production_order_id: m.id,
      order_id: m.order_id,
      external_order_id: m.external_order_id,
      item_id: i.id,
      position: i.position,
      quantity: i.quantity,
      personalization: i.personalization,
      files: i.files.map((f) => ({ upload_id: f.upload_id, role: f.role })),
      job: i.job_id ? { id: i.job_id, status: i.job_status! } : null,
    }
  }
  for (const i of items) {
    const key = `${i.sku ?? ''}\u0000${i.name}`
    const group = products.get(key) ?? { sku: i.sku, name: i.name, quantity: 0, lines: [] }
    group.quantity += i.quantity
    group.lines.push(line(i))
    products.set(key, group)
  }
  const order = (id: string) => members.findIndex((m) => m.order_id === id)
  return {
    batch: batchView({ ...row, orders: members.length }),
    orders: members.map((m) => ({
      production_order: productionOrderView(m),
      order: {
        id: m.order_id,
        external_order_id: m.external_order_id,
        status: m.order_status,
        customer_name: m.customer_name,
      },
      organization: { id: m.organization_id, name: m.organization_name },
      priority: m.priority,
      held: m.held_at !== null,
      due: dueView(m.due_on),
      added_at: m.added_at.toISOString(),
      items: items.filter((i) => i.order_id === m.order_id).length,
    })),
    products: [...products.values()]
      .map((g) => ({
        ...g,
        lines: g.lines.sort((a, b) => order(a.order_id) - order(b.order_id) || a.position - b.position),
      }))
      .sort((a, b) => (a.sku ?? a.name).localeCompare(b.sku ?? b.name)),
  }
}
