import type { Database } from '../../db/database.ts'
import type { Environment, OrderRow, OrderSource, ProductionOrderRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { contentHash } from '../../lib/canonical-json.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { FileConflictError, type UploadService } from '../uploads/uploads.service.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { type OrderAggregate, toOperatorOrder, toPublicOrder } from './orders.mappers.ts'
import {
  countLiveOrders,
  findItemsWithJobs,
  findOrderByExternalId,
  findOrderById,
  findOrdersPage,
  findOrganizationOrdersPage,
  findProductionOrders,
  type ItemWithJob,
  insertOrderGraph,
  type OrderGraph,
  type OrderScope,
} from './orders.repo.ts'
import {
  type ListOrdersQuery,
  type OperatorOrder,
  ORDER_STATUSES,
  type Order,
  type OrderRequest,
  type Warning,
} from './orders.schemas.ts'
import { PAGE_BUDGET_BYTES, withinBudget } from './page-budget.ts'

export interface OrderContext extends OrderScope {
  source: OrderSource
}

export interface CreateOrderResult {
  created: boolean
  aggregate: OrderAggregate
  warnings: Warning[]
}

/** A concurrent PUT or sweep changed a file between its check and the order's commit: check again. */
const MAX_ATTEMPTS = 3

export function createOrderService(deps: {
  db: Database
  clock: Clock
  uploads: UploadService
  /** Bytes of items a list page may carry (tests lower it). */
  pageBudgetBytes?: number
}) {
  const { db, clock, uploads } = deps
  const pageBudgetBytes = deps.pageBudgetBytes ?? PAGE_BUDGET_BYTES

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

  /** The existing order answers an identical repeat (200) and refuses different content (409). */
  async function resolveExisting(existing: OrderRow, hash: string): Promise<CreateOrderResult> {
    if (existing.content_hash !== hash) throw new AppError('order_already_exists_with_different_content')
    const [aggregate] = await aggregatesFor([existing], true)
    return { created: false, aggregate: aggregate!, warnings: [] }
  }

  async function create(ctx: OrderContext, body: OrderRequest, attempt = 1): Promise<CreateOrderResult> {
    const hash = contentHash(body)
    const orderedAt = body.ordered_at ? new Date(body.ordered_at) : undefined
    if (orderedAt && Number.isNaN(orderedAt.getTime())) {
      throw AppError.validation([
        { code: 'invalid_format', field: 'ordered_at', message: 'ordered_at must be a valid date-time' },
      ])
    }

    // A repeat is answered before any file is looked at: same content 200,
    // different content (new upload ids included) 409. Orders without files skip
    // this read; the insert's conflict tells the same.
    const hasFiles = body.items.some((item) => (item.files?.length ?? 0) > 0)
    if (hasFiles) {
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (existing) return resolveExisting(existing, hash)
    }

    // Files are checked at acceptance; any unusable file rejects the whole order
    // and leaves every upload as it was, usable for a resend.
    const { errors: fileErrors, plan } = await uploads.prepare(ctx, body.items)
    if (fileErrors.length > 0) throw AppError.validation(fileErrors)

    const now = clock.now()
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
    const production = live ? { id: newId() } : null
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
      ordered_at: orderedAt ?? now,
      created_at: now,
      updated_at: now,
      content_hash: hash,
      content_bytes: itemsDocument.length,
    }
    const graph: OrderGraph = {
      order: row,
      itemsDocument,
      items: graphItems,
      production,
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
                data: { order_id: orderId, external_order_id: body.external_order_id },
                at: now,
              },
            }
          : null,
    }

    let productIds: (string | null)[] | undefined
    try {
      productIds =
        plan.finalize.length === 0
          ? await insertOrderGraph(db, graph)
          : await db.transaction().execute(async (trx) => {
              const inserted = await insertOrderGraph(trx, graph)
              if (inserted) await uploads.commit(trx, plan, now)
              return inserted
            })
    } catch (err) {
      await uploads.discard(plan)
      if (err instanceof FileConflictError && attempt < MAX_ATTEMPTS) return create(ctx, body, attempt + 1)
      throw err
    }

    if (!productIds) {
      // The external id exists (a repeat, or a concurrent request that won).
      await uploads.discard(plan)
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (!existing) throw new AppError('internal_error')
      return resolveExisting(existing, hash)
    }
    await uploads.afterCommit(plan)

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
    return {
      created: true,
      aggregate: {
        row,
        items,
        productionOrder: production
          ? { id: production.id, status: 'pending', produced_by_partner: false }
          : null,
        files: await fileDetails(items),
      },
      warnings,
    }
  }

  return {
    create: (ctx: OrderContext, body: OrderRequest) => create(ctx, body),

    async get(scope: OrderScope, id: string): Promise<Order> {
      const row = isUuid(id) ? await findOrderById(db, id) : undefined
      if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
        throw new AppError('not_found', { message: 'No order with this id.' })
      }
      const [aggregate] = await aggregatesFor([row], false)
      return toPublicOrder(aggregate!)
    },

    async list(
      scope: OrderScope,
      query: ListOrdersQuery,
    ): Promise<{ data: Order[]; next_cursor: string | null }> {
      const limit = query.limit ?? 50
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
      const rows = await findOrdersPage(db, {
        scope,
        updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
        after,
        limit,
      })
      const page = withinBudget(rows.slice(0, limit), pageBudgetBytes)
      const last = page.at(-1)
      const aggregates = await aggregatesFor(page, false)
      return {
        data: aggregates.map(toPublicOrder),
        next_cursor:
          rows.length > page.length && last
            ? encodeCursor({ updatedAt: last.updated_at, id: last.id })
            : null,
      }
    },

    async getOperatorView(id: string): Promise<OperatorOrder> {
      const row = isUuid(id) ? await findOrderById(db, id) : undefined
      if (!row) throw new AppError('not_found', { message: 'No order with this id.' })
      const [aggregate] = await aggregatesFor([row], true)
      return toOperatorOrder(aggregate!)
    },

    toPublicOrder,
    toOperatorOrder,

    async listForOrganization(input: {
      organizationId: string
      environment: Environment | undefined
      limit: number
      cursor: string | undefined
    }): Promise<{ data: OperatorOrder[]; next_cursor: string | null }> {
      let beforeId: string | undefined
      if (input.cursor !== undefined) {
        beforeId = decodeCursor(input.cursor).id
      }
      const rows = await findOrganizationOrdersPage(db, { ...input, beforeId })
      const page = withinBudget(rows.slice(0, input.limit), pageBudgetBytes)
      const last = page.at(-1)
      const aggregates = await aggregatesFor(page, true)
      return {
        data: aggregates.map(toOperatorOrder),
        next_cursor:
          rows.length > page.length && last
            ? encodeCursor({ updatedAt: last.updated_at, id: last.id })
            : null,
      }
    },

    /** Whether an order references an upload (the operator downloads files only through their order). */
    async referencesUpload(orderId: string, uploadId: string): Promise<boolean> {
      const row = isUuid(orderId) ? await findOrderById(db, orderId) : undefined
      if (!row) return false
      const [aggregate] = await aggregatesFor([row], false)
      return aggregate!.items.some((item) => item.files.some((f) => f.upload_id === uploadId))
    },

    /** Live orders only: test orders never appear in statistics. */
    async stats(organizationId: string) {
      const { byStatus, items } = await countLiveOrders(db, organizationId)
      const ordersByStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]))
      let total = 0
      for (const { status, count } of byStatus) {
        ordersByStatus[status] = Number(count)
        total += Number(count)
      }
      return {
        orders_total: total,
        orders_by_status: ordersByStatus,
        items_total: Number(items.items_total),
        quantity_total: Number(items.quantity_total),
      }
    },
  }
}

export type OrderService = ReturnType<typeof createOrderService>
