import type { Surfaces } from '../feature.ts'
import { requestsDashboardRoutes } from './requests.dashboard.routes.ts'
import type { RequestLogService } from './requests.service.ts'

export { registerRequestLog } from './requests.capture.ts'
export { createRequestRecorder } from './requests.recorder.ts'
export { insertRequestLines } from './requests.repo.ts'
export { createRequestLogService, type RequestLogService } from './requests.service.ts'

/** The request log: what the API answered, for the dashboard. */
export function requestsSurfaces(s: { requests: RequestLogService }): Surfaces {
  return { dashboard: [(app) => requestsDashboardRoutes(app, s)] }
}
export {
  countBodiesToErase,
  dropBodiesHolding,
  dropBodiesOfOrders,
  pruneBodies,
  requestLinesOf,
} from './personal-data.repo.ts'
