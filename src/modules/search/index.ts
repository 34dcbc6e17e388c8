import type { Surfaces } from '../feature.ts'
import type { RequestLogService } from '../requests/requests.service.ts'
import { searchDashboardRoutes } from './search.dashboard.routes.ts'
import type { SearchService } from './search.service.ts'

export { createSearchService, type SearchService } from './search.service.ts'

/** The header search of the dashboard and the console. */
export function searchSurfaces(s: { search: SearchService; requests: RequestLogService }): Surfaces {
  return { dashboard: [(app) => searchDashboardRoutes(app, s)] }
}
