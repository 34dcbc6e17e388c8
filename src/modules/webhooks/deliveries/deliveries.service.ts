import { AppError } from '../../../http/errors.ts'
import { inScope, notFoundHere } from '../../../http/not-found.ts'
import { isUuid } from '../../../lib/ids.ts'
import { findEndpoint } from '../endpoints/endpoints.repo.ts'
import { withProbeTimes } from '../endpoints/probes.service.ts'
import { findDelivery, findEventBody, listAttempts, listDeliveries } from '../outbox/outbox.service.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'
import { deliveryView, operatorDeliveryView } from '../webhooks.views.ts'
import { deliveredHeaders, withoutSignatures } from './delivered-headers.ts'
import { attemptView, DEFAULT_LOG_LIMIT, type DeliveryLogQuery, logFilter, logPage } from './delivery-log.ts'
import { orderTimeline } from './order-timeline.repo.ts'
import { createRedeliveryService } from './redeliveries.service.ts'

/** Who reads a delivery: viewers read no signatures (enough to replay an attempt within the tolerance). */
export interface Reader {
  signatures: boolean
}

/**
 * The delivery log (the API's, the dashboard's and the operators'), what an
 * entry delivered, and an order's timeline; redelivery and replays beside
 * (redeliveries.service.ts).
 */
export function createDeliveryService(ctx: WebhookContext) {
  const { db, ownEndpoint, secretBox } = ctx

  /** The delivery log, newest first, narrowed by the query's filters; next_cursor pages on. */
  async function deliveries(scope: WebhookScope, query: DeliveryLogQuery) {
    if (query.endpoint_id !== undefined) await ownEndpoint(scope, query.endpoint_id)
    const rows = await listDeliveries(db, {
      ...logFilter(query),
      organizationId: scope.organizationId,
      environment: scope.environment,
    })
    return logPage(rows, query.limit ?? DEFAULT_LOG_LIMIT, deliveryView)
  }

  /**
   * One log entry of the caller's and its attempts, oldest first; 404 for
   * any other id. Without `signatures` (a viewer), signatures a receiver
   * echoed in its answer are replaced.
   */
  async function delivery(scope: WebhookScope, id: string, reader: Reader = { signatures: true }) {
    const row = isUuid(id) ? await findDelivery(db, id) : undefined
    if (!row || !inScope(scope, row)) throw notFoundHere('delivery', scope, row)
    const attempts = (await listAttempts(db, row.id)).map(attemptView)
    return {
      delivery: deliveryView(row),
      attempts: reader.signatures
        ? attempts
        : attempts.map((a) => ({ ...a, response_snippet: withoutSignatures(a.response_snippet) })),
    }
  }

  /**
   * What a log entry of the caller's delivered: its event's body (the exact
   * bytes signed) and, per attempt, the headers sent, rebuilt from the
   * signing time (delivered-headers.ts), the signatures only for a reader
   * with `signatures`; 404 for any other id.
   */
  async function payloadOf(scope: WebhookScope, id: string, reader: Reader) {
    const row = isUuid(id) ? await findDelivery(db, id) : undefined
    if (!row || !inScope(scope, row)) throw notFoundHere('delivery', scope, row)
    const [event, endpoint, attempts] = await Promise.all([
      findEventBody(db, row.event_id),
      findEndpoint(db, row.endpoint_id),
      listAttempts(db, row.id),
    ])
    if (!event || !endpoint) throw notFoundHere('delivery', scope, undefined)
    const signed = reader.signatures && attempts.some((a) => a.signature_timestamp !== null)
    const box = signed ? await secretBox() : undefined
    const open = box && ((sealed: string) => box.open(sealed))
    return {
      event: {
        id: event.id,
        type: event.type,
        created_at: event.created_at.toISOString(),
        body: event.body,
        order_erased_at: event.order_erased_at?.toISOString() ?? null,
      },
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        started_at: a.started_at.toISOString(),
        ...deliveredHeaders(a, event, endpoint, open),
      })),
    }
  }

  /** The organization and environment of an entry, whoever's it is. */
  async function scopeOf(id: string): Promise<WebhookScope> {
    const row = isUuid(id) ? await findDelivery(db, id) : undefined
    if (!row) throw new AppError('not_found', { message: 'No webhook delivery with this id.' })
    return { organizationId: row.organization_id, environment: row.environment }
  }

  return {
    deliveries,
    delivery,

    /** The log as the dashboard shows it: a pending entry also says when the probe it waits for may start. */
    async dashboardDeliveries(scope: WebhookScope, query: DeliveryLogQuery) {
      const page = await deliveries(scope, query)
      return { ...page, data: await withProbeTimes(db, page.data) }
    },

    /** One entry as the dashboard shows it, with the probe it waits for (if any). */
    async dashboardDelivery(scope: WebhookScope, id: string, reader: Reader = { signatures: true }) {
      const detail = await delivery(scope, id, reader)
      const [view] = await withProbeTimes(db, [detail.delivery])
      return { ...detail, delivery: view! }
    },

    /** What a log entry of the caller's delivered (payloadOf). */
    deliveryPayload: payloadOf,

    /**
     * One entry of any organization's, for the operator console: the scope is
     * the entry's own, and signatures are left out as for a viewer (an
     * operator is no member). 404 for an unknown id.
     */
    async consoleDelivery(id: string) {
      const scope = await scopeOf(id)
      const reader = { signatures: false }
      const [detail, payload] = await Promise.all([delivery(scope, id, reader), payloadOf(scope, id, reader)])
      const [view] = await withProbeTimes(db, [detail.delivery])
      return { ...detail, delivery: view!, payload }
    },

    /**
     * An order's events and their deliveries, for the dashboard's order page;
     * the caller has checked that the order is the organization's.
     */
    async orderTimeline(organizationId: string, orderId: string) {
      const events = await orderTimeline(db, { organizationId, orderId })
      const all = await withProbeTimes(
        db,
        events.flatMap((e) => e.deliveries),
      )
      const probes = new Map(all.map((d) => [d.id, d.endpoint_next_probe_at]))
      return events.map((e) => ({
        ...e,
        deliveries: e.deliveries.map((d) => ({ ...d, endpoint_next_probe_at: probes.get(d.id) ?? null })),
      }))
    },

    async operatorDeliveries(
      query: DeliveryLogQuery & {
        organization_id?: string | undefined
        environment?: WebhookScope['environment'] | undefined
      },
    ) {
      for (const id of [query.organization_id, query.endpoint_id]) {
        if (id !== undefined && !isUuid(id)) return { data: [], next_cursor: null }
      }
      const rows = await listDeliveries(db, {
        ...logFilter(query),
        ...(query.organization_id ? { organizationId: query.organization_id } : {}),
        ...(query.environment ? { environment: query.environment } : {}),
      })
      return logPage(rows, query.limit ?? DEFAULT_LOG_LIMIT, operatorDeliveryView)
    },

    async operatorDelivery(id: string) {
      const row = isUuid(id) ? await findDelivery(db, id) : undefined
      if (!row) throw new AppError('not_found', { message: 'No delivery with this id.' })
      return {
        delivery: operatorDeliveryView(row),
        attempts: (await listAttempts(db, row.id)).map(attemptView),
      }
    },

    ...createRedeliveryService(ctx),
  }
}
