import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { EndpointScope } from './endpoints.repo.ts'

/**
 * An environment's endpoints (active, disabled) and its deliveries whose last
 * attempt since `since` failed (still retrying or given up): those not
 * succeeded with a failed attempt since then, found from the partial index of
 * failed attempts (migration 0017). The deliveries' own columns stay out of
 * any new index, so the worker's result updates remain HOT.
 */
export async function webhookHealth(db: Database, scope: EndpointScope, since: Date) {
  const result = await sql<{ active: string; disabled: string; failed: string }>`
    select
      (select count(*) from webhook_endpoints e
        where e.organization_id = ${scope.organizationId}::uuid and e.environment = ${scope.environment}
          and e.is_active) as active,
      (select count(*) from webhook_endpoints e
        where e.organization_id = ${scope.organizationId}::uuid and e.environment = ${scope.environment}
          and not e.is_active and e.disabled_reason is not null) as disabled,
      (select count(*) from webhook_deliveries d
        where d.id in (
            select a.delivery_id from webhook_attempts a
            where a.error_code is not null and a.started_at >= ${since}::timestamptz)
          and d.organization_id = ${scope.organizationId}::uuid and d.environment = ${scope.environment}
          and d.status <> 'succeeded') as failed`.execute(db)
  const row = result.rows[0]!
  return {
    active_endpoints: Number(row.active),
    disabled_endpoints: Number(row.disabled),
    failed_deliveries_24h: Number(row.failed),
  }
}
