import fastifyCookie from '@fastify/cookie'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { dashboardOpenApi } from './dashboard.openapi.ts'
import { dashboardGuard } from './dashboard-guard.ts'
import { DASHBOARD_TAG, type DashboardDeps } from './route-config.ts'

export const DASHBOARD_API_PREFIX = '/dashboard/api'
export { DASHBOARD_TAG }

/**
 * /dashboard/api: the dashboard's JSON API, authenticated by the session
 * cookie. Its areas live in their features (`<feature>.dashboard.routes.ts`,
 * `<feature>.console.routes.ts`) and call the same services as /v1 and
 * /admin/v1; this adds the session guard, CSRF and the API's OpenAPI document.
 */
export function dashboardApiRoutes(deps: DashboardDeps) {
  const { accounts, cookies } = deps
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    // Parses Cookie in an onRequest hook of its own, before the guard's.
    await app.register(fastifyCookie)
    app.decorateRequest('dashboard', undefined)
    app.addHook('onRequest', dashboardGuard({ accounts, cookies, publicBaseUrl: deps.publicBaseUrl }))
    const openapi = dashboardOpenApi({
      cookieName: cookies.session,
      publicBaseUrl: deps.publicBaseUrl,
    })
    app.addHook('onRoute', openapi.collect)
    app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () =>
      openapi.document(),
    )
    for (const area of deps.areas) area(app)
  }
}
