import type { AppDeps } from './app-deps.ts'
import { createAccountService } from './modules/accounts/index.ts'
import { createApiKeyService } from './modules/api-keys/index.ts'
import { createAuditService } from './modules/audit/index.ts'
import { createAutomationService } from './modules/automation/index.ts'
import { createDocsService } from './modules/docs/index.ts'
import {
  createOrderEditService,
  createOrderService,
  orderAggregates,
  toOperatorOrder,
} from './modules/orders/index.ts'
import { createOrganizationService } from './modules/organizations/index.ts'
import { createPersonalDataService } from './modules/personal-data/index.ts'
import { createPreflightService } from './modules/preflight/index.ts'
import { createProductionService } from './modules/production/index.ts'
import { createProductService } from './modules/products/index.ts'
import {
  createRequestLogService,
  createRequestRecorder,
  insertRequestLines,
} from './modules/requests/index.ts'
import { createSearchService } from './modules/search/index.ts'
import { createSystemService } from './modules/system/index.ts'
import { createUploadService } from './modules/uploads/index.ts'
import { createUsageService } from './modules/usage/index.ts'
import { createListenService, createWebhookService, systemResolver } from './modules/webhooks/index.ts'

/** Every feature's service, built once; routes and background work share them. */
export function createServices(deps: AppDeps) {
  const uploads = createUploadService({
    db: deps.db,
    clock: deps.clock,
    storage: deps.storage,
    publicBaseUrl: deps.config.publicBaseUrl,
    urlTtlSeconds: deps.config.uploadUrlTtlS,
    retentionSeconds: deps.config.uploadRetentionS,
  })
  const organizations = createOrganizationService(deps)
  const apiKeys = createApiKeyService({
    db: deps.db,
    clock: deps.clock,
    cacheKeys: deps.cacheApiKeys ?? false,
    organizations,
  })
  const automation = createAutomationService({ db: deps.db, clock: deps.clock })
  const orders = createOrderService({
    db: deps.db,
    clock: deps.clock,
    uploads,
    organizations,
    keys: apiKeys,
    automation,
    groupCommits: deps.groupCommits ?? false,
  })
  const production = createProductionService({ db: deps.db, clock: deps.clock, orders })
  const preflight = createPreflightService({
    db: deps.db,
    clock: deps.clock,
    storage: deps.storage,
    // Rules that read the print check apply with its results, in the transaction that stores them.
    onChecked: (trx, checked) => production.applyAwaitingRules(trx, checked),
  })
  const aggregates = orderAggregates({ db: deps.db, uploads })
  const requests = createRequestLogService({
    db: deps.db,
    clock: deps.clock,
    recorder: createRequestRecorder({ write: (lines) => insertRequestLines(deps.db, lines) }),
    publicBaseUrl: deps.config.publicBaseUrl,
  })
  return {
    accounts: createAccountService({
      db: deps.db,
      clock: deps.clock,
      organizations,
      rateLimiter: deps.rateLimiter,
      publicBaseUrl: deps.config.publicBaseUrl,
      ...(deps.passwordCost ? { passwordCost: deps.passwordCost } : {}),
    }),
    audit: createAuditService({ db: deps.db }),
    system: createSystemService({ db: deps.db }),
    docs: createDocsService(),
    apiKeys,
    organizations,
    automation,
    products: createProductService({
      db: deps.db,
      clock: deps.clock,
      organizations,
      preflight,
      calendar: production.calendar,
    }),
    preflight,
    uploads,
    orders,
    production,
    orderEdits: createOrderEditService({
      db: deps.db,
      clock: deps.clock,
      uploads,
      aggregates,
      production,
      preflight,
    }),
    usage: createUsageService({ db: deps.db, clock: deps.clock, organizations }),
    requests,
    personalData: createPersonalDataService({
      db: deps.db,
      clock: deps.clock,
      orderViews: async (rows) => (await aggregates.aggregatesFor(rows, true)).map(toOperatorOrder),
      flushRequestLog: () => requests.recorder.flush(),
      ...(deps.pruneRest === undefined ? {} : { pruneRest: deps.pruneRest }),
    }),
    webhooks: createWebhookService({
      db: deps.db,
      clock: deps.clock,
      resolver: deps.resolver ?? systemResolver,
      allowPrivateCidrs: deps.config.webhookAllowPrivateCidrs,
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
    listen: createListenService({
      db: deps.db,
      listen: deps.listen,
      clock: deps.clock,
      ...deps.listenTimings,
    }),
    search: createSearchService({ db: deps.db }),
  }
}
export type Services = ReturnType<typeof createServices>
