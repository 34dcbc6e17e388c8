import type { Surfaces } from '../feature.ts'
import { usageAdminRoutes } from './usage.admin.routes.ts'
import { usageConsoleRoutes } from './usage.console.routes.ts'
import { usageDashboardRoutes } from './usage.dashboard.routes.ts'
import type { UsageService } from './usage.service.ts'

export { createUsageService, type UsageService } from './usage.service.ts'

/** The monthly figures for billing, folded off the request path. */
export function usageSurfaces(s: { usage: UsageService }): Surfaces {
  return {
    admin: [usageAdminRoutes(s)],
    dashboard: [(app) => usageDashboardRoutes(app, s)],
    console: [(app) => usageConsoleRoutes(app, s)],
  }
}
