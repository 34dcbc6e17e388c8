import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { Environment } from '../../../db/schema.ts'

export interface WebhookHealth {
  active_endpoints: number
  disabled_endpoints: number
  /** Active endpoints whose last attempt failed: their deliveries wait for the next probe. */
  failing_endpoints: number
  failed_deliveries_24h: number
}

export const NO_WEBHOOKS: WebhookHealth = {
  active_endpoints: 0,
  disabled_endpoints: 0,
  failing_endpoints: 0,
  failed_deliveries_24h: 0,
}

/**
 * Per organization, in one environment: its endpoints (active, failing,
 * disabled after too many failures) and, with `since`, its deliveries whose
 * last attempt since then failed (still retrying or given up): those not
 * succeeded with a failed attempt since then, found from the partial index of
 * failed attempts (migration 0017; without `since`, 0 and not read). The
 * deliveries' own columns stay out of any new index, so the worker's result
 * updates remain HOT. One statement for any number of organizations
 * (`organizationIds` undefined: all of them); an organization with neither
 * endpoints nor failures is absent from the map.
 */
export async function webhookHealthByOrganization(
  db: Database,
  environment: Environment,
  since: Date | null,
  organizationIds?: readonly string[],
): Promise<Map<string, WebhookHealth>> {
  const only = organizationIds === undefined ? null : [...organizationIds]
  const failed =
    since === null
      ? sql`select null::uuid as organization_id, 0 as failed where false`
      : sql`
      select d.organization_id, count(*) as failed
      from webhook_deliveries d
      where d.id in (
          select a.delivery_id from webhook_attempts a
          where a.error_code is not null and a.started_at >= ${since}::timestamptz)
        and d.environment = ${environment} and d.status <> 'succeeded'
        and (${only}::uuid[] is null or d.organization_id = any(${only}::uuid[]))
      group by d.organization_id`
  const result = await sql<{
    organization_id: string
    active: string
    failing: string
    disabled: string
    failed: string
  }>`
    with endpoints as (
      select e.organization_id,
        count(*) filter (where e.is_active) as active,
        count(*) filter (where e.is_active and e.next_probe_at is not null) as failing,
        count(*) filter (where not e.is_active and e.disabled_reason is not null) as disabled
      from webhook_endpoints e
      where e.environment = ${environment}
        and (${only}::uuid[] is null or e.organization_id = any(${only}::uuid[]))
      group by e.organization_id
    ),
    failed as (${failed})
    select organization_id, coalesce(e.active, 0) as active, coalesce(e.failing, 0) as failing,
      coalesce(e.disabled, 0) as disabled, coalesce(f.failed, 0) as failed
    from endpoints e full join failed f using (organization_id)`.execute(db)
  return new Map(
    result.rows.map((row) => [
      row.organization_id,
      {
        active_endpoints: Number(row.active),
        disabled_endpoints: Number(row.disabled),
        failing_endpoints: Number(row.failing),
        failed_deliveries_24h: Number(row.failed),
      },
    ]),
  )
}
