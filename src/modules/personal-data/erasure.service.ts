import type { Database } from '../../db/database.ts'
import type { OrderRow } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { type AuditActor, auditEntriesOf, recordAudit } from '../audit/index.ts'
import { countBodiesToErase, dropBodiesHolding } from '../requests/index.ts'
import { countAnswersOfOrders, countEventsOf } from '../webhooks/index.ts'
import {
  add,
  chunks,
  createEraser,
  type ErasureCounts,
  isFinished,
  noCounts,
  type PersonalizationChoice,
  PREVIEW_ORDERS,
  READ_CHUNK,
  searchedBy,
} from './erasure.ts'
import { createExport } from './export.ts'
import type { CustomerMatch } from './personal-data.repo.ts'
import { createRetention } from './retention.ts'
import { scrubDetails } from './scrub.ts'

/**
 * A customer's personal data on request (docs/personal-data.md): found by
 * e-mail, phone or name, or by orders; previewed, erased from the orders and
 * from every copy the service keeps (erasure.ts), or exported (export.ts).
 * And each organization's retention, pruned in the background (retention.ts).
 * The orders stay: their ids, numbers, items, prices, statuses and dates;
 * their events never held personal data.
 */
export function createPersonalDataService(deps: {
  db: Database
  clock: Clock
  /** The orders as the operator API shows them (an export). */
  orderViews: (rows: OrderRow[]) => Promise<unknown[]>
  /** Request-log lines written before a search of the log (it batches its writes). */
  flushRequestLog: () => Promise<void>
  /** Orders per transaction (ERASURE_BATCH). */
  batch?: number
  /** How long the background prune rests after each batch, as a share of the batch's time (1). */
  pruneRest?: number
}) {
  const { db, clock } = deps
  const eraser = createEraser(deps)
  const { customerOrders, searchedTexts, eraseOrders } = eraser

  return {
    /**
     * What an erasure would do: the orders found (the first ones listed, all
     * counted), and how many request-log lines, audit entries and receivers'
     * answers hold their data. Changes nothing.
     */
    async preview(organizationId: string, match: CustomerMatch) {
      await deps.flushRequestLog()
      const orders = await customerOrders(organizationId, match)
      const ids = orders.map((o) => o.id)
      const texts = searchedTexts(match, orders)
      let requestLines = 0
      let auditEntries = 0
      let answers = 0
      let events = 0
      for (const part of chunks(ids, READ_CHUNK)) {
        const entries = await auditEntriesOf(db, organizationId, part)
        auditEntries += entries.filter(
          (e) => JSON.stringify(e.details) !== JSON.stringify(scrubDetails(e.details, texts, true)),
        ).length
        answers += await countAnswersOfOrders(db, part)
        events += await countEventsOf(db, part)
        requestLines += await countBodiesToErase(db, organizationId, part, [])
      }
      requestLines += await countBodiesToErase(db, organizationId, [], texts)
      return {
        searched_by: searchedBy(match),
        orders: {
          total: orders.length,
          live: orders.filter((o) => o.environment === 'live').length,
          test: orders.filter((o) => o.environment === 'test').length,
          finished: orders.filter(isFinished).length,
          already_erased: orders.filter((o) => o.erased_at !== null).length,
          first: orders.slice(0, PREVIEW_ORDERS).map((o) => ({
            id: o.id,
            external_order_id: o.external_order_id,
            environment: o.environment,
            created_at: o.created_at.toISOString(),
            customer: { name: o.customer_name, email: o.customer_email, phone: o.customer_phone },
            production_status: o.production_status,
            finished: isFinished(o),
            erased_at: o.erased_at?.toISOString() ?? null,
          })),
        },
        request_log_lines: requestLines,
        audit_entries: auditEntries,
        webhook_answers: answers,
        events_kept: events,
      }
    },

    /**
     * Erases the customer: first the request-log bodies that hold what was
     * searched (refused requests name no order), then the orders in batches
     * of ERASURE_BATCH, each in one transaction with every copy of its data.
     * Run again after an interruption, it finishes what was left; what is
     * already erased stays as it is. The audit entry says who, when and how
     * many orders, never whose.
     */
    async erase(
      organizationId: string,
      match: CustomerMatch,
      options: { personalization: PersonalizationChoice },
      actor: AuditActor,
    ): Promise<ErasureCounts & { erasure_id: string }> {
      await deps.flushRequestLog()
      const orders = await customerOrders(organizationId, match)
      const total = noCounts()
      total.request_log_lines = await dropBodiesHolding(db, organizationId, searchedTexts(match, orders))
      add(total, await eraseOrders(organizationId, orders, options.personalization))
      const erasureId = newId()
      await recordAudit(db, clock, {
        organizationId,
        actor,
        action: 'personal_data.erased',
        subject: erasureId,
        details: { searched_by: searchedBy(match), personalization_of: options.personalization, ...total },
      })
      return { erasure_id: erasureId, ...total }
    },

    export: createExport({ ...deps, eraser }),

    ...createRetention({ ...deps, eraser }),
  }
}

export type PersonalDataService = ReturnType<typeof createPersonalDataService>
