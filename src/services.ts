import type { AppDeps } from './app-deps.ts'
import { createAccountService } from './modules/accounts/accounts.service.ts'
import { createApiKeyService } from './modules/api-keys/api-keys.service.ts'
import { createAuditService } from './modules/audit/audit.service.ts'
import { createAutomationService } from './modules/automation/automation.service.ts'
import { createDocsService } from './modules/docs/docs.service.ts'
import { createOrderEditService } from './modules/orders/changes/changes.service.ts'
import { orderAggregates } from './modules/orders/order-aggregates.ts'
import { createOrderService } from './modules/orders/orders.service.ts'
import { createOrganizationService } from './modules/organizations/organizations.service.ts'
import { createProductionService } from './modules/production/production.service.ts'
import { createProductService } from './modules/products/products.service.ts'
import { createRequestRecorder } from './modules/requests/requests.recorder.ts'
import { insertRequestLines } from './modules/requests/requests.repo.ts'
import { createRequestLogService } from './modules/requests/requests.service.ts'
import { createSystemService } from './modules/system/system.service.ts'
import { createUploadService } from './modules/uploads/uploads.service.ts'
import { createUsageService } from './modules/usage/usage.service.ts'
import { createWebhookService } from './modules/webhooks/webhooks.service.ts'
import { systemResolver } from './modules/webhooks/worker/ssrf.ts'

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
  })
  const production = createProductionService({ db: deps.db, clock: deps.clock, orders })
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
    products: createProductService({ db: deps.db, clock: deps.clock, organizations }),
    uploads,
    orders,
    production,
    orderEdits: createOrderEditService({
      db: deps.db,
      clock: deps.clock,
      uploads,
      aggregates: orderAggregates({ db: deps.db, uploads }),
      production,
    }),
    usage: createUsageService({ db: deps.db, clock: deps.clock, organizations }),
    requests: createRequestLogService({
      db: deps.db,
      clock: deps.clock,
      recorder: createRequestRecorder({ write: (lines) => insertRequestLines(deps.db, lines) }),
      publicBaseUrl: deps.config.publicBaseUrl,
    }),
    webhooks: createWebhookService({
      db: deps.db,
      clock: deps.clock,
      resolver: deps.resolver ?? systemResolver,
      allowPrivateCidrs: deps.config.webhookAllowPrivateCidrs,
    }),
  }
}
export type Services = ReturnType<typeof createServices>
