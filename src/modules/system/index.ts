import type { ErrorContext } from '../../http/error-handler.ts'
import type { Surfaces } from '../feature.ts'
import { pingRoutes, systemRoutes } from './system.routes.ts'
import type { SystemService } from './system.service.ts'

export { createSystemService, type SystemService } from './system.service.ts'

/** Health, readiness and the error pages; GET /v1/ping. */
export function systemSurfaces(s: { system: SystemService; errors: ErrorContext }): Surfaces {
  return { root: [systemRoutes(s)], api: [pingRoutes()] }
}
