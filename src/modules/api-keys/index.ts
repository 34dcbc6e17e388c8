import type { Surfaces } from '../feature.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import { apiKeysAdminRoutes } from './api-keys.admin.routes.ts'
import { apiKeysConsoleRoutes } from './api-keys.console.routes.ts'
import { apiKeysDashboardRoutes } from './api-keys.dashboard.routes.ts'
import type { ApiKeyService } from './api-keys.service.ts'

export { type ApiKeyService, createApiKeyService } from './api-keys.service.ts'

/** API keys: issued, revoked, and looked up for every /v1 request. */
export function apiKeysSurfaces(s: { apiKeys: ApiKeyService; organizations: OrganizationService }): Surfaces {
  return {
    admin: [apiKeysAdminRoutes(s)],
    dashboard: [(app) => apiKeysDashboardRoutes(app, s)],
    console: [(app) => apiKeysConsoleRoutes(app, s)],
  }
}
