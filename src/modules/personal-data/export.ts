import type { Database } from '../../db/database.ts'
import type { OrderRow } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { type AuditActor, auditEntriesOf, recordAudit } from '../audit/index.ts'
import { requestLinesOf } from '../requests/index.ts'
import { answersOf, eventsOf } from '../webhooks/index.ts'
import { chunks, type Eraser, READ_CHUNK, searchedBy } from './erasure.ts'
import { type CustomerMatch, orderRows } from './personal-data.repo.ts'

export function createExport(deps: {
  db: Database
  clock: Clock
  eraser: Pick<Eraser, 'customerOrders' | 'searchedTexts'>
  /** The orders as the operator API shows them. */
  orderViews: (rows: OrderRow[]) => Promise<unknown[]>
  /** Request-log lines written before a search of the log (it batches its writes). */
  flushRequestLog: () => Promise<void>
}) {
  const { db, clock } = deps
  const { customerOrders, searchedTexts } = deps.eraser
  /**
   * Everything stored about the customer, as one JSON document (the access
   * request): the orders as the operator API shows them, the request-log
   * lines with their bodies, the audit entries about the orders, their
   * events, and the receivers' answers to their deliveries. Audited.
   */
  return async function exportCustomer(organizationId: string, match: CustomerMatch, actor: AuditActor) {
    await deps.flushRequestLog()
    const found = await customerOrders(organizationId, match)
    const texts = searchedTexts(match, found)
    const orders: unknown[] = []
    const audit: unknown[] = []
    const events: unknown[] = []
    const deliveries: unknown[] = []
    const requestIds = new Set<string>()
    const requests: unknown[] = []
    const addRequests = (lines: Awaited<ReturnType<typeof requestLinesOf>>) => {
      for (const line of lines) {
        if (requestIds.has(line.id)) continue
        requestIds.add(line.id)
        requests.push({
          id: line.id,
          created_at: line.created_at.toISOString(),
          environment: line.environment,
          method: line.method,
          path: line.path,
          status: line.status,
          request_id: line.request_id,
          order_id: line.order_id,
          request_body: line.request_body,
          response_body: line.response_body,
        })
      }
    }
    for (const part of chunks(
      found.map((o) => o.id),
      READ_CHUNK,
    )) {
      orders.push(...(await deps.orderViews(await orderRows(db, organizationId, part))))
      for (const e of await auditEntriesOf(db, organizationId, part)) {
        audit.push({ ...e, created_at: e.created_at.toISOString() })
      }
      for (const e of await eventsOf(db, part)) events.push({ ...e, created_at: e.created_at.toISOString() })
      for (const d of await answersOf(db, part))
        deliveries.push({ ...d, created_at: d.created_at.toISOString() })
      addRequests(await requestLinesOf(db, organizationId, part, []))
    }
    addRequests(await requestLinesOf(db, organizationId, [], texts))
    const exportedAt = clock.now()
    await recordAudit(db, clock, {
      organizationId,
      actor,
      action: 'personal_data.exported',
      subject: newId(),
      details: {
        searched_by: searchedBy(match),
        orders: orders.length,
        request_log_lines: requests.length,
      },
    })
    return {
      exported_at: exportedAt.toISOString(),
      organization_id: organizationId,
      searched_by: searchedBy(match),
      orders,
      request_log: requests,
      audit_entries: audit,
      events,
      webhook_deliveries: deliveries,
    }
  }
}
