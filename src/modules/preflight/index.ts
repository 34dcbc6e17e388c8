import type { Surfaces } from '../feature.ts'
import { preflightConsoleRoutes } from './preflight.console.routes.ts'
import { preflightDashboardRoutes } from './preflight.dashboard.routes.ts'
import type { PreflightService } from './preflight.service.ts'

export { createPreflightService, type PreflightRunner, type PreflightService } from './preflight.service.ts'

/** Print-file preflight: each production file measured and checked against its product's print spec. */
export function preflightSurfaces(s: { preflight: PreflightService }): Surfaces {
  return {
    dashboard: [(app) => preflightDashboardRoutes(app, s)],
    console: [(app) => preflightConsoleRoutes(app, s)],
  }
}
