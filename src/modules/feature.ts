import type { FastifyPluginAsync } from 'fastify'
import type { DashboardApp } from '../dashboard/route-config.ts'

/** One area of the dashboard API: adds its routes to the dashboard's instance. */
export type Area = (app: DashboardApp) => void

/**
 * A feature's HTTP surfaces, as its `index.ts` hands them to the app, each
 * named by its file (`<feature>.routes.ts`, `.admin.routes.ts`,
 * `.dashboard.routes.ts`, `.console.routes.ts`). The app registers every
 * feature's surfaces in the order of its list of features.
 */
export interface Surfaces {
  /** Outside any prefix: the health checks, the error pages, /docs. */
  root?: FastifyPluginAsync[]
  /** /v1, for integrators' API keys. */
  api?: FastifyPluginAsync[]
  /** /admin/v1, the operator token. */
  admin?: FastifyPluginAsync[]
  /** /dashboard/api, a member's session. */
  dashboard?: Area[]
  /** /dashboard/api/operator, an operator's session (the console). */
  console?: Area[]
}
