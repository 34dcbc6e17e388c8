import type { Surfaces } from '../feature.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import { automationAdminRoutes } from './automation.admin.routes.ts'
import { automationConsoleRoutes } from './automation.console.routes.ts'
import { automationDashboardRoutes } from './automation.dashboard.routes.ts'
import type { AutomationService } from './automation.service.ts'

export { type AutomationService, createAutomationService } from './automation.service.ts'

/** An organization's rules, evaluated as an order is taken (automation.evaluate.ts), and their dry runs. */
export function automationSurfaces(s: {
  automation: AutomationService
  organizations: OrganizationService
}): Surfaces {
  return {
    admin: [automationAdminRoutes(s)],
    dashboard: [(app) => automationDashboardRoutes(app, s)],
    console: [(app) => automationConsoleRoutes(app, s)],
  }
}
