import type { Database } from '../../db/database.ts'
import type { OrderRow, ProductionOrderRow } from '../../db/schema.ts'
import type { KeyAuthenticator } from '../../http/principal.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AutomationService } from '../automation/automation.service.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import type { UploadService } from '../uploads/uploads.service.ts'
import type { OrderAggregate } from './orders.mappers.ts'
import { findItemsWithJobs, findProductionOrders, type ItemWithJob } from './orders.repo.ts'

export interface OrderDeps {
  db: Database
  clock: Clock
  uploads: Pick<UploadService, 'prepare' | 'commit' | 'afterCommit' | 'discard' | 'details' | 'open'>
  organizations: OrganizationLookup
  /** Revocation checks of keys from memory (auth module). */
  keys: Pick<KeyAuthenticator, 'confirm'> & { forget(keyId: string): void }
  /** The organization's automation rules, applied to live orders at intake. */
  automation: Pick<AutomationService, 'ruleSet' | 'forget' | 'evaluate'>
  /** Bytes of items a list page may carry (tests lower it). */
  pageBudgetBytes?: number
  /** New orders share commits (the embedded database: src/db/commit-groups.ts). */
  groupCommits?: boolean
}

/** Orders as answers show them: rows with their items, jobs, production order and files, read in a few statements for a whole page. */
export function orderAggregates(deps: Pick<OrderDeps, 'db' | 'uploads'>) {
  const { db, uploads } = deps

  async function fileDetails(items: ItemWithJob[]) {
    return uploads.details(items.flatMap((i) => i.files.map((f) => f.upload_id)))
  }

  async function aggregatesFor(rows: OrderRow[], withProduction: boolean): Promise<OrderAggregate[]> {
    const ids = rows.map((r) => r.id)
    const [items, productionOrders] = await Promise.all([
      findItemsWithJobs(db, ids),
      withProduction ? findProductionOrders(db, ids) : Promise.resolve([] as ProductionOrderRow[]),
    ])
    const files = await fileDetails(items)
    const itemsByOrder = new Map<string, ItemWithJob[]>()
    for (const item of items) {
      const list = itemsByOrder.get(item.order_id)
      if (list) list.push(item)
      else itemsByOrder.set(item.order_id, [item])
    }
    const productionByOrder = new Map(productionOrders.map((p) => [p.order_id, p]))
    return rows.map((row) => ({
      row,
      items: itemsByOrder.get(row.id) ?? [],
      productionOrder: productionByOrder.get(row.id) ?? null,
      files,
    }))
  }

  return { fileDetails, aggregatesFor }
}

export type OrderAggregates = ReturnType<typeof orderAggregates>
