import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Metrics } from '../metrics.ts'

/** Entry codes of validation_failed that refuse a referenced upload. */
const FILE_CODES = new Set(['file_not_found', 'file_type_not_allowed', 'file_too_complex'])

/** Routes that create an order; shop orders are always live (the operator API's rule). */
const ORDER_ROUTES: Record<string, (request: FastifyRequest) => { environment: string; source: string }> = {
  'POST /v1/orders': (request) => ({ environment: request.principal!.environment, source: 'api' }),
  'POST /admin/v1/organizations/:org_id/shop-orders': () => ({ environment: 'live', source: 'shop' }),
}
const UPLOAD_SLOT = 'POST /v1/uploads'
const UPLOAD_PUT = 'PUT /v1/uploads/:id/content'

const routeOf = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url}`

/**
 * Counts what the answers say, so that no module has to know about metrics:
 * durations by route pattern, orders and upload slots created (201), files
 * received (200 of the signed PUT), and refusals by the error code the answer
 * carries. With `route`, GET /metrics serves them to the operator token.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, options: { route: boolean }): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 200 && typeof payload === 'string' && routeOf(request) === UPLOAD_PUT) {
      metrics.uploadsReceived.inc()
      const size = /"size_bytes":(\d+)/.exec(payload)
      if (size) metrics.uploadBytes.inc(Number(size[1]))
    }
    done(null, payload)
  })

  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: status },
      reply.elapsedTime / 1000,
    )
    const route = routeOf(request)
    if (status === 201) {
      const order = ORDER_ROUTES[route]
      if (order) metrics.ordersCreated.inc(order(request))
      if (route === UPLOAD_SLOT) metrics.uploadSlots.inc({ environment: request.principal!.environment })
    }
    const error = reply.appError
    if (error?.code === 'rate_limited') {
      metrics.rateLimitRejections.inc({ environment: request.principal?.environment ?? 'unknown' })
    }
    if (error && route === UPLOAD_PUT) metrics.uploadsRefused.inc({ reason: error.code })
    for (const entry of error?.errors ?? []) {
      if (FILE_CODES.has(entry.code)) metrics.uploadsRefused.inc({ reason: entry.code })
    }
    done()
  })

  if (!options.route) return
  app.get('/metrics', { config: { auth: 'operator' }, schema: { hide: true } }, async (_request, reply) => {
    const body = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(body)
  })
}

/** GET /metrics without a token on a port of its own (METRICS_PORT), for a scraper on a private network. */
export async function serveMetrics(
  metrics: Metrics,
  address: { port: number; host: string },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Only GET /metrics is served here.\n')
      return
    }
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(address.port, address.host, resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
