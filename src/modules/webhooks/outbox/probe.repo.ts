import { sql, type Transaction } from 'kysely'
import type { DB } from '../../../db/schema.ts'
import { wakeWorkers } from './outbox.repo.ts'

/**
 * What Retry now found: an attempt to the endpoint already on its way (its
 * result decides; nothing changed), a waiting delivery made due now to go as
 * the probe, or none waiting (the next event goes as the probe).
 */
export type ProbeReadiness =
  | { probe: 'under_way' }
  | { probe: 'started'; deliveryId: string }
  | { probe: 'nothing_waiting' }

/**
 * Readies a failing endpoint's probe for now (Retry now), under the endpoint
 * row's lock, which the caller holds (a claim taking a probe holds it too, so
 * this statement sees any probe claimed before it). Unless an attempt to the
 * endpoint is held by a live lease, the delivery the claim's probe order puts
 * first among all waiting ones (most attempts made, then the earliest due:
 * the one that failed) becomes due now, in the queue and in the log, and the
 * workers wake at commit; the claim then takes it as the probe (claim.repo.ts)
 * once the caller has moved the endpoint's next_probe_at. Redeliveries do
 * not wait for probes and are left alone.
 */
export async function readyProbe(
  trx: Transaction<DB>,
  endpointId: string,
  now: Date,
): Promise<ProbeReadiness> {
  const result = await sql<{ under_way: boolean; delivery_id: string | null }>`
    with mine as (
      select delivery_id, attempts, next_attempt_at, locked_until, redelivery
      from webhook_queue where endpoint_id = ${endpointId}::uuid
    ),
    state as (
      select coalesce(bool_or(locked_until >= ${now}::timestamptz), false) as under_way from mine
    ),
    chosen as (
      select delivery_id from mine
      where not redelivery and not (select under_way from state)
      order by attempts desc, next_attempt_at
      limit 1
    ),
    moved as (
      update webhook_queue q set next_attempt_at = least(q.next_attempt_at, ${now}::timestamptz)
      from chosen c where q.delivery_id = c.delivery_id
      returning q.delivery_id
    ),
    logged as (
      update webhook_deliveries d set next_attempt_at = least(d.next_attempt_at, ${now}::timestamptz)
      from moved m where d.id = m.delivery_id
    )
    select (select under_way from state) as under_way, (select delivery_id from moved) as delivery_id`.execute(
    trx,
  )
  const { under_way, delivery_id } = result.rows[0]!
  if (under_way) return { probe: 'under_way' }
  if (delivery_id === null) return { probe: 'nothing_waiting' }
  await wakeWorkers(trx)
  return { probe: 'started', deliveryId: delivery_id }
}
