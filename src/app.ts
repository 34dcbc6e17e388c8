import { randomUUID } from 'node:crypto'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import type { AppDeps } from './app-deps.ts'
import { catalogValues } from './catalog-values.ts'
import { dashboardCookies } from './dashboard/cookies.ts'
import { DASHBOARD_API_PREFIX, dashboardApiRoutes } from './dashboard/dashboard.routes.ts'
import { dashboardWebRoutes } from './dashboard/web.routes.ts'
import { routeMethods } from './http/allowed-methods.ts'
import { registerAuth } from './http/auth.ts'
import { type ErrorContext, registerErrorHandler } from './http/error-handler.ts'
import { errorTexts } from './http/errors.ts'
import { DEFAULT_BODY_LIMIT, ORDER_BODY_LIMIT, registerJsonBodyParser } from './http/json-body.ts'
import { registerMetrics } from './http/metrics.ts'
import { OPENAPI_ROUTE_SCHEMA, openApiOptions } from './http/openapi.ts'
import {
  handleExpectations,
  handleMissingHost,
  handleShutdown,
  MAX_PARAM_LENGTH,
  protocolErrorOptions,
  SERVER_OPTIONS,
} from './http/protocol-errors.ts'
import { registerRouteErrors } from './http/route-errors.ts'
import { ErrorSchema } from './http/schemas.ts'
import { compileSerializersOnFirstUse } from './http/serializers.ts'
import { configureServerTimeouts, DEFAULT_TIMEOUTS, registerBodyDeadline } from './http/timeouts.ts'
import { trustProxyOption } from './http/trust-proxy.ts'
import { validatorCompiler } from './http/validation.ts'
import { createMetrics, observeListenStreams, observeWebhookQueue } from './metrics.ts'
import { accountsAdminRoutes } from './modules/accounts/accounts.admin.routes.ts'
import { accountsConsoleRoutes } from './modules/accounts/accounts.console.routes.ts'
import { accountsDashboardRoutes } from './modules/accounts/accounts.dashboard.routes.ts'
import { membersDashboardRoutes } from './modules/accounts/members/members.dashboard.routes.ts'
import { operatorsConsoleRoutes } from './modules/accounts/operators/operators.console.routes.ts'
import { apiKeysAdminRoutes } from './modules/api-keys/api-keys.admin.routes.ts'
import { apiKeysConsoleRoutes } from './modules/api-keys/api-keys.console.routes.ts'
import { apiKeysDashboardRoutes } from './modules/api-keys/api-keys.dashboard.routes.ts'
import { auditConsoleRoutes } from './modules/audit/audit.console.routes.ts'
import { auditDashboardRoutes } from './modules/audit/audit.dashboard.routes.ts'
import { automationAdminRoutes } from './modules/automation/automation.admin.routes.ts'
import { automationConsoleRoutes } from './modules/automation/automation.console.routes.ts'
import { automationDashboardRoutes } from './modules/automation/automation.dashboard.routes.ts'
import { docsRoutes } from './modules/docs/docs.routes.ts'
import { ordersAdminRoutes } from './modules/orders/orders.admin.routes.ts'
import { ordersDashboardRoutes } from './modules/orders/orders.dashboard.routes.ts'
import { ordersRoutes } from './modules/orders/orders.routes.ts'
import { Order } from './modules/orders/orders.schemas.ts'
import { ordersConsoleRoutes } from './modules/orders/pages/pages.console.routes.ts'
import { orderDashboardRoutes } from './modules/orders/pages/pages.dashboard.routes.ts'
import { homeDashboardRoutes } from './modules/orders/statistics/statistics.dashboard.routes.ts'
import { organizationsAdminRoutes } from './modules/organizations/organizations.admin.routes.ts'
import { organizationsConsoleRoutes } from './modules/organizations/organizations.console.routes.ts'
import { productionAdminRoutes } from './modules/production/production.admin.routes.ts'
import { productionConsoleRoutes } from './modules/production/production.console.routes.ts'
import { productsAdminRoutes } from './modules/products/products.admin.routes.ts'
import { productsDashboardRoutes } from './modules/products/products.dashboard.routes.ts'
import { registerRequestLog } from './modules/requests/requests.capture.ts'
import { requestsDashboardRoutes } from './modules/requests/requests.dashboard.routes.ts'
import { searchDashboardRoutes } from './modules/search/search.dashboard.routes.ts'
import { createSearchService } from './modules/search/search.service.ts'
import { pingRoutes, systemRoutes } from './modules/system/system.routes.ts'
import { uploadsRoutes } from './modules/uploads/uploads.routes.ts'
import { usageAdminRoutes } from './modules/usage/usage.admin.routes.ts'
import { usageConsoleRoutes } from './modules/usage/usage.console.routes.ts'
import { usageDashboardRoutes } from './modules/usage/usage.dashboard.routes.ts'
import { webhookDeliveriesDashboardRoutes } from './modules/webhooks/deliveries/deliveries.dashboard.routes.ts'
import { webhookQueueStats } from './modules/webhooks/deliveries/queue-stats.repo.ts'
import { listenRoutes } from './modules/webhooks/listen/listen.routes.ts'
import { createListenService } from './modules/webhooks/listen/listen.service.ts'
import { webhooksAdminRoutes } from './modules/webhooks/webhooks.admin.routes.ts'
import { webhooksConsoleRoutes } from './modules/webhooks/webhooks.console.routes.ts'
import { webhooksDashboardRoutes } from './modules/webhooks/webhooks.dashboard.routes.ts'
import { webhooksSection } from './modules/webhooks/webhooks.openapi.ts'
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts'
import { createServices, type Services } from './services.ts'

const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH }

/** Order bodies over 10 MB are refused with 413 request_too_large (others over 64 KB). */
export const BODY_LIMIT = ORDER_BODY_LIMIT

export async function buildApp(
  deps: AppDeps,
  services: Services = createServices(deps),
): Promise<FastifyInstance> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts }
  const errors: ErrorContext = {
    publicBaseUrl: deps.config.publicBaseUrl,
    texts: errorTexts(catalogValues(deps.config, timeouts, deps.http)),
  }
  const app = Fastify({
    logger: deps.logger ?? false,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Fastify's own request ids are per process; a UUID (or the caller's
    // X-Request-Id) lets one request be followed across instances.
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID()
    },
    routerOptions: ROUTER_OPTIONS,
    schemaController: { compilersFactory: { buildSerializer: compileSerializersOnFirstUse } },
    ...protocolErrorOptions(errors),
    http: { ...SERVER_OPTIONS, ...deps.http },
  })
  handleMissingHost(app)
  app.setValidatorCompiler(validatorCompiler)
  configureServerTimeouts(app, timeouts)
  registerBodyDeadline(app, timeouts)
  registerJsonBodyParser(app)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  registerRouteErrors(app)
  app.addSchema(ErrorSchema)
  app.addSchema(Order)
  await app.register(
    swagger,
    openApiOptions({
      ...errors,
      rateLimitPerMinute: deps.config.rateLimitPerMinute,
      webhooks: webhooksSection(),
    }),
  )

  registerErrorHandler(app, errors)

  const { system, docs, apiKeys, orders, products, organizations, uploads, production, webhooks } = services
  const { accounts, audit, usage, orderEdits, automation, requests } = services
  const cookies = dashboardCookies(deps.config.publicBaseUrl)

  registerAuth(app, {
    apiKeys,
    rateLimiter: deps.rateLimiter,
    operatorToken: deps.operatorToken,
    methodsOf: routeMethods(app, ROUTER_OPTIONS),
  })
  handleExpectations(app)
  handleShutdown(app)

  const metrics = deps.metrics ?? createMetrics()
  observeWebhookQueue(metrics, () => webhookQueueStats(deps.db, deps.clock.now()))
  registerMetrics(app, metrics, { route: deps.metricsOnApiPort ?? true })
  const listen = createListenService({
    db: deps.db,
    listen: deps.listen,
    clock: deps.clock,
    onError: (err) => app.log.error({ err }, 'listen stream failed'),
    ...deps.listenTimings,
  })
  observeListenStreams(metrics, listen.openCount)
  // Open streams end before the server stops waiting for in-flight requests.
  app.addHook('preClose', () => listen.close())
  // The last minute's last_used_at writes land before the database closes.
  app.addHook('onClose', () => apiKeys.flushUsage())
  requests.recorder.reportTo((err, lost) => app.log.error({ err, lost }, 'request log lines lost'))
  registerRequestLog(app, { recorder: requests.recorder, clock: deps.clock, secrets: [deps.operatorToken] })
  app.addHook('onClose', () => requests.recorder.close())
  await app.register(systemRoutes({ system, errors }))
  await app.register(docsRoutes({ docs }))
  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { config: { auth: 'none' }, schema: OPENAPI_ROUTE_SCHEMA }, async () =>
        app.swagger(),
      )
      await v1.register(pingRoutes())
      await v1.register(ordersRoutes({ orders }))
      await v1.register(uploadsRoutes({ uploads, timeouts }))
      await v1.register(webhooksRoutes({ webhooks }))
      await v1.register(listenRoutes({ listen }))
    },
    { prefix: '/v1' },
  )
  // /admin/v1: the operators' API (and the admin CLI), with the operator token;
  // the same envelope and error shape as /v1.
  await app.register(
    async (admin) => {
      await admin.register(organizationsAdminRoutes({ organizations }))
      await admin.register(accountsAdminRoutes({ accounts }))
      await admin.register(apiKeysAdminRoutes({ apiKeys }))
      await admin.register(productsAdminRoutes({ products }))
      await admin.register(ordersAdminRoutes({ orders }))
      await admin.register(productionAdminRoutes({ production }))
      await admin.register(usageAdminRoutes({ usage }))
      await admin.register(webhooksAdminRoutes({ webhooks, organizations }))
      await admin.register(automationAdminRoutes({ automation, organizations }))
    },
    { prefix: '/admin/v1' },
  )
  await app.register(
    dashboardApiRoutes({
      accounts,
      cookies,
      publicBaseUrl: deps.config.publicBaseUrl,
      areas: [
        (app) => accountsDashboardRoutes(app, { accounts, cookies }),
        (app) => membersDashboardRoutes(app, { accounts }),
        (app) => auditDashboardRoutes(app, { audit }),
        (app) => searchDashboardRoutes(app, { search: createSearchService({ db: deps.db }), requests }),
        (app) => requestsDashboardRoutes(app, { requests }),
        (app) => homeDashboardRoutes(app, { orders, webhooks }),
        (app) => ordersDashboardRoutes(app, { orders }),
        (app) => orderDashboardRoutes(app, { orders, webhooks, orderEdits, audit }),
        (app) => apiKeysDashboardRoutes(app, { apiKeys }),
        (app) => webhooksDashboardRoutes(app, { webhooks }),
        (app) => webhookDeliveriesDashboardRoutes(app, { webhooks }),
        (app) => productsDashboardRoutes(app, { products }),
        (app) => automationDashboardRoutes(app, { automation }),
        (app) => usageDashboardRoutes(app, { usage }),
        (app) => auditConsoleRoutes(app, { audit }),
        (app) => organizationsConsoleRoutes(app, { organizations, orders, webhooks }),
        (app) => accountsConsoleRoutes(app, { accounts }),
        (app) => apiKeysConsoleRoutes(app, { apiKeys, organizations }),
        (app) => webhooksConsoleRoutes(app, { webhooks, organizations }),
        (app) => automationConsoleRoutes(app, { automation, organizations }),
        (app) => productionConsoleRoutes(app, { production, webhooks }),
        (app) => ordersConsoleRoutes(app, { orders, orderEdits, audit }),
        (app) => usageConsoleRoutes(app, { usage }),
        (app) => operatorsConsoleRoutes(app, { accounts }),
      ],
    }),
    { prefix: DASHBOARD_API_PREFIX },
  )
  await app.register(dashboardWebRoutes())

  return app
}
