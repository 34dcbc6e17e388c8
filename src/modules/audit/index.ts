import type { Surfaces } from '../feature.ts'
import { auditConsoleRoutes } from './audit.console.routes.ts'
import { auditDashboardRoutes } from './audit.dashboard.routes.ts'
import type { AuditService } from './audit.service.ts'

export {
  type AuditActor,
  type AuditService,
  createAuditService,
  OPERATOR_TOKEN_ACTOR,
  recordAudit,
} from './audit.service.ts'

/** The audit log: an organization's, and the platform's in the console. */
export function auditSurfaces(s: { audit: AuditService }): Surfaces {
  return {
    dashboard: [(app) => auditDashboardRoutes(app, s)],
    console: [(app) => auditConsoleRoutes(app, s)],
  }
}
export { auditEntriesOf, setAuditDetails } from './personal-data.repo.ts'
