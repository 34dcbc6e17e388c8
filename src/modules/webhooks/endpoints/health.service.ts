import { webhookDailyOutcomes } from '../deliveries/daily-outcomes.repo.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'

/** The UTC day `back` days before `now`, as YYYY-MM-DD. */
function utcDay(now: Date, back: number): string {
  return new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
}

/** The health of an environment's endpoints and the outcomes of their deliveries by day. */
export function createEndpointHealthService(ctx: WebhookContext) {
  const { db, clock, healthByOrganization } = ctx

  return {
    /** The environment's endpoints: active, failing (waiting for a probe), disabled after too many failures. */
    async endpointHealth(scope: WebhookScope) {
      const lookup = await healthByOrganization(scope.environment, [scope.organizationId], false)
      const { failed_deliveries_24h: _, ...endpoints } = lookup(scope.organizationId)
      return endpoints
    },

    /** Endpoints by state and deliveries that failed in the last 24 hours, per organization (the console). */
    healthByOrganization: (environment: WebhookScope['environment'], organizationIds?: readonly string[]) =>
      healthByOrganization(environment, organizationIds),

    /**
     * The deliveries settled (succeeded, or failed for good) on each of the
     * last `days` UTC days (today included), oldest first; of one
     * organization or of all.
     */
    async dailyOutcomes(environment: WebhookScope['environment'], days: number, organizationId?: string) {
      const rows = await webhookDailyOutcomes(db, environment, utcDay(clock.now(), days - 1), organizationId)
      const byDay = new Map(rows.map((row) => [row.day, row]))
      return Array.from({ length: days }, (_, n) => {
        const day = utcDay(clock.now(), days - 1 - n)
        return byDay.get(day) ?? { day, succeeded: 0, failed: 0 }
      })
    },
  }
}
