import { commitGroups } from '../../../db/commit-groups.ts'
import type { Database } from '../../../db/database.ts'
import type { OrderRow } from '../../../db/schema.ts'
import { AppError } from '../../../http/errors.ts'
import type { Principal } from '../../../http/principal.ts'
import { contentHash } from '../../../lib/canonical-json.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import type { Outcome } from '../../automation/automation.evaluate.ts'
import { FileConflictError } from '../../uploads/uploads.service.ts'
import type { OrderAggregates, OrderDeps } from '../order-aggregates.ts'
import { type OrderAggregate, toOperatorOrder, toPublicOrder } from '../orders.mappers.ts'
import { findOrderByExternalId, insertOrderGraph } from '../orders.repo.ts'
import type { OperatorOrder, Order, OrderRequest, Warning } from '../orders.schemas.ts'
import { buildOrderGraph, linkProducts, newProductionOrder, type OrderContext } from './order-graph.ts'

export interface Created<View> {
  /** false: an identical repeat, answered with the existing order. */
  created: boolean
  order: View
  warnings: Warning[]
}

/** A key revoked on another instance since this one kept it in memory: the 401 of every bad key. */
const revokedKey = () => new AppError('invalid_api_key', { hint: '' })

/**
 * A concurrent PUT or sweep changed a file between its check and the order's
 * commit, or the organization's rules changed since they were read: again.
 */
const MAX_ATTEMPTS = 3

/**
 * Accepting one order in its context (an API key's, the shop's): an identical
 * repeat answers the existing order, different content is a 409; the files are
 * checked and a live order's rules applied, then one statement writes it all,
 * again on a concurrent change of a file or of the rules.
 */
function orderAcceptance(deps: OrderDeps, { aggregatesFor, fileDetails }: OrderAggregates) {
  const { db, clock, uploads } = deps
  const shared = commitGroups(db, deps.groupCommits ?? false)

  /** The existing order answers an identical repeat (200) and refuses different content (409). */
  async function resolveExisting(existing: OrderRow, hash: string): Promise<Created<OrderAggregate>> {
    if (existing.content_hash !== hash) {
      throw new AppError('order_already_exists_with_different_content', {
        hint: `The existing order's id is ${existing.id}.`,
      })
    }
    const [aggregate] = await aggregatesFor([existing], true)
    return { created: false, order: aggregate!, warnings: [] }
  }

  async function accept(
    ctx: OrderContext,
    body: OrderRequest,
    attempt = 1,
    /** Written in the transaction that inserts the order (the operator's audit entry), only when it is new. */
    onCreated?: (trx: Database, orderId: string) => Promise<void>,
  ): Promise<Created<OrderAggregate>> {
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
    if (hasFiles && ctx.uncheckedKeyId) {
      if (!(await deps.keys.confirm({ keyId: ctx.uncheckedKeyId, confirmed: false }))) throw revokedKey()
      return accept({ ...ctx, uncheckedKeyId: null }, body, attempt, onCreated)
    }
    if (hasFiles) {
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (existing) return resolveExisting(existing, hash)
    }

    // Files are checked at acceptance; any unusable file rejects the whole order
    // and leaves every upload as it was, usable for a resend.
    const { errors: fileErrors, plan } = await uploads.prepare(ctx, body.items)
    if (fileErrors.length > 0) throw AppError.validation(fileErrors)

    // Live orders: the organization's rules, applied in the statement that writes the order.
    let automation: { version: number; outcome: Outcome; unlinked: string[] | null } | undefined
    if (ctx.environment === 'live') {
      // A retry reads them from the database: the memory may hold what the statement just refused.
      const rules = await deps.automation.ruleSet(ctx.organizationId, { fresh: attempt > 1 })
      const evaluated = await deps.automation.evaluate(rules, {
        ...body,
        organizationId: ctx.organizationId,
        source: ctx.source,
      })
      automation = { version: rules.version, ...evaluated }
    }
    const now = clock.now()
    const { graph, items } = buildOrderGraph(ctx, body, { contentHash: hash, orderedAt, now, automation })
    const keyId = ctx.uncheckedKeyId ?? null
    let written: Awaited<ReturnType<typeof insertOrderGraph>>
    try {
      written =
        plan.finalize.length === 0 && !onCreated
          ? await shared((writer) => insertOrderGraph(writer, graph, keyId))
          : await db.transaction().execute(async (trx) => {
              const result = await insertOrderGraph(trx, graph, keyId)
              if (result.productIds && plan.finalize.length > 0) await uploads.commit(trx, plan, now)
              if (result.productIds && onCreated) await onCreated(trx, graph.order.id)
              return result
            })
    } catch (err) {
      await uploads.discard(plan)
      if (err instanceof FileConflictError && attempt < MAX_ATTEMPTS) {
        return accept(ctx, body, attempt + 1, onCreated)
      }
      throw err
    }

    if (!written.keyValid) {
      await uploads.discard(plan)
      deps.keys.forget(keyId!)
      throw revokedKey()
    }
    if (!written.rulesCurrent) {
      // The rules changed since this instance read them, or a sku taken as
      // unlinked has a product now: evaluate the order again.
      await uploads.discard(plan)
      deps.automation.forget(ctx.organizationId)
      if (attempt >= MAX_ATTEMPTS) throw new AppError('service_unavailable')
      return accept(ctx, body, attempt + 1, onCreated)
    }
    const productIds = written.productIds
    if (!productIds) {
      // The external id exists (a repeat, or a concurrent request that won).
      await uploads.discard(plan)
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (!existing) throw new AppError('internal_error')
      return resolveExisting(existing, hash)
    }
    await uploads.afterCommit(plan)

    const warnings = linkProducts(items, productIds)
    return {
      created: true,
      order: {
        row: graph.order,
        items,
        productionOrder: newProductionOrder(graph, now),
        files: await fileDetails(items),
      },
      warnings,
    }
  }

  return accept
}

/** Accepting orders: POST /v1/orders and the operator's shop orders. */
export function createOrderIntakeService(deps: OrderDeps, aggregates: OrderAggregates) {
  const { clock } = deps
  const accept = orderAcceptance(deps, aggregates)

  return {
    /** POST /v1/orders: idempotent on external_order_id and content; a key from memory is checked by the insert. */
    async create(principal: Principal, body: OrderRequest): Promise<Created<Order>> {
      const ctx: OrderContext = {
        organizationId: principal.organizationId,
        environment: principal.environment,
        source: 'api',
        uncheckedKeyId: principal.confirmed ? null : principal.keyId,
      }
      const result = await accept(ctx, body)
      return { ...result, order: toPublicOrder(result.order) }
    },

    /** An order from the shop (operator API): always live, never emits events. */
    async createShopOrder(
      organizationId: string,
      body: OrderRequest,
      actor?: AuditActor,
    ): Promise<Created<OperatorOrder>> {
      const organization = await deps.organizations.require(organizationId)
      const ctx: OrderContext = { organizationId: organization.id, environment: 'live', source: 'shop' }
      const audit = actor
        ? (trx: Database, orderId: string) =>
            recordAudit(trx, clock, {
              organizationId: organization.id,
              actor,
              action: 'shop_order.created',
              subject: orderId,
              details: { external_order_id: body.external_order_id },
            })
        : undefined
      const result = await accept(ctx, body, 1, audit)
      return { ...result, order: toOperatorOrder(result.order) }
    },
  }
}
