import type { Migration, MigrationProvider } from 'kysely/migration'
import * as core from './2026-11-22-0001-core.ts'
import * as uploads from './2026-11-22-0002-uploads.ts'
import * as webhooks from './2026-11-22-0003-webhooks.ts'
import * as deliveryQueueUpkeep from './2026-11-22-0004-delivery-queue-upkeep.ts'
import * as deliveryPagesHalfFull from './2026-11-23-0005-delivery-pages-half-full.ts'
import * as eventBodies from './2026-11-25-0006-event-bodies.ts'
import * as deliveryQueue from './2026-11-25-0007-delivery-queue.ts'
import * as serviceInstances from './2026-11-25-0009-service-instances.ts'
import * as orderContentBytes from './2026-11-25-0010-order-content-bytes.ts'
import * as listenSessions from './2026-11-25-0011-listen-sessions.ts'
import * as eventFiltersAndSequences from './2026-11-26-0012-event-filters-and-sequences.ts'
import * as webhookSecretRotation from './2026-11-26-0013-webhook-secret-rotation.ts'
import * as webhookAttemptLog from './2026-11-26-0014-webhook-attempt-log.ts'
import * as webhookReplays from './2026-11-26-0015-webhook-replays.ts'
import * as dashboardAccounts from './2026-11-26-0016-dashboard-accounts.ts'
import * as orderDailyStats from './2026-11-26-0017-order-daily-stats.ts'
import * as apiKeyUsage from './2026-11-26-0019-api-key-usage.ts'
import * as operatorAccounts from './2026-11-26-0020-operator-accounts.ts'
import * as productionBoard from './2026-11-26-0021-production-board.ts'
import * as unmatchedSkus from './2026-11-26-0022-unmatched-skus.ts'
import * as orderChanges from './2026-11-28-0023-order-changes.ts'
import * as orderGraphWithoutForeignKeys from './2026-11-28-0024-order-graph-without-foreign-keys.ts'
import * as webhookCircuitBreaker from './2026-11-28-0025-webhook-circuit-breaker.ts'
import * as orderHistory from './2026-11-29-0026-order-history.ts'
import * as monthlyUsage from './2026-11-29-0028-monthly-usage.ts'
import * as automation from './2026-11-29-0029-automation.ts'
import * as auditLogFilters from './2026-11-29-0030-audit-log-filters.ts'
import * as webhookDailyOutcomes from './2026-11-29-0031-webhook-daily-outcomes.ts'
import * as requestLog from './2026-11-29-0032-request-log.ts'
import * as attemptSigningTime from './2026-11-29-0033-attempt-signing-time.ts'
import * as passwordResets from './2026-12-03-0034-password-resets.ts'
import * as productPrintSpecs from './2026-12-03-0035-product-print-specs.ts'
import * as preflight from './2026-12-03-0036-preflight.ts'
import * as rulesAwaitingPreflight from './2026-12-03-0037-rules-awaiting-preflight.ts'
import * as dueDates from './2026-12-03-0038-due-dates.ts'
import * as batchesAndStations from './2026-12-07-0039-batches-and-stations.ts'
import * as orderHistoryProduction from './2026-12-07-0040-order-history-production.ts'
import * as personalData from './2026-12-08-0041-personal-data.ts'
import * as traceContext from './2026-12-08-0042-trace-context.ts'

// Listed explicitly rather than read from the directory: no filesystem scan at
// start, and the set of migrations is visible in review.
const migrations: Record<string, Migration> = {
  '2026-11-22-0001-core': core,
  '2026-11-22-0002-uploads': uploads,
  '2026-11-22-0003-webhooks': webhooks,
  '2026-11-22-0004-delivery-queue-upkeep': deliveryQueueUpkeep,
  '2026-11-23-0005-delivery-pages-half-full': deliveryPagesHalfFull,
  '2026-11-25-0006-event-bodies': eventBodies,
  '2026-11-25-0007-delivery-queue': deliveryQueue,
  '2026-11-25-0009-service-instances': serviceInstances,
  '2026-11-25-0010-order-content-bytes': orderContentBytes,
  '2026-11-25-0011-listen-sessions': listenSessions,
  '2026-11-26-0012-event-filters-and-sequences': eventFiltersAndSequences,
  '2026-11-26-0013-webhook-secret-rotation': webhookSecretRotation,
  '2026-11-26-0014-webhook-attempt-log': webhookAttemptLog,
  '2026-11-26-0015-webhook-replays': webhookReplays,
  '2026-11-26-0016-dashboard-accounts': dashboardAccounts,
  '2026-11-26-0017-order-daily-stats': orderDailyStats,
  '2026-11-26-0020-operator-accounts': operatorAccounts,
  '2026-11-26-0019-api-key-usage': apiKeyUsage,
  '2026-11-26-0021-production-board': productionBoard,
  '2026-11-26-0022-unmatched-skus': unmatchedSkus,
  '2026-11-28-0023-order-changes': orderChanges,
  '2026-11-28-0024-order-graph-without-foreign-keys': orderGraphWithoutForeignKeys,
  '2026-11-28-0025-webhook-circuit-breaker': webhookCircuitBreaker,
  '2026-11-29-0026-order-history': orderHistory,
  '2026-11-29-0028-monthly-usage': monthlyUsage,
  '2026-11-29-0029-automation': automation,
  '2026-11-29-0030-audit-log-filters': auditLogFilters,
  '2026-11-29-0031-webhook-daily-outcomes': webhookDailyOutcomes,
  '2026-11-29-0032-request-log': requestLog,
  '2026-11-29-0033-attempt-signing-time': attemptSigningTime,
  '2026-12-03-0034-password-resets': passwordResets,
  '2026-12-03-0035-product-print-specs': productPrintSpecs,
  '2026-12-03-0036-preflight': preflight,
  '2026-12-03-0037-rules-awaiting-preflight': rulesAwaitingPreflight,
  '2026-12-03-0038-due-dates': dueDates,
  '2026-12-07-0039-batches-and-stations': batchesAndStations,
  '2026-12-07-0040-order-history-production': orderHistoryProduction,
  '2026-12-08-0041-personal-data': personalData,
  '2026-12-08-0042-trace-context': traceContext,
}

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
}
