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
import { registerCompression } from './http/compression.ts'
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
import { accountsSurfaces } from './modules/accounts/index.ts'
import { apiKeysSurfaces } from './modules/api-keys/index.ts'
import { auditSurfaces } from './modules/audit/index.ts'
import { automationSurfaces } from './modules/automation/index.ts'
import { docsSurfaces } from './modules/docs/index.ts'
import { Order, ordersSurfaces } from './modules/orders/index.ts'
import { organizationsSurfaces } from './modules/organizations/index.ts'
import { personalDataSurfaces } from './modules/personal-data/index.ts'
import { preflightSurfaces } from './modules/preflight/index.ts'
import { productionSurfaces } from './modules/production/index.ts'
import { productsSurfaces } from './modules/products/index.ts'
import { registerRequestLog, requestsSurfaces } from './modules/requests/index.ts'
import { searchSurfaces } from './modules/search/index.ts'
import { systemSurfaces } from './modules/system/index.ts'
import { uploadsSurfaces } from './modules/uploads/index.ts'
import { usageSurfaces } from './modules/usage/index.ts'
import { webhookQueueStats, webhooksSection, webhooksSurfaces } from './modules/webhooks/index.ts'
import { createServices, type Services } from './services.ts'

/**
 * Every feature, each by its entry (`modules/<feature>/index.ts`); the app
 * registers their surfaces in this order.
 */
const FEATURES = [
  systemSurfaces,
  docsSurfaces,
  accountsSurfaces,
  auditSurfaces,
  searchSurfaces,
  requestsSurfaces,
  ordersSurfaces,
  uploadsSurfaces,
  apiKeysSurfaces,
  webhooksSurfaces,
  productsSurfaces,
  preflightSurfaces,
  automationSurfaces,
  usageSurfaces,
  organizationsSurfaces,
  productionSurfaces,
  personalDataSurfaces,
]

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
  // Before everything else, so that every hook and route runs inside the request's span.
  if (deps.telemetry) await app.register(deps.telemetry.fastify)
  handleMissingHost(app)
  app.setValidatorCompiler(validatorCompiler)
  configureServerTimeouts(app, timeouts)
  registerBodyDeadline(app, timeouts)
  registerJsonBodyParser(app)
  await registerCompression(app)
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

  const { apiKeys, accounts, requests, listen } = services
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
  listen.reportTo((err) => app.log.error({ err }, 'listen stream failed'))
  observeListenStreams(metrics, listen.openCount)
  // Open streams end before the server stops waiting for in-flight requests.
  app.addHook('preClose', () => listen.close())
  // The last minute's last_used_at writes land before the database closes.
  app.addHook('onClose', () => apiKeys.flushUsage())
  requests.recorder.reportTo((err, lost) => app.log.error({ err, lost }, 'request log lines lost'))
  registerRequestLog(app, { recorder: requests.recorder, clock: deps.clock, secrets: [deps.operatorToken] })
  app.addHook('onClose', () => requests.recorder.close())

  const surfaces = FEATURES.map((feature) => feature({ ...services, errors, timeouts, cookies }))
  for (const s of surfaces) for (const plugin of s.root ?? []) await app.register(plugin)
  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { config: { auth: 'none' }, schema: OPENAPI_ROUTE_SCHEMA }, async () =>
        app.swagger(),
      )
      for (const s of surfaces) for (const plugin of s.api ?? []) await v1.register(plugin)
    },
    { prefix: '/v1' },
  )
  // /admin/v1: the operators' API (and the admin CLI), with the operator token;
  // the same envelope and error shape as /v1.
  await app.register(
    async (admin) => {
      for (const s of surfaces) for (const plugin of s.admin ?? []) await admin.register(plugin)
    },
    { prefix: '/admin/v1' },
  )
  await app.register(
    dashboardApiRoutes({
      accounts,
      cookies,
      publicBaseUrl: deps.config.publicBaseUrl,
      areas: [...surfaces.flatMap((s) => s.dashboard ?? []), ...surfaces.flatMap((s) => s.console ?? [])],
    }),
    { prefix: DASHBOARD_API_PREFIX },
  )
  await app.register(dashboardWebRoutes())

  return app
}
