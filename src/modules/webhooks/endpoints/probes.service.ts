import type { Database } from '../../../db/database.ts'
import { AppError } from '../../../http/errors.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import { type ProbeReadiness, readyProbe } from '../outbox/probe.repo.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'
import { disabled, endpointView, iso } from '../webhooks.views.ts'
import { lockEndpointById, nextProbes, setNextProbe } from './endpoints.repo.ts'

/** What a delivery's wait for its endpoint's probe depends on. */
type Waiting = { endpoint_id: string; status: string; redelivery_of: string | null }

/**
 * The deliveries, each with `endpoint_next_probe_at`: for a pending one whose
 * endpoint is failing, when that endpoint's next probe may start (it waits
 * for it, whatever its own next_attempt_at says); null for the rest, and for
 * redeliveries, which go when due (claim.repo.ts). One read of the failing
 * endpoints among theirs.
 */
export async function withProbeTimes<T extends Waiting>(
  db: Database,
  deliveries: readonly T[],
): Promise<(T & { endpoint_next_probe_at: string | null })[]> {
  const waits = (d: Waiting) => d.status === 'pending' && d.redelivery_of === null
  const probes = await nextProbes(db, [...new Set(deliveries.filter(waits).map((d) => d.endpoint_id))])
  return deliveries.map((d) => ({
    ...d,
    endpoint_next_probe_at: waits(d) ? iso(probes.get(d.endpoint_id) ?? null) : null,
  }))
}

const notFailing = () =>
  AppError.validation(
    [
      {
        code: 'invalid_format',
        field: 'id',
        message:
          'The endpoint is not failing: its last attempt succeeded, and no delivery waits for a probe.',
      },
    ],
    'The endpoint is not failing; nothing was changed.',
  )

/** Retry now: a failing endpoint's next probe, at once. */
export function createProbeService(ctx: WebhookContext) {
  const { db, clock, audit, ownEndpoint } = ctx

  return {
    /**
     * Lets one delivery to a failing endpoint go now as its probe, at
     * whichever instance's worker claims it first: the waiting delivery that
     * failed (else the oldest) becomes due now, the endpoint's next_probe_at
     * too, and the workers wake (probe.repo.ts). Its success lets the waiting deliveries follow; its
     * failure sets the next probe by the retry schedule, as any probe's does.
     * Nothing changes while an attempt to it is on its way. Audited; a
     * dashboard member (`scope`) or an operator (none).
     */
    async retryNow(
      scope: WebhookScope | undefined,
      id: string,
      actor: AuditActor,
    ): Promise<{ endpoint: ReturnType<typeof endpointView>; probe: ProbeReadiness['probe'] }> {
      const found = await ownEndpoint(scope, id)
      const now = clock.now()
      return db.transaction().execute(async (trx) => {
        // Locked: a claim taking this endpoint's probe holds the same lock, so readyProbe sees it.
        const endpoint = (await lockEndpointById(trx, found.id))!
        if (!endpoint.is_active) throw disabled('The endpoint is disabled; it receives nothing further.')
        if (endpoint.next_probe_at === null) throw notFailing()
        const ready = await readyProbe(trx, endpoint.id, now)
        if (ready.probe === 'under_way') return { endpoint: endpointView(endpoint, now), probe: ready.probe }
        const updated = await setNextProbe(trx, endpoint.id, now)
        const scopeOf = { organizationId: endpoint.organization_id }
        await audit(trx, actor, scopeOf, 'webhook_endpoint.retried_now', endpoint, {
          environment: endpoint.environment,
          next_probe_was: endpoint.next_probe_at.toISOString(),
          delivery_id: ready.probe === 'started' ? ready.deliveryId : null,
        })
        return { endpoint: endpointView(updated, now), probe: ready.probe }
      })
    },
  }
}
