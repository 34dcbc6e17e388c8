import type { Surfaces } from '../feature.ts'
import type { PersonalDataService } from './erasure.service.ts'
import { personalDataAdminRoutes } from './personal-data.admin.routes.ts'
import { personalDataConsoleRoutes } from './personal-data.console.routes.ts'
import { personalDataDashboardRoutes } from './personal-data.dashboard.routes.ts'

export { createPersonalDataService, type PersonalDataService } from './erasure.service.ts'

/**
 * Personal data on request (docs/personal-data.md): a customer found,
 * previewed, erased or exported, by owners and developers in the dashboard,
 * operators in the console and the operator API; each organization's retention.
 */
export function personalDataSurfaces(s: { personalData: PersonalDataService }): Surfaces {
  return {
    admin: [personalDataAdminRoutes(s)],
    dashboard: [(app) => personalDataDashboardRoutes(app, s)],
    console: [(app) => personalDataConsoleRoutes(app, s)],
  }
}
